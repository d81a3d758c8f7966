import Foundation
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// SortedTimes against a plain sorted array: the same counts in every span, the same
/// times after every drop, for dense times (32-bit offsets), sparse ones (gaps of
/// seconds: whole times) and both mixed, across many chunks.
final class SortedTimesTests: XCTestCase {
    func testAgreesWithASortedArrayThroughAppendsAndDrops() {
        for seed in 0..<20 as Range<UInt64> {
            var random = SeededGenerator(seed: seed)
            var times = SortedTimes()
            var model: [Int64] = []
            var now: Int64 = 1_700_000_000_000_000_000
            for step in 0..<3_000 {
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<60: now += Int64.random(in: 0...50_000, using: &random)           // dense
                case 60..<70: now += Int64.random(in: 1_000_000_000...9_000_000_000, using: &random)  // seconds apart
                case 70..<75: now -= Int64.random(in: 0...1_000, using: &random)         // a clock a moment behind
                default: break                                                           // the same time again
                }
                times.append(now)
                model.append(max(now, model.last ?? now))
                if step % 97 == 96, let first = model.first {
                    let cut = first + Int64.random(in: 0...(max(1, (model.last! - first) / 3)), using: &random)
                    times.drop(before: cut)
                    model.removeAll { $0 < cut }
                }
                if step % 13 == 0 {
                    XCTAssertEqual(times.count, model.count, "seed \(seed) step \(step)")
                    XCTAssertEqual(times.first, model.first)
                    XCTAssertEqual(times.last, model.last)
                    for _ in 0..<5 {
                        let a = (model.first ?? now) + Int64.random(in: -1_000...max(0, now - (model.first ?? now)) + 1_000, using: &random)
                        let b = a + Int64.random(in: 0...2_000_000_000, using: &random)
                        XCTAssertEqual(times.count(from: a, to: b), model.filter { $0 >= a && $0 < b }.count,
                                       "seed \(seed) step \(step) [\(a), \(b))")
                    }
                }
            }
            XCTAssertEqual(times.all, model, "seed \(seed)")
        }
    }

    func testAnEmptySpanAndDroppingEverything() {
        var times = SortedTimes()
        for t in [10, 20, 20, 35] as [Int64] { times.append(t) }
        XCTAssertEqual(times.count(from: 30, to: 20), 0)
        XCTAssertEqual(times.count(from: 20, to: 21), 2)
        times.drop(before: 100)
        XCTAssertTrue(times.isEmpty)
        XCTAssertEqual(times.count, 0)
        XCTAssertEqual(times.count(from: 0, to: 1_000), 0)
        times.append(5)
        XCTAssertEqual(times.all, [5])
    }

    /// Times moved to disk (their events spilled) count as they did in memory, through
    /// more appends, more storing and drops; what a drop leaves of a stored chunk comes
    /// back to memory.
    func testStoredTimesCountAsInMemory() {
        let file = SpilledTimes(directory: NSTemporaryDirectory())
        for seed in 0..<10 as Range<UInt64> {
            var random = SeededGenerator(seed: seed)
            var times = SortedTimes()
            var model: [Int64] = []
            var now: Int64 = 1_700_000_000_000_000_000
            for step in 0..<6_000 {
                now += Int64.random(in: 0...(step % 500 == 0 ? 6_000_000_000 : 50_000), using: &random)
                times.append(now)
                model.append(now)
                if step % 700 == 699 {
                    times.store(before: model[model.count - 600], in: file)
                }
                if step % 1_900 == 1_899, let first = model.first {
                    let cut = first + (now - first) / 5
                    times.drop(before: cut)
                    model.removeAll { $0 < cut }
                }
                if step % 250 == 0 {
                    XCTAssertEqual(times.count, model.count, "seed \(seed) step \(step)")
                    XCTAssertEqual(times.first, model.first)
                    for _ in 0..<5 {
                        let a = model[Int.random(in: 0..<model.count, using: &random)]
                        let b = a + Int64.random(in: 0...3_000_000_000, using: &random)
                        XCTAssertEqual(times.count(from: a, to: b), model.filter { $0 >= a && $0 < b }.count,
                                       "seed \(seed) step \(step) [\(a), \(b))")
                    }
                }
            }
            XCTAssertEqual(times.all, model, "seed \(seed)")
        }
        XCTAssertGreaterThan(file.bytesUsed, 0, "times went to disk")
    }
}
