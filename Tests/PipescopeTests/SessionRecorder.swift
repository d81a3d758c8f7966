import Foundation
@testable import Pipescope
import PipescopeGraph
import PipescopeWire

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
