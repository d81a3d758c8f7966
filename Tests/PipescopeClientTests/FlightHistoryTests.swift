import Foundation
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import XCTest

/// An inspector that attaches to a program with a flight recorder gets the program's past
/// before the live stream: its history's first event is the program's first, and the seam
/// between the recorder's events and the connection's is exact (every event once, one
/// number each, none missing), while the program sends throughout.
final class FlightHistoryTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The events of `messages`' batches, numbered as the probe numbered them.
    private func events(_ messages: [Message]) -> [StageEvent] {
        messages.flatMap { message -> [StageEvent] in
            if case .batch(let batch) = message { return batch.numbered().events }
            return []
        }
    }

    func testAttachingLateStartsHistoryAtTheProgramsFirstEventAndMeetsTheLiveStreamExactly() throws {
        let sent = 6_000  // 2,000 a second: three seconds, attached in the middle
        let flight = directory + "/flight"
        let program = try ExampleProgram(socketPath: directory + "/p.sock", environment: [
            "PIPESCOPE_FLIGHT": flight, "EXAMPLE_RATE": "2000", "EXAMPLE_SEND_LIMIT": "\(sent)",
        ], standardError: directory + "/stderr")
        defer { program.stop() }
        // Attach once the program has sent for a while (its recorder holds some 30 KB).
        let deadline = Date().addingTimeInterval(60)
        while FlightSegments.bytes(in: flight) < 30_000, Date() < deadline { usleep(10_000) }

        let session = try ProbeSession.attach(path: program.socketPath)
        defer { session.connection.close() }
        let attachedAt = session.snapshot.sequence
        let opening = FlightHistory.openingMessages(for: session)
        guard case .attached? = opening.first, case .snapshot(let first)? = opening.dropFirst().first else {
            return XCTFail("the opening is the Welcome, then the recorder's first snapshot: \(opening.prefix(2))")
        }
        XCTAssertEqual(first.sequence, 0, "the recorder's first snapshot is the program's start")
        XCTAssertTrue(opening.contains { if case .historyOrigin(.programStart) = $0 { true } else { false } })
        let said = opening.compactMap { if case .notice(let notice) = $0 { notice } else { nil } }
        XCTAssertEqual(said.count, 1)
        XCTAssertTrue(said.first?.text.hasPrefix("history from the program's start: ") ?? false, "\(said)")
        XCTAssertFalse(said.first?.isError ?? true)
        let before = events(opening)
        XCTAssertGreaterThan(attachedAt, 1_000, "attached after the program made events")
        XCTAssertEqual(before.first?.id, 1, "the history's first event is the program's first")
        XCTAssertEqual(before.last?.id, attachedAt, "the recorder's events end where the live snapshot does")

        // The subject every value starts at (made before the attach).
        let subjects = Set(first.nodes.filter { $0.operatorName == "PassthroughSubject" }.map(\.id)
            + opening.flatMap { message -> [NodeID] in
                guard case .batch(let batch) = message else { return [] }
                return batch.nodes.filter { $0.operatorName == "PassthroughSubject" }.map(\.id)
            })
        // The live batches, until the last value sent has passed.
        var live: [Message] = []
        func sentAll() -> Bool {
            events(live).contains { $0.kind == .value && subjects.contains($0.node) && $0.text == "\(sent)" }
        }
        while !sentAll(), Date() < deadline {
            let messages = session.connection.poll()
            live += messages
            if messages.isEmpty { usleep(20_000) }
        }
        let after = events(live)
        XCTAssertEqual(after.first?.id, attachedAt + 1, "the live stream goes on from the next event")

        // One number per event, each once, none missing: 1, 2, 3, … across the seam.
        let all = before + after
        XCTAssertTrue(all.map(\.id) == Array(stride(from: 1, through: UInt64(all.count), by: 1)), "\(all.count) events: \(all.prefix(3).map(\.id)) …")
        // And the program's values, each once and in order: the subject's 1 … 6,000.
        let numbers = all.filter { $0.kind == .value && subjects.contains($0.node) }.map { Int($0.text) ?? -1 }
        XCTAssertTrue(numbers == Array(stride(from: 1, through: sent, by: 1)), "\(numbers.count) values: \(numbers.prefix(5)) … \(numbers.suffix(5))")

        // Folded as the inspector folds them: `g` is event 1, and says it is the program's start.
        var state = AppState(targetName: "pipescope-example")
        for message in opening + live { _ = reduce(&state, message) }
        XCTAssertEqual(state.session.historyOrigin, .programStart)
        XCTAssertEqual(state.cursor.log.start, 0)
        XCTAssertEqual(state.cursor.log.event(at: 1)?.id, 1, "the first position is the program's first event")
        XCTAssertEqual(state.cursor.log.end, all.count, "every event in history, once")
        XCTAssertEqual(contents(directory + "/stderr"), "", "nothing went wrong in the program")
    }

    /// A recorder that deleted its oldest segments within its budget: history starts at
    /// its oldest kept event, says so with its time, and meets the live stream exactly.
    func testARecorderThatDeletedItsOldestStartsHistoryThereAndSaysWhen() throws {
        let flight = directory + "/flight"
        let program = try ExampleProgram(socketPath: directory + "/p.sock", environment: [
            "PIPESCOPE_FLIGHT": flight, "PIPESCOPE_FLIGHT_BUDGET": "64KB", "EXAMPLE_RATE": "2000",
            "EXAMPLE_SEND_LIMIT": "20000",
        ], standardError: directory + "/stderr")
        defer { program.stop() }
        // Until the first segment is gone.
        let deadline = Date().addingTimeInterval(60)
        while ((try? FlightSegments.list(flight))?.first?.number ?? 0) < 3, Date() < deadline { usleep(10_000) }
        let session = try ProbeSession.attach(path: program.socketPath)
        defer { session.connection.close() }
        let history = try FlightHistory.read(for: session).get()
        XCTAssertFalse(history.fromProgramStart)
        guard case .flightRecorder(let oldest) = history.origin else { return XCTFail("\(history.origin)") }
        XCTAssertGreaterThan(oldest, 0)
        XCTAssertTrue(history.summary.hasPrefix("history from \(FlightHistoryClock.text(oldest)), the flight recorder's oldest"),
                      history.summary)
        let before = events(history.messages)
        let first = try XCTUnwrap(before.first?.id)
        XCTAssertGreaterThan(first, 1, "the program's first events were deleted")
        XCTAssertEqual(before.last?.id, session.snapshot.sequence)
        XCTAssertTrue(before.map(\.id) == Array(stride(from: first, through: session.snapshot.sequence, by: 1)), "one number each, none missing")
        // The live stream goes on from the next event.
        var live: [StageEvent] = []
        while live.isEmpty, Date() < deadline {
            live += events(session.connection.poll())
            usleep(10_000)
        }
        XCTAssertEqual(live.first?.id, session.snapshot.sequence + 1)
        XCTAssertEqual(history.oldestNanos, before.first?.time)
    }

    func testWithoutAFlightRecorderHistoryStartsAtAttachAsBefore() throws {
        let program = try ExampleProgram(socketPath: directory + "/p.sock")
        defer { program.stop() }
        let session = try ProbeSession.attach(path: program.socketPath)
        defer { session.connection.close() }
        guard case .failure(let why) = FlightHistory.read(for: session) else { return XCTFail("no recorder, no history") }
        XCTAssertEqual(why.description, FlightHistory.noRecorder)
        let opening = FlightHistory.openingMessages(for: session)
        XCTAssertEqual(opening.count, 2, "the session's own opening, nothing said: \(opening)")
        guard case .snapshot(let snapshot)? = opening.last else { return XCTFail("\(opening)") }
        XCTAssertEqual(snapshot.sequence, session.snapshot.sequence)
    }

    private func contents(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

/// The status line's clock, as ``FlightHistory/summary`` writes it (local HH:MM:SS).
private enum FlightHistoryClock {
    static func text(_ nanos: Int64) -> String {
        var seconds = time_t(nanos / 1_000_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
