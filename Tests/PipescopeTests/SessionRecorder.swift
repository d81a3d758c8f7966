import Foundation
@testable import Pipescope
import PipescopeGraph
import PipescopeModel
import PipescopeWire
import XCTest

/// Records a probe's session to a real recording file as the tests go, so any check can
/// be repeated on the recording: lints must come out the same from a file as live.
final class SessionRecorder {
    let path = NSTemporaryDirectory() + "/pipescope-session-\(UUID().uuidString).pipescope"
    private let writer: RecordingWriter
    private let probe: Probe

    init(probe: Probe) throws {
        self.probe = probe
        writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.processName = "lint tests"
        writer.append(welcome)
        var snapshot = ServerMessage()
        snapshot.snapshot = probe.snapshot()
        writer.append(snapshot)
    }

    /// Flushes the probe and records the batch.
    @discardableResult
    func flush() -> WireEventBatch {
        let batch = probe.flush()
        var message = ServerMessage()
        message.batch = batch
        writer.append(message)
        return batch
    }

    /// The lints of the probe's graph now, after checking that a replay of the recording
    /// so far gives exactly the same ones.
    func lints(_ linter: Linter = Linter(), now: Int64 = Int64(Date().timeIntervalSince1970 * 1e9),
               file: StaticString = #filePath, line: UInt = #line) -> [Lint] {
        flush()
        let live = linter.lints(probe.graph, now: now)
        XCTAssertEqual(try linter.lints(replayedGraph(), now: now), live, "the recording disagrees",
                       file: file, line: line)
        return live
    }

    /// The graph a replay of the file so far folds to.
    func replayedGraph() throws -> Graph {
        var graph = Graph()
        let data = FileManager.default.contents(atPath: path) ?? Data()
        for message in try RecordingFormat.read(data).messages {
            switch message.body {
            case .snapshot(let s)?: graph.load(s)
            case .batch(let b)?: graph.apply(b)
            default: break
            }
        }
        return graph
    }

    deinit {
        writer.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A probe tapping for the test, its session recorded: lints are checked on the
/// recording as well as live.
class RecordedProbeTestCase: XCTestCase {
    var probe: Probe!
    var recorder: SessionRecorder!

    override func setUpWithError() throws {
        probe = Probe()
        probe.enable()
        recorder = try SessionRecorder(probe: probe)
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
