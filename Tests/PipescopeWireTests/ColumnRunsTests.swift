@testable import PipescopeWire
import PipescopeTestSupport
import XCTest

/// `ColumnRuns.shorter` counts a column's changes first and makes runs only when they
/// are shorter: it must give exactly the runs a plain walk gives, split where a run is
/// longer than its type holds, and expand back to the column.
final class ColumnRunsTests: XCTestCase {
    /// The runs a plain walk makes, entry by entry, or nil when not shorter.
    private func walked<T: FixedWidthInteger>(_ column: [T]) -> [T]? {
        guard var current = column.first else { return nil }
        var runs: [T] = [], length: T = 0
        for entry in column {
            if entry == current, length < T.max {
                length += 1
                continue
            }
            runs += [current, length]
            current = entry
            length = 1
        }
        runs += [current, length]
        return runs.count < column.count ? runs : nil
    }

    func testRunsAreThoseOfAPlainWalk() throws {
        var rng = SeededGenerator(seed: 45)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...60, using: &rng)
            let kinds = Int.random(in: 1...3, using: &rng)
            let column: [UInt32] = (0..<count).map { _ in UInt32.random(in: 0..<UInt32(kinds), using: &rng) }
            XCTAssertEqual(ColumnRuns.shorter(column), walked(column), "\(column)")
            if let runs = ColumnRuns.shorter(column) {
                XCTAssertEqual(try ColumnRuns.expand(runs, atMost: count, "test"), column)
            }
            let wide = column.map { UInt64($0) << 40 }
            XCTAssertEqual(ColumnRuns.shorter(wide), walked(wide))
        }
        XCTAssertNil(ColumnRuns.shorter([] as [UInt32]))
        XCTAssertNil(ColumnRuns.shorter([7] as [UInt32]))
        XCTAssertEqual(ColumnRuns.shorter(Array(repeating: 4, count: 1_000) as [UInt32]), [4, 1_000])
    }

    func testARunLongerThanItsTypeHoldsIsSplit() throws {
        let column = Array(repeating: 9, count: 600) as [UInt8] + [1, 1]
        XCTAssertEqual(ColumnRuns.shorter(column), [9, 255, 9, 255, 9, 90, 1, 2])
        XCTAssertEqual(ColumnRuns.shorter(column), walked(column))
        XCTAssertEqual(try ColumnRuns.expand([9, 255, 9, 255, 9, 90, 1, 2] as [UInt8], atMost: 602, "test"), column)
    }
}
