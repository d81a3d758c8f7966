import PipescopeMetrics
import XCTest

/// The label cap on its own: first come, first kept; `other` and `unknown` take no slot.
final class LabelCapTests: XCTestCase {
    func testTheFirstValuesKeepTheirSeriesAndTheRestFoldIntoOther() {
        var cap = LabelCap(limit: 2)
        XCTAssertEqual(["A.swift:1", "B.swift:2", "C.swift:3", "A.swift:1", "D.swift:4", "B.swift:2"].map { cap.label($0) },
                       ["A.swift:1", "B.swift:2", "other", "A.swift:1", "other", "B.swift:2"])
        XCTAssertEqual(cap.kept, ["A.swift:1", "B.swift:2"])
    }

    func testUnknownAndOtherAreAlwaysThemselvesAndTakeNoSlot() {
        var cap = LabelCap(limit: 1)
        XCTAssertEqual(cap.label("unknown"), "unknown")
        XCTAssertEqual(cap.label("other"), "other")
        XCTAssertEqual(cap.label("A.swift:1"), "A.swift:1", "the one slot is still free")
        XCTAssertEqual(cap.label("unknown"), "unknown")
        XCTAssertEqual(cap.label("B.swift:2"), "other")
    }
}
