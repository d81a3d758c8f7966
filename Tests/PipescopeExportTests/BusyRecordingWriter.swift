import Foundation
import PipescopeTestSupport
import XCTest

/// Writes the recording Benchmarks/replay-history.sh replays (``BusyRecording``, 10,000,000
/// events by default). Runs only when asked:
///
///     PIPESCOPE_WRITE_BUSY_RECORDING=/tmp/busy.pipescope swift test --skip-build --filter BusyRecordingWriter
///
/// `PIPESCOPE_BUSY_RECORDING_EVENTS=1000000` writes another size.
final class BusyRecordingWriter: XCTestCase {
    func testWriteTheBusyRecording() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["PIPESCOPE_WRITE_BUSY_RECORDING"] else {
            throw XCTSkip("set PIPESCOPE_WRITE_BUSY_RECORDING=FILE to write the busy recording")
        }
        let target = environment["PIPESCOPE_BUSY_RECORDING_EVENTS"].flatMap { Int($0) } ?? 10_000_000
        let written = try BusyRecording.write(to: path, events: target)
        print("wrote \(written) events to \(path)")
    }
}
