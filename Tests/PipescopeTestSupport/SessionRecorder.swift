import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeWire
import XCTest

/// Records a probe's session to a real recording file as the tests go, so any check can
/// be repeated on the recording: lints must come out the same from a file as live.
///
/// ```swift
/// let recorder = try SessionRecorder(snapshot: probe.snapshot(), flush: probe.flush, graph: { probe.graph })
/// XCTAssertEqual(recorder.lints().map(\.kind), [.unretainedCancellable])
/// ```
public final class SessionRecorder {
    public let path = NSTemporaryDirectory() + "/pipescope-session-\(UUID().uuidString).pipescope"
    private let writer: RecordingWriter
    private let takeBatch: () -> EventBatch
    private let liveGraph: () -> Graph

    /// `flush` moves the probe's buffered events into its graph and returns them;
    /// `graph` is the probe's graph.
    public init(snapshot: GraphSnapshot, flush: @escaping () -> EventBatch, graph: @escaping () -> Graph) throws {
        takeBatch = flush
        liveGraph = graph
        writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.processName = "lint tests"
        welcome.welcome.protocolVersion = ProtocolVersion.current
        writer.append(welcome)
        writer.append(snapshot)
    }

    /// Flushes the probe and records the batch; the file then holds it (the writer
    /// writes on its own thread: this waits for it).
    @discardableResult
    public func flush() -> EventBatch {
        let batch = takeBatch()
        writer.append(batch)
        writer.waitUntilWritten()
        return batch
    }

    /// The lints of the probe's graph now, after checking that a replay of the recording
    /// so far gives exactly the same ones.
    public func lints(_ linter: Linter = Linter(), now: Int64 = Int64(Date().timeIntervalSince1970 * 1e9),
                      file: StaticString = #filePath, line: UInt = #line) -> [Lint] {
        flush()
        let live = linter.lints(liveGraph(), now: now)
        XCTAssertEqual(try linter.lints(replayedGraph(), now: now), live, "the recording disagrees",
                       file: file, line: line)
        return live
    }

    /// The graph a replay of the file so far folds to.
    public func replayedGraph() throws -> Graph {
        var graph = Graph()
        var reader = WireStreamReader()
        let data = FileManager.default.contents(atPath: path) ?? Data()
        for message in try RecordingFormat.read(data).messages {
            switch message.body {
            case .snapshot(let s)?: graph.load(try reader.snapshot(s))
            case .packed(let p)?: graph.fold(try reader.batch(p))
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
