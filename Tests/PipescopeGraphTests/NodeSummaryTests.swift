import PipescopeGraph
import XCTest

/// A summary is a value: what a stage is sits in a box copies share, and changing a
/// copy never changes another; equality and hashing see every field, boxed or not.
final class NodeSummaryTests: XCTestCase {
    private let stage = NodeSummary(info: NodeInfo(id: 7, parent: 3, operatorName: "Map",
                                                   publisherType: "Map<Just<Int>, Int>", subscriber: "Sink",
                                                   thread: "main", createdNanos: 100))

    func testChangingACopyLeavesTheOriginal() {
        var copy = stage
        copy.operatorName = "Filter"        // boxed
        copy.contractBroken.append("late")  // boxed, changed in place
        copy.values += 1                    // inline
        XCTAssertEqual(stage.operatorName, "Map")
        XCTAssertEqual(stage.contractBroken, [])
        XCTAssertEqual(stage.values, 0)
        XCTAssertEqual(copy.operatorName, "Filter")
        XCTAssertEqual(copy.contractBroken, ["late"])
        XCTAssertEqual(copy.values, 1)
    }

    func testEqualityAndHashSeeEveryKindOfField() {
        var same = stage
        same.thread = "main"   // a change to the same value: another box, equal contents
        XCTAssertEqual(same, stage)
        XCTAssertEqual(same.hashValue, stage.hashValue)
        let changes: [(String, (inout NodeSummary) -> Void)] = [
            ("boxed name", { $0.publisherType = "Map<Empty<Int, Never>, Int>" }),
            ("boxed link", { $0.feeds = [9] }),
            ("boxed owner", { $0.ownerID = 1 }),
            ("inline status", { $0.status = .active }),
            ("inline value", { $0.lastValue = "1" }),
            ("inline children", { $0.children = [8] }),
        ]
        for (what, change) in changes {
            var other = stage
            change(&other)
            XCTAssertNotEqual(other, stage, what)
            XCTAssertEqual(Set([other, stage]).count, 2, what)
        }
    }
}
