import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeModel
import PipescopeProbe
import PipescopeTestSupport
import XCTest

/// A probe tapping for the test, its session recorded: lints are checked on the
/// recording as well as live.
open class RecordedProbeTestCase: XCTestCase {
    public var probe: Probe!
    public var recorder: SessionRecorder!
    /// The test's subscriptions, cancelled (released) after it.
    public var kept: [AnyCancellable] = []

    override open func setUpWithError() throws {
        let probe = Probe()
        self.probe = probe
        probe.enable()
        recorder = try SessionRecorder(snapshot: probe.snapshot(), flush: { probe.flush() }, graph: { probe.graph })
    }

    override open func tearDown() {
        kept = []
        probe.disable()
        recorder = nil
    }

    /// A minute from now: a time by which every wait has passed `--stall-after`.
    public var aMinuteLater: Int64 { Int64(Date().timeIntervalSince1970 * 1e9) + 60_000_000_000 }

    /// The stages of operator `name` in the probe's graph (flushed first), oldest first.
    public func stages(_ name: String) -> [NodeSummary] {
        recorder.flush()
        return probe.graph.nodes.values.filter { $0.operatorName == name }.sorted { $0.id < $1.id }
    }

    /// The lints live, checked to be the same when the session is replayed from its
    /// recording.
    public func lints(now: Int64 = Int64(Date().timeIntervalSince1970 * 1e9), linter: Linter = Linter(),
                      file: StaticString = #filePath, line: UInt = #line) -> [Lint] {
        recorder.lints(linter, now: now, file: file, line: line)
    }
}
