@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import XCTest

/// The tap's own hash table against `Dictionary`, through random inserts, replacements
/// and removals (the removals shift entries back; a mistake there loses or resurrects
/// keys).
final class StageTableTests: XCTestCase {
    private final class Marker {}

    func testAgreesWithADictionaryThroughRandomChurn() {
        var generator = SystemRandomNumberGenerator()
        // Identities like real ones: addresses 16 bytes apart, reused, under two types.
        let types = [ObjectIdentifier(Marker.self), ObjectIdentifier(StageTableTests.self)]
        func key(_ n: Int) -> StageKey {
            StageKey(id: unsafeBitCast(UInt64(0x7f00_0000_0000) + UInt64(n % 5_000) * 16, to: CombineIdentifier.self),
                     type: types[n / 5_000])
        }
        var table = StageTable<Int>()
        var reference: [StageKey: Int] = [:]
        for step in 0..<200_000 {
            let k = key(Int.random(in: 0..<10_000, using: &generator))
            switch Int.random(in: 0..<3, using: &generator) {
            case 0, 1:
                table[k] = step
                reference[k] = step
            default:
                table[k] = nil
                reference[k] = nil
            }
            if step % 10_000 == 0 {
                for n in 0..<10_000 { XCTAssertEqual(table[key(n)], reference[key(n)], "key \(n) at step \(step)") }
            }
        }
        XCTAssertEqual(table.count, reference.count)
        for n in 0..<10_000 { XCTAssertEqual(table[key(n)], reference[key(n)]) }
    }
}
