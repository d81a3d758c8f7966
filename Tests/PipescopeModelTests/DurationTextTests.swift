import PipescopeModel
import XCTest

/// One duration formatter (``CellText/duration(_:)``) for the table, the tree, the stage's
/// detail, the event log and a value's chain: each figure in its unit, the unit chosen by
/// the figure as printed.
final class DurationTextTests: XCTestCase {
    func testEachDurationIsWrittenInItsUnit() {
        let nanos: [Int64] = [0, 850, 999, 4_240, 40_000, 999_499, 999_999, 2_140_000, 35_000_000,
                              1_500_000_000, 59_960_000_000, 90_000_000_000]
        XCTAssertEqual(nanos.map(CellText.duration),
                       ["0 ns", "850 ns", "999 ns", "4.2 µs", "40 µs", "999 µs", "1.0 ms", "2.1 ms", "35 ms",
                        "1.5 s", "1.0 min", "1.5 min"])
    }

    func testANegativeDurationIsZero() {
        XCTAssertEqual(CellText.duration(-5), "0 ns")
    }

    /// Ages (the WAIT column's `waits ↑ Future 41s`, `held: demand 0 12m`) in the largest
    /// whole unit, rounded down: a wait of 119 s has been going on for one whole minute.
    func testAnAgeIsInItsLargestWholeUnitRoundedDown() {
        let seconds: [Int64] = [-3, 0, 1, 59, 60, 119, 3_599, 3_600, 7_199, 86_399, 86_400, 200_000]
        XCTAssertEqual(seconds.map { CellText.age($0 * 1_000_000_000 + 999_999_999) },
                       ["0s", "0s", "1s", "59s", "1m", "1m", "59m", "1h", "1h", "23h", "1d", "2d"])
    }
}
