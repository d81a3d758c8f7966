import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import XCTest

/// `PIPESCOPE_RECORD` to a full disk or a path that cannot be written: the probe serves
/// anyway, and every inspector is told, in its status line, that the program is not
/// being recorded and why.
final class RecordingFailureTests: XCTestCase {
    private var directory: String!

    override func setUp() {
        directory = "/tmp/pipescope-recfail-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// Serves a probe recording to `recording`, attaches, and returns the first notice
    /// (an acknowledgement of no command) within the deadline, with the values the
    /// inspector saw delivered meanwhile.
    private func notice(recordingTo recording: String) throws -> (text: String?, values: Int) {
        let probe = Probe()
        let server = try ProbeServer(probe: probe, path: directory + "/probe.sock", recordTo: recording)
        probe.enable()
        defer {
            probe.disable()
            server.close()
        }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        defer { c.cancel() }
        let session = try ProbeSession.attach(path: directory + "/probe.sock")
        defer { session.connection.close() }
        var graph = session.graph
        var text: String?
        let deadline = Date().addingTimeInterval(30)
        var sent = 0
        while Date() < deadline, text == nil || graph.nodes.values.map(\.values).max() ?? 0 < 3 {
            if sent < 3 {
                sent += 1
                subject.send(sent)  // the pipeline runs on while the recording is stopped
            }
            guard let message = session.connection.next(timeout: 0.1) else { continue }
            switch message {
            case .acknowledged(let command, let ok, let said):
                XCTAssertEqual(command, 0)
                XCTAssertFalse(ok)
                XCTAssertNil(text, "said once")
                text = said
            case .batch(let batch): graph.fold(batch)
            case .snapshot(let snapshot): graph.load(snapshot)
            default: break
            }
        }
        return (text, graph.nodes.values.map(\.values).max() ?? 0)
    }

    func testAFullDiskIsSaidToTheInspector() throws {
        let (text, values) = try notice(recordingTo: "/dev/full")
        XCTAssertEqual(text, "pipescope: the recording to /dev/full stopped after 0 events: the disk is full "
            + "(no space left on device). The program runs on, unrecorded; the file replays up to there.")
        XCTAssertEqual(values, 3, "the pipeline delivered everything, seen live")
    }

    func testAnUnwritablePathIsSaidToTheInspectorAndTheProbeServesAnyway() throws {
        let path = directory + "/missing/r.pipescope"
        let (text, values) = try notice(recordingTo: path)
        XCTAssertEqual(text, "pipescope: not recording (PIPESCOPE_RECORD): cannot write a recording at \(path): the directory "
            + "\(directory!)/missing does not exist; create it, or choose another path. The program runs on, unrecorded.")
        XCTAssertEqual(values, 3)
    }
}
