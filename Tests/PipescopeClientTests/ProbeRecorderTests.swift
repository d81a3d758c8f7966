import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeProbe
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeWire
import XCTest

/// The client's recorder and recording reader, round trip: what a live session shows is
/// what its recording replays, and a file that is cut off or not a recording says so.
final class ProbeRecorderTests: ServedProbeTestCase {
    override class var directoryPrefix: String { "pipescope-recorder-test" }

    func testARecordingReplaysWhatTheSessionSaw() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 10 }.sink { _ in }
        defer { c.cancel() }
        subject.send(1)

        let session = try ProbeSession.attach(path: directory + "/probe.sock")
        defer { session.connection.close() }
        XCTAssertEqual(session.welcome.pid, getpid())
        let file = directory + "/session.pipescope"
        let recorder = try ProbeRecorder(path: file, session: session)

        subject.send(2)
        subject.send(3)
        var live = session.graph
        var recordedEvents = 0
        let deadline = Date().addingTimeInterval(30)
        while !live.nodes.values.allSatisfy({ $0.values == 3 }), Date() < deadline {
            guard let message = session.connection.next(timeout: 0.1) else { continue }
            switch message {
            case .batch(let b):
                live.fold(b)
                recordedEvents += b.events.count
            case .snapshot(let s):
                live.load(s)
            default:
                break
            }
            recorder.record(message)
        }
        XCTAssertFalse(recorder.record(.disconnected("gone")), "the connection's end is not recorded")
        recorder.close()
        recorder.close()
        XCTAssertEqual(recorder.eventsRecorded, recordedEvents)
        XCTAssertGreaterThan(recordedEvents, 0)

        let recording = try Recording.read(path: file)
        XCTAssertEqual(recording.process, session.welcome.processName)
        XCTAssertEqual(recording.pid, getpid())
        XCTAssertEqual(recording.truncatedBytes, 0)
        XCTAssertEqual(recording.endReason, "pipescope record stopped", "closed: its end mark")
        XCTAssertEqual(recording.title, "\(session.welcome.processName) (pid \(getpid()), recorded)")
        guard case .replaying(let name, let process, let pid)? = recording.messages.first else {
            return XCTFail("a replay starts with who was recorded")
        }
        XCTAssertEqual([name, process, "\(pid)"], ["session.pipescope", session.welcome.processName, "\(getpid())"])
        XCTAssertGreaterThan(recording.lastEventNanos, 0)
        let replayed = recording.finalGraph
        XCTAssertEqual(replayed.nodes.values.map(\.values), [3, 3])
        XCTAssertEqual(replayed.nodes.values.map(\.operatorName).sorted(), live.nodes.values.map(\.operatorName).sorted())
        XCTAssertEqual(replayed.nodes.values.compactMap(\.lastValue).sorted(), live.nodes.values.compactMap(\.lastValue).sorted())

        // The export's reader sees the same file: the Welcome first, then what was recorded.
        var messages = try RecordingMessages(path: file)
        guard case .attached(let attachedProcess, _, _)? = try messages.next() else {
            return XCTFail("a recording starts with its Welcome")
        }
        XCTAssertEqual(attachedProcess, session.welcome.processName)
        while try messages.next() != nil {}
        XCTAssertEqual(messages.messagesRead, recording.messages.count)

        // Cut off in the middle of its last frame, it still replays everything before.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let cut = directory + "/cut.pipescope"
        let endMark = RecordingFormat.endMark(reason: "pipescope record stopped").count
        try bytes.dropLast(endMark + 3).write(to: URL(fileURLWithPath: cut))
        let shorter = try Recording.read(path: cut)
        XCTAssertGreaterThan(shorter.truncatedBytes, 0)
        XCTAssertEqual(shorter.messages.count, recording.messages.count - 1)
    }

    func testAFileThatIsNotARecordingSaysWhatIsWrong() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let missing = directory + "/missing.pipescope"
        XCTAssertThrowsError(try Recording.read(path: missing)) { error in
            XCTAssertEqual("\(error)", "cannot read \(missing): no such file. Give the path of a file made by `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE.")
        }
        XCTAssertThrowsError(try Recording.read(path: directory)) { error in
            XCTAssertEqual("\(error)", "cannot read \(directory!): it is a directory. Give the path of a file made by `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE.")
        }
        let text = directory + "/notes.txt"
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: text))
        XCTAssertThrowsError(try Recording.read(path: text)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(text): this file is not a Pipescope recording"), "\(error)")
        }
    }
}
