import Foundation
import PipescopeClient
import PipescopeGraph
@testable import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// `replay --follow`'s stream: while a writer writes the recording, the end of what is
/// written is where it waits (the inspector then frames at its usual pace, not in a busy
/// loop); what is appended arrives in the next slices; when the writer closes the file,
/// the stream says following ended and how the recording ends, once.
final class ReplayStreamFollowTests: XCTestCase {
    private var path = ""

    override func setUp() { path = NSTemporaryDirectory() + "follow-stream-\(UUID().uuidString).pipescope" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: path) }

    private func batches(_ messages: [Message]) -> Int {
        messages.filter { if case .batch = $0 { return true } else { return false } }.count
    }

    func testAFollowedStreamWaitsReadsWhatIsAppendedAndEndsWhenTheWriterCloses() throws {
        let writer = try RecordingWriter.busy(at: path)

        let stream = try ReplayStream(path: path, follow: true)
        XCTAssertTrue(stream.following)
        var state = AppState(targetName: "busy")
        for message in try stream.readOpening() + [.following(true)] { _ = reduce(&state, message) }
        XCTAssertTrue(state.session.following)
        var slice = stream.next(forNanos: 1_000_000)
        XCTAssertTrue(stream.waiting, "all that is written is read; the writer writes on")
        XCTAssertFalse(stream.finished)

        // Appended after the stream reached the end: read in the next slice.
        let before = stream.recording.eventsRead
        let appended = KindSamples.batch([.value, .value])
        writer.append(appended)
        writer.waitUntilWritten()
        slice = stream.next(forNanos: 1_000_000)
        XCTAssertEqual(batches(slice), 1, "\(slice)")
        for message in slice { _ = reduce(&state, message) }
        XCTAssertEqual(stream.recording.eventsRead, before + appended.events.count)

        // The writer closes it: following ends, and the end is said once.
        writer.close()
        slice = stream.next(forNanos: 1_000_000) { recording in
            .notice(Notice(text: "ends \(recording.end)", isError: false))
        }
        XCTAssertTrue(stream.finished)
        XCTAssertFalse(stream.waiting)
        XCTAssertEqual(stream.recording.end, .complete)
        for message in slice { _ = reduce(&state, message) }
        XCTAssertFalse(state.session.following)
        XCTAssertEqual(state.session.notice?.text, "ends the recording is complete")
        XCTAssertTrue(stream.next(forNanos: 1_000_000).isEmpty)
    }

    func testWithoutAWriterThereIsNothingToFollow() throws {
        let writer = try RecordingWriter(path: path)
        writer.append(GraphSnapshot())
        writer.close()
        let stream = try ReplayStream(path: path, follow: true)
        XCTAssertFalse(stream.following)
        _ = try stream.readOpening()
        while !stream.finished { _ = stream.next(forNanos: 1_000_000) }
        XCTAssertEqual(stream.recording.end, .complete)
    }
}
