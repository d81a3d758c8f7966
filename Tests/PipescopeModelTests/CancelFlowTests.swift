import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Cancelling from the UI: what the confirmation says it will reach, and when the
/// cancel is not sent at all.
final class CancelFlowTests: XCTestCase {
    /// Sink ← ReceiveOn(1) ← Map(2) ← Filter(3) ← PassthroughSubject(4), where Map and
    /// Filter pass the subject's subscription along.
    private func state() -> AppState {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["ReceiveOn", "Map", "Filter", "PassthroughSubject"])
        b.subscription(4)
        b.subscription(3, owner: 4)
        b.subscription(2, owner: 4)
        b.subscription(1)
        var state = AppState(targetName: "t")
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .attached(process: "t", pid: 1))
        _ = reduce(&state, .batch(b.build()))
        return state
    }

    func testTheConfirmationNamesWhatTheCancelReaches() {
        var s = state()
        s.tree.selection = 3
        XCTAssertEqual(reduce(&s, .action(.cancelSelected)), [])
        let preview = try? XCTUnwrap(s.layer.cancelPreview)
        XCTAssertEqual(preview?.sharing, [2, 3, 4], "the subscription Map and Filter pass along")
        XCTAssertEqual(preview?.upstream, [])
        XCTAssertEqual(preview?.orphaned, [1], "ReceiveOn gets nothing more")
        XCTAssertEqual(reduce(&s, .action(.confirm)), [.cancelNode(3)])
        XCTAssertNil(s.layer.cancelPreview)
    }

    func testCancellingTheRootReachesEverythingUpstream() {
        var s = state()
        s.tree.selection = 1
        _ = reduce(&s, .action(.cancelSelected))
        XCTAssertEqual(s.layer.cancelPreview?.sharing, [1])
        XCTAssertEqual(s.layer.cancelPreview?.upstream, [2, 3, 4])
        XCTAssertEqual(s.layer.cancelPreview?.orphaned, [])
    }

    func testAnyOtherKeyKeepsTheStage() {
        var s = state()
        s.tree.selection = 2
        _ = reduce(&s, .action(.cancelSelected))
        XCTAssertEqual(reduce(&s, .action(.dismiss)), [])
        XCTAssertNil(s.layer.cancelPreview)
        XCTAssertEqual(s.session.notice?.text, "not cancelled")
    }

    func testNothingIsSentWhenItCannotWork() {
        var ended = state()
        var b = BatchBuilder()
        b.finish(1)
        _ = reduce(&ended, .batch(b.build()))
        ended.tree.selection = 1
        _ = reduce(&ended, .action(.cancelSelected))
        XCTAssertNil(ended.layer.cancelPreview)
        XCTAssertTrue(ended.session.notice?.text.contains("has already finished") == true, "\(String(describing: ended.session.notice))")

        var readOnly = state()
        _ = reduce(&readOnly, .attached(process: "t", pid: 1, readOnly: true))
        _ = reduce(&readOnly, .action(.cancelSelected))
        XCTAssertNil(readOnly.layer.cancelPreview)
        XCTAssertEqual(readOnly.session.notice, Notice(text: "read-only: cancelling is refused (this inspector only looks)",
                                                       isError: true))
        // Watching describes every value on the program's thread: refused too, and nothing sent.
        XCTAssertEqual(reduce(&readOnly, .action(.toggleWatch)), [])
        XCTAssertEqual(readOnly.session.notice?.text, "read-only: watching is refused (describing every value changes "
            + "what the program pays per value); values stay sampled")
        XCTAssertEqual(readOnly.session.watched, [])

        var replay = state()
        _ = reduce(&replay, .replaying(file: "f", process: "t", pid: 1))
        _ = reduce(&replay, .action(.cancelSelected))
        XCTAssertNil(replay.layer.cancelPreview)
        XCTAssertTrue(replay.session.notice?.isError == true)
    }

    func testChoosingWhichWaitingEventToRelease() {
        var s = state()
        var b = BatchBuilder()
        b.value(1, "x")
        var batch = b.build()
        batch.trailer.gate = GateState(paused: true, pending: [
            PendingEvent(ticket: 7, node: 4, kind: .value, thread: "main", sinceNanos: 0),
            PendingEvent(ticket: 9, node: 2, kind: .value, thread: "main", sinceNanos: 0),
        ])
        _ = reduce(&s, .batch(batch))
        XCTAssertEqual(s.session.nextPending?.ticket, 7, "the oldest by default")
        XCTAssertEqual(reduce(&s, .action(.step)), [.step(1)])
        _ = reduce(&s, .action(.choosePending))
        XCTAssertEqual(s.session.nextPending?.ticket, 9)
        XCTAssertEqual(reduce(&s, .action(.step)), [.release(ticket: 9)])
        XCTAssertEqual(s.session.nextPending?.ticket, 7, "back to the oldest after releasing the chosen one")
    }

    func testTheProgramsAnswerBecomesTheNotice() {
        var s = state()
        _ = reduce(&s, .acknowledged(ok: false, text: "#9 has already ended"))
        XCTAssertEqual(s.session.notice, Notice(text: "#9 has already ended", isError: true))
        _ = reduce(&s, .action(.dismiss))
        XCTAssertNil(s.session.notice)
    }
}
