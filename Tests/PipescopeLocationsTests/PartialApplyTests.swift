import CPipescopeLocations
@testable import PipescopeLocations
import XCTest

/// A forwarder's calls are read from the program's code only: never from memory that is
/// not an executable segment, nor past the end of the one it is in.
final class PartialApplyTests: XCTestCase {
    func testOnlyExecutableSegmentsAreRead() {
        let heap = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        defer { heap.deallocate() }
        // A call opcode in data: a word captured by a closure that is not code.
        heap.storeBytes(of: 0xE8, as: UInt8.self)
        let data = UInt(bitPattern: heap)
        XCTAssertEqual(pipescope_code_bytes_after(data), 0)
        XCTAssertEqual(PartialApply.callees(at: data), [])

        let function = unsafeBitCast(pipescope_code_bytes_after as @convention(c) (UInt) -> Int, to: UInt.self)
        let room = pipescope_code_bytes_after(function)
        XCTAssertGreaterThan(room, 0, "a function of this binary is in an executable segment")
        XCTAssertEqual(pipescope_code_bytes_after(function + UInt(room)), 0, "the segment ends there")
    }
}
