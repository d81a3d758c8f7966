import Dispatch
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeWire
import XCTest

/// A value's causes are kept as long as its stages: a value held by an asynchronous stage
/// while thousands of others pass through another pipeline still chains back to where it
/// came from, for an inspector that attaches after it all (through the snapshot's recent
/// causes), though the newest-of-all ring has long overwritten its cause.
final class LongGapChainTests: RecordedProbeTestCase {
    func testAValueHeldWhileFiveThousandOthersPassStillChainsToItsSource() throws {
        let held = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "long-gap-held")
        queue.suspend()  // receive(on:) holds the value until the queue runs
        let delivered = expectation(description: "the held value delivered")
        let c1 = held.receive(on: queue.ocombine).sink { _ in delivered.fulfill() }
        held.send(7)
        let busy = PassthroughSubject<Int, Never>()
        let c2 = busy.map { $0 + 1 }.sink { _ in }
        for i in 0..<5_000 { busy.send(i) }
        queue.resume()
        wait(for: [delivered], timeout: 10)
        recorder.flush()

        // An inspector that attaches now: no history, the snapshot's recent causes only.
        let snapshot = probe.snapshot()
        let source = try XCTUnwrap(snapshot.recent.first { $0.kind == .value && $0.text == "7" && $0.causedBy == 0 },
                                   "the held value's source is kept")
        let newer = snapshot.recent.filter { $0.id > source.id }.count
        XCTAssertEqual(newer, GraphSnapshot.recentLimit, "older than the whole ring of the newest: kept as its stage's own")
        XCTAssertEqual(snapshot.recent.map(\.id), snapshot.recent.map(\.id).sorted(), "oldest first")
        XCTAssertEqual(Set(snapshot.recent.map(\.id)).count, snapshot.recent.count, "each once")

        var writer = WireStreamWriter(), reader = WireStreamReader()
        let payload = writer.message(snapshot).framed().dropFirst(4)
        let back = try reader.snapshot(ServerMessage.decode(payload: payload).snapshot)
        var state = AppState(targetName: "long gap")
        _ = reduce(&state, .snapshot(back))
        let receiveOn = try XCTUnwrap(state.cursor.graph.nodes.values.first { $0.operatorName == "ReceiveOn" }?.id)
        let chain = try XCTUnwrap(CauseChain.lastValue(of: receiveOn, upTo: nil, in: state.cursor.log,
                                                       graph: state.cursor.graph))
        XCTAssertEqual(chain.end, .origin, CauseChainText.line(chain))
        XCTAssertEqual(chain.hops.map(\.id).last, source.id)
        XCTAssertTrue(CauseChainText.line(chain).hasPrefix("Sink got 7 ← ReceiveOn 7 ("), CauseChainText.line(chain))
        XCTAssertTrue(CauseChainText.line(chain).hasSuffix(" ← PassthroughSubject sent 7 on main"),
                      CauseChainText.line(chain))
        c1.cancel()
        c2.cancel()
    }

    /// A stage's own causes go when the probe prunes the stage, not before.
    func testAStagesOwnCausesStayUntilItIsPrunedAndOnlyThen() {
        var recent = RecentCauses(limit: 3, perStage: 2)
        recent.record([StageEvent(.value, node: 1, time: 1, text: "a"), StageEvent(.value, node: 1, time: 2, text: "b"),
                       StageEvent(.value, node: 1, time: 3, text: "c")], firstID: 10)
        recent.record((0..<6).map { StageEvent(.value, node: 2, time: Int64(10 + $0)) }, firstID: 20)
        // The ring: node 2's newest three; node 1's own last two before them.
        XCTAssertEqual(recent.events.map(\.id), [11, 12, 23, 24, 25])
        recent.forgetStages { $0 == 2 }
        XCTAssertEqual(recent.events.map(\.id), [11, 12, 23, 24, 25], "node 2's are in the ring anyway")
        recent.forgetStages { $0 == 1 }
        XCTAssertEqual(recent.events.map(\.id), [23, 24, 25], "node 1 pruned: its own go")
    }
}
