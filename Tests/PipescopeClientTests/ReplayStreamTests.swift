import Foundation
import PipescopeClient
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import XCTest

/// `pipescope replay` reads its recording while it is shown: the first screen needs only
/// the first snapshot, the rest arrives a slice at a time, and with the history on disk
/// `g` is the recording's first event however long it is.
final class ReplayStreamTests: XCTestCase {
    private var path = ""

    override func setUpWithError() throws {
        path = NSTemporaryDirectory() + "replay-stream-\(getpid())-\(UUID().uuidString).pipescope"
        try BusyRecording.write(to: path, events: 30_000)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Everything read through the stream, in slices, into a state whose history keeps
    /// 2,000 events in memory and the rest on disk.
    private func streamed(slice nanos: Int64 = 2_000_000) throws -> (AppState, ReplayStream, [Message]) {
        let stream = try ReplayStream(path: path)
        var state = AppState(targetName: "busy")
        state.historyLimit = 2_000
        state.historySpill = HistorySpill.Options()
        let opening = try stream.readOpening()
        for message in opening { _ = reduce(&state, message) }
        var rest: [Message] = []
        while !stream.finished {
            let slice = stream.next(forNanos: nanos)
            XCTAssertFalse(slice.isEmpty, "a slice always reads something until the end")
            rest += slice
            for message in slice { _ = reduce(&state, message) }
        }
        return (state, stream, opening + rest)
    }

    func testTheOpeningIsTheFirstSnapshotAndTheRestComesInSlices() throws {
        let whole = try Recording.read(path: path)
        let (state, stream, messages) = try streamed()
        XCTAssertEqual(stream.recording.eventsRead, whole.eventsRead)
        XCTAssertEqual(stream.recording.end, .complete)
        let batches = messages.filter { if case .batch = $0 { return true } else { return false } }.count
        XCTAssertEqual(batches, whole.messages.filter { if case .batch = $0 { return true } else { return false } }.count)
        let progress = messages.compactMap { if case .reading(let b, let of) = $0 { return (b, of) } else { return nil } }
        XCTAssertGreaterThan(progress.count, 1, "read in more than one slice")
        XCTAssertEqual(progress.last?.0, progress.last?.1, "the last says it is all read")
        XCTAssertNil(state.session.reading, "nothing left to say once read")
        XCTAssertEqual(state.cursor.liveGraph.nodes, whole.finalGraph.nodes)
    }

    func testGoingToTheStartReachesTheRecordingsFirstEvent() throws {
        let whole = try Recording.read(path: path)
        var (state, _, _) = try streamed()
        let log = state.cursor.log
        XCTAssertEqual(log.start, 0, "nothing evicted")
        XCTAssertEqual(log.end, whole.eventsRead)
        XCTAssertGreaterThan(log.memoryStart, whole.eventsRead - 4_000, "most of it on disk")
        XCTAssertEqual(log.firstID, 1)
        _ = reduce(&state, .action(.historyStart))
        XCTAssertEqual(state.cursor.position, 0)
        // One step on: the graph after the recording's first event, as the recording cut there.
        _ = reduce(&state, .action(.history(1)))
        XCTAssertEqual(state.cursor.position, 1)
        let first = try XCTUnwrap(whole.graph(upTo: 1))
        XCTAssertEqual(state.cursor.graph.nodes, first.graph.nodes)
        XCTAssertEqual(log.event(at: 1)?.id, 1)
        // And a jump across the whole recording, to the middle.
        let middle = UInt64(whole.eventsRead / 2)
        let position = try XCTUnwrap(log.position(ofEvent: middle))
        XCTAssertEqual(log.graph(at: position).nodes, try XCTUnwrap(whole.graph(upTo: middle)).graph.nodes)
    }
}
