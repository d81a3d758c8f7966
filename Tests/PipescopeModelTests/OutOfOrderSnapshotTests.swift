import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeClient
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeRecording
import PipescopeWire
import XCTest

/// The `out-of-order` lint from a snapshot alone: what the fold learnt about a flatMap's
/// answers (``InnerAnswers``) travels in the snapshot's stage, so an inspector that
/// attaches after the late answer (`Pipescope.start()` in the app, `pipescope` later),
/// `pipescope snapshot`, and a replay whose recording starts at a later snapshot judge as
/// the probe did, on the real search of ``OutOfOrderLintTests``.
final class OutOfOrderSnapshotTests: RecordedProbeTestCase {
    /// Flushes until the flatMap's location has come (the probe symbolizes on its own
    /// thread, and the lint's message names it), with a deadline.
    private func settleFlatMapLocation() {
        let deadline = Date().addingTimeInterval(20)
        recorder.flush()
        while Date() < deadline, probe.graph.nodes.values.contains(where: {
            $0.operatorName == "FlatMap" && probe.graph.location(of: $0.id) == nil
        }) {
            Thread.sleep(forTimeInterval: 0.01)
            recorder.flush()
        }
    }

    /// The probe's snapshot now, as an inspector reads it: encoded, sent, decoded.
    private func snapshotThroughTheWire() throws -> GraphSnapshot {
        settleFlatMapLocation()
        var writer = WireStreamWriter()
        let frames = writer.frames(probe.snapshot())
        XCTAssertEqual(frames.count, 1)
        let message = try ServerMessage.decode(payload: Array(frames[0].dropFirst(Framing.headerSize)))
        var reader = WireStreamReader()
        return try reader.snapshot(message.snapshot)
    }

    /// An inspector that has seen nothing but `snapshot`: its lints at `now`.
    private func inspectorLints(_ snapshot: GraphSnapshot, now: Int64) -> [Lint] {
        var state = AppState(targetName: "search")
        _ = reduce(&state, .attached(process: "search", pid: 1, readOnly: false))
        _ = reduce(&state, .snapshot(snapshot))
        _ = reduce(&state, .tick(nanos: now))
        return state.warnings.lints
    }

    private func searchAnsweredOutOfOrder() -> (SearchServer, PassthroughSubject<String, Never>) {
        search(sending: ["s", "shoe"], answering: ["shoe", "s"])
    }

    func testAnInspectorAttachingAfterTheLateAnswerGetsTheLintFromTheSnapshotAlone() throws {
        _ = searchAnsweredOutOfOrder()
        let snapshot = try snapshotThroughTheWire()
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        let live = Linter().lints(probe.graph, now: now)
        XCTAssertEqual(live.map(\.kind), [.outOfOrder])
        XCTAssertTrue(live[0].message.hasPrefix("answered out of order: the answer to \"s\" came after the answer to \"shoe\""),
                      live[0].message)
        XCTAssertEqual(inspectorLints(snapshot, now: now), live, "the same lint, on the same stage, in the same words")
        XCTAssertEqual(lints(now: now), live, "and the recording made from the start agrees")

        // Both futures finished: no input is awaited, and the late answer keeps both words.
        let answers = try XCTUnwrap(snapshot.nodes.first { $0.operatorName == "FlatMap" }?.innerAnswers)
        XCTAssertEqual(answers.inputs, [])
        XCTAssertEqual(answers.lateCount, 1)
        XCTAssertEqual(answers.lastLate?.stale.value.text, "s")
        XCTAssertEqual(answers.lastLate?.fresh.value.text, "shoe")
        XCTAssertEqual(answers.newest?.value.text, "shoe")
        XCTAssertEqual(answers.fromCollection, false)
    }

    /// Attached while "s" is still awaited: its words came in the snapshot, so the late
    /// answer after it is named as the probe names it, not by number.
    func testAnAnswerAfterTheSnapshotIsJudgedAsTheProbeJudgesIt() throws {
        let (server, _) = search(sending: ["s", "shoe"], answering: ["shoe"])
        let snapshot = try snapshotThroughTheWire()
        let flatMap = try XCTUnwrap(snapshot.nodes.first { $0.operatorName == "FlatMap" })
        XCTAssertEqual(flatMap.innerAnswers?.inputs.map(\.value), [.text("s")], "only the input still awaited")

        server.answer("s")
        let batch = recorder.flush()
        var inspector = Graph()
        inspector.load(snapshot)
        inspector.fold(batch)
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        let live = Linter().lints(probe.graph, now: now)
        XCTAssertEqual(live.map(\.kind), [.outOfOrder])
        XCTAssertTrue(live[0].message.hasPrefix("answered out of order: the answer to \"s\" came after the answer to \"shoe\""),
                      live[0].message)
        XCTAssertEqual(Linter().lints(inspector, now: now), live, "\"s\" by its words, not its number")
        XCTAssertEqual(lints(now: now), live, "and the recording made from the start agrees")
    }

    /// A recording that starts at a snapshot taken after the late answer (a flight
    /// recorder's dump, a `pipescope record` begun later) replays with the lint.
    func testARecordingThatStartsAfterTheLateAnswerReplaysWithTheLint() throws {
        _ = searchAnsweredOutOfOrder()
        settleFlatMapLocation()
        let lastEvent = try XCTUnwrap(probe.graph.nodes.values.compactMap(\.lastValueNanos).max())
        let live = lints(now: lastEvent)
        XCTAssertEqual(live.map(\.kind), [.outOfOrder])

        let path = NSTemporaryDirectory() + "/pipescope-late-\(UUID().uuidString).pipescope"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.processName = "search"
        welcome.welcome.protocolVersion = ProtocolVersion.current
        writer.append(welcome)
        writer.append(probe.snapshot())
        writer.close()

        let recording = try Recording.read(path: path)
        XCTAssertEqual(Linter().lints(recording.finalGraph, now: lastEvent), live)
        var state = AppState(targetName: "search")
        for message in recording.messages { _ = reduce(&state, message) }
        _ = reduce(&state, .tick(nanos: lastEvent))
        XCTAssertEqual(state.warnings.lints, live, "the replay shows it too")
    }

    /// A room the flatMap joined (a subject) sends after the snapshot: its values are no
    /// answers, whether the inspector saw its first value or only a snapshot after it.
    func testAStreamJoinedBeforeTheSnapshotStaysQuietAfterIt() throws {
        let rooms = ["a": PassthroughSubject<String, Never>(), "b": PassthroughSubject<String, Never>()]
        let chosen = PassthroughSubject<String, Never>()
        chosen.flatMap { rooms[$0]! }.sink { _ in }.store(in: &kept)
        chosen.send("a")
        chosen.send("b")
        rooms["a"]!.send("hello from a")
        rooms["b"]!.send("hello from b")
        let snapshot = try snapshotThroughTheWire()
        rooms["b"]!.send("again from b")
        rooms["a"]!.send("again from a")
        let batch = recorder.flush()
        var inspector = Graph()
        inspector.load(snapshot)
        inspector.fold(batch)
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        XCTAssertEqual(lints(now: now), [])
        XCTAssertEqual(Linter().lints(inspector, now: now), [], "a room's message is no late answer")
    }
}
