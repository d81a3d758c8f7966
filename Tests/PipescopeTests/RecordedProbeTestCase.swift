@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// A probe tapping for the test, its session recorded: lints are checked on the
/// recording as well as live.
class RecordedProbeTestCase: XCTestCase {
    var probe: Probe!
    var recorder: SessionRecorder!

    override func setUpWithError() throws {
        let probe = Probe()
        self.probe = probe
        probe.enable()
        recorder = try SessionRecorder(snapshot: probe.snapshot(), flush: { probe.flush() }, graph: { probe.graph })
    }

    override func tearDown() {
        probe.disable()
        recorder = nil
    }

    /// The lints live, checked to be the same when the session is replayed from its
    /// recording.
    func lints(now: Int64 = Int64(Date().timeIntervalSince1970 * 1e9), linter: Linter = Linter(),
               file: StaticString = #filePath, line: UInt = #line) -> [Lint] {
        recorder.lints(linter, now: now, file: file, line: line)
    }
}
