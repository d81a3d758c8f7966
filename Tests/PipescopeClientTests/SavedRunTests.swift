import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// The inspector's `s`: what it holds of a run, written as a recording, replays as the
/// same history: every kept event with its number, time, text and cause, and the same
/// graph at the start and at the end. Real pipelines, a real probe, a real session.
final class SavedRunTests: ServedProbeTestCase {
    override class var directoryPrefix: String { "pipescope-saved-run-test" }

    /// An inspector's state attached to the probe, after `values` values through a
    /// subject → map → filter → sink pipeline (and a finished one before it attached).
    private func inspected(values: Int, historyLimit: Int = 100_000) throws -> (AppState, ProbeSession, AnyCancellable) {
        let before = [1, 2, 3].publisher.map { $0 + 1 }.sink { _ in }
        _ = before
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 10 }.filter { $0 % 20 == 0 }.sink { _ in }
        subject.send(0)
        let session = try ProbeSession.attach(path: directory + "/probe.sock")
        var state = AppState(targetName: "")
        state.historyLimit = historyLimit
        for message in session.openingMessages { _ = reduce(&state, message) }
        for v in 1...values { subject.send(v) }
        let deadline = Date().addingTimeInterval(30)
        while state.cursor.liveGraph.nodes.values.first(where: { $0.operatorName == "Map" })?.values ?? 0 < values + 1,
              Date() < deadline {
            guard let message = session.connection.next(timeout: 0.1) else { continue }
            _ = reduce(&state, message)
        }
        // Where each stage was made, as a probe sends it once symbolized (after the stage
        // itself): every position from the first kept one on must show it.
        let located = state.cursor.liveGraph.nodes.keys.sorted().map {
            LocatedStage(node: $0, location: SourceLocation(file: "/src/App/Feed.swift", line: 40 + Int($0),
                                                             function: "Feed.start()", image: "App", offset: 0x1000))
        }
        _ = reduce(&state, .batch(EventBatch(locations: located,
                                             trailer: BatchTrailer(sequence: state.cursor.liveGraph.sequence))))
        return (state, session, c)
    }

    /// Replays the file into a fresh state, as `pipescope replay` does.
    private func replay(_ path: String) throws -> (AppState, Recording) {
        let recording = try Recording.read(path: path)
        var state = AppState(targetName: "")
        for message in recording.messages { _ = reduce(&state, message) }
        return (state, recording)
    }

    private func assertSameHistory(_ saved: AppState, _ replayed: AppState, file: StaticString = #filePath, line: UInt = #line) {
        let a = saved.cursor.log, b = replayed.cursor.log
        XCTAssertEqual(b.end - b.start, a.end - a.start, "every kept event", file: file, line: line)
        for i in 1...max(1, a.end - a.start) {
            guard let x = a.event(at: a.start + i), let y = b.event(at: b.start + i) else {
                return XCTFail("event \(i) missing", file: file, line: line)
            }
            XCTAssertEqual(y, x, "event \(i)", file: file, line: line)
            if y != x { return }
        }
        XCTAssertEqual(GraphDump.lines(b.graph(at: b.start), showValues: true),
                       GraphDump.lines(a.graph(at: a.start), showValues: true), "the graph before the first kept event",
                       file: file, line: line)
        // Where each stage was made, found after it was sent, is on it from its start.
        func locations(_ graph: Graph) -> [NodeID: String] { graph.nodes.mapValues { "\($0.location.map { "\($0)" } ?? "none")" } }
        XCTAssertFalse(locations(a.graph(at: a.start)).values.contains("none"), "every stage located from the start",
                       file: file, line: line)
        XCTAssertEqual(locations(b.graph(at: b.start)), locations(a.graph(at: a.start)), file: file, line: line)
        XCTAssertEqual(locations(replayed.cursor.liveGraph), locations(saved.cursor.liveGraph), file: file, line: line)
        XCTAssertEqual(GraphDump.lines(replayed.cursor.liveGraph, showValues: true),
                       GraphDump.lines(saved.cursor.liveGraph, showValues: true), "the graph at the end",
                       file: file, line: line)
    }

    func testASavedRunReplaysAsTheSameHistory() throws {
        var (state, session, c) = try inspected(values: 200)
        defer { c.cancel(); session.connection.close() }
        _ = reduce(&state, .disconnected("the program closed the connection"))
        let path = directory + "/saved.pipescope"
        let saved = try SavedRun.write(state, to: path)
        XCTAssertEqual(saved.events, state.cursor.log.end - state.cursor.log.start)
        XCTAssertGreaterThan(saved.events, 400)

        let (replayed, recording) = try replay(path)
        XCTAssertEqual(recording.process, session.welcome.processName)
        XCTAssertEqual(recording.pid, getpid())
        XCTAssertEqual(recording.truncatedBytes, 0)
        XCTAssertNil(recording.damage)
        XCTAssertEqual(recording.endReason?.hasPrefix("saved by the inspector, after the program ended at "), true,
                       recording.endReason ?? "no end mark")
        assertSameHistory(state, replayed)
        // Causes still link: the sink's last value came from the subject's.
        let log = replayed.cursor.log
        XCTAssertGreaterThan(log.end, log.start, "the replayed history has events")
        // A stride, not a range: an empty history gives no positions instead of a trap that
        // would end every test after this one.
        let caused = stride(from: log.start + 1, through: log.end, by: 1).compactMap { log.event(at: $0) }
            .filter { $0.causedBy != 0 }
        XCTAssertFalse(caused.isEmpty)
        for event in caused.suffix(20) {
            XCTAssertNotNil(log.event(numbered: event.causedBy), "cause #\(event.causedBy) of #\(event.id) is kept")
        }
    }

    /// With a small history limit the oldest events are gone: the file starts from the
    /// graph before the oldest kept one, and replays the same.
    func testASavedRunAfterEvictionStartsWhereTheHistoryStarts() throws {
        let (state, session, c) = try inspected(values: 1_500, historyLimit: 1_000)
        defer { c.cancel(); session.connection.close() }
        XCTAssertGreaterThan(state.cursor.log.start, 0, "some events were evicted")
        let path = directory + "/evicted.pipescope"
        let saved = try SavedRun.write(state, to: path)
        let (replayed, _) = try replay(path)
        XCTAssertEqual(saved.events, state.cursor.log.end - state.cursor.log.start)
        assertSameHistory(state, replayed)
    }

    func testAPathThatCannotBeWrittenSaysWhy() throws {
        let (state, session, c) = try inspected(values: 3)
        defer { c.cancel(); session.connection.close() }
        XCTAssertThrowsError(try SavedRun.write(state, to: "/nonexistent-dir/x.pipescope")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent-dir/x.pipescope"), "\(error)")
        }
    }

    /// `s` saves under the user's state directory (or PIPESCOPE_SAVE_DIR), never into
    /// whatever directory the inspector runs in; it makes the directory, and says the path.
    func testSaveGoesToTheStateDirectoryAndSaysWhere() throws {
        let (state, session, c) = try inspected(values: 3)
        defer { c.cancel(); session.connection.close() }
        let home = directory + "/home"
        XCTAssertEqual(SavedRun.directory(environment: ["HOME": home]), home + "/.local/state/pipescope/saved")
        XCTAssertEqual(SavedRun.directory(environment: ["HOME": home, "XDG_STATE_HOME": directory + "/state"]),
                       directory + "/state/pipescope/saved")
        XCTAssertEqual(SavedRun.directory(environment: ["HOME": home, "XDG_STATE_HOME": directory + "/state",
                                                        "PIPESCOPE_SAVE_DIR": directory + "/mine"]), directory + "/mine")

        let answer = SavedRun.saveAnswer(state, environment: ["HOME": home])
        XCTAssertTrue(answer.ok, answer.text)
        let saved = try FileManager.default.contentsOfDirectory(atPath: home + "/.local/state/pipescope/saved")
        XCTAssertEqual(saved.count, 1)
        XCTAssertTrue(answer.text.hasPrefix("saved "), answer.text)
        XCTAssertTrue(answer.text.hasSuffix(" to ~/.local/state/pipescope/saved/\(saved[0]) (replay or export reads it)"),
                      answer.text)
        var info = stat()
        XCTAssertEqual(stat(home + "/.local/state/pipescope/saved", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700, "private: it holds what the program's values said")
        XCTAssertEqual(try Recording.read(path: home + "/.local/state/pipescope/saved/" + saved[0]).snapshotsRead, 1)

        // A file where the directory should be: not saved, and it says what to do.
        XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/taken", contents: Data()))
        let refused = SavedRun.saveAnswer(state, environment: ["PIPESCOPE_SAVE_DIR": directory + "/taken"])
        XCTAssertFalse(refused.ok)
        XCTAssertEqual(refused.text, "not saved: cannot make the directory \(directory!)/taken (it is not a directory); "
                       + "set PIPESCOPE_SAVE_DIR to a directory you can write")
    }
}
