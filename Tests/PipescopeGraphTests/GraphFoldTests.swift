import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// The shared fold from events to a graph: what each event kind does to a stage.
final class GraphFoldTests: XCTestCase {
    private func fold(_ build: (inout BatchBuilder) -> Void) -> Graph {
        var b = BatchBuilder()
        build(&b)
        return Graph.folding(b.build())
    }

    func testSubscribeCreatesStagesLinkedToTheirParent() throws {
        let g = fold { b in
            b.subscribe(1, op: "Map", type: "Map<Just<Int>, Int>", subscriber: "Sink", thread: "worker-1")
            b.subscribe(2, parent: 1, op: "Just", subscriber: "Map")
        }
        XCTAssertEqual(g.roots, [1])
        let map = try XCTUnwrap(g[1])
        XCTAssertNil(map.parent)
        XCTAssertEqual(map.children, [2])
        XCTAssertEqual(map.operatorName, "Map")
        XCTAssertEqual(map.publisherType, "Map<Just<Int>, Int>")
        XCTAssertEqual(map.subscriber, "Sink")
        XCTAssertEqual(map.thread, "worker-1")
        XCTAssertEqual(map.createdNanos, BatchBuilder.baseNanos)
        XCTAssertEqual(map.status, .subscribing)
        XCTAssertEqual(map.requested, .count(0))
        XCTAssertEqual(g[2]?.parent, 1)
        XCTAssertEqual(g[2]?.status, .subscribing)
    }

    func testSubscribeWithUnknownParentBecomesARoot() {
        let g = fold { b in b.subscribe(5, parent: 99, op: "Map", subscriber: "Sink") }
        XCTAssertEqual(g.roots, [5])
        XCTAssertNil(g[5]?.parent)
    }

    func testSubscribeWithoutNodeInfoIsIgnored() {
        let g = fold { b in b.add(.subscribe, 9) }
        XCTAssertTrue(g.nodes.isEmpty)
    }

    func testSubscriptionActivates() {
        let g = fold { b in
            b.subscribe(1, op: "Just", subscriber: "Sink")
            b.subscription(1)
        }
        XCTAssertEqual(g[1]?.status, .active)
        XCTAssertNil(g[1]?.subscriptionOwner)
    }

    func testRequestAndDemandAccumulate() {
        let g = fold { b in
            b.subscribe(1, op: "Just", subscriber: "Sink")
            b.subscription(1)
            b.request(1, .count(2))
            b.value(1, "a")
            b.demand(1, .count(3))
            b.value(1, "b")
        }
        XCTAssertEqual(g[1]?.requested, .count(5))
        XCTAssertEqual(g[1]?.values, 2)
        XCTAssertEqual(g[1]?.outstanding, .count(3))
        XCTAssertEqual(g[1]?.lastValue, "b")
    }

    func testUnlimitedDemandStaysUnlimited() {
        let g = fold { b in
            b.subscribe(1, op: "Just", subscriber: "Sink")
            b.request(1, .count(4))
            b.request(1, .unlimited)
            b.demand(1, .count(1))
            b.value(1)
        }
        XCTAssertEqual(g[1]?.requested, .unlimited)
        XCTAssertEqual(g[1]?.outstanding, .unlimited)
    }

    func testFinished() {
        let g = fold { b in
            b.subscribe(1, op: "Just", subscriber: "Sink")
            b.subscription(1)
            b.finish(1)
        }
        XCTAssertEqual(g[1]?.status, .finished)
        XCTAssertEqual(g[1]?.endedNanos, BatchBuilder.baseNanos + 2_000_000)
        XCTAssertNil(g[1]?.error)
        XCTAssertNil(g[1]?.cause)
    }

    func testFailedKeepsTheErrorText() {
        let g = fold { b in
            b.subscribe(1, op: "TryMap", subscriber: "Sink")
            b.subscription(1)
            b.fail(1, "URLError(.timedOut)")
        }
        XCTAssertEqual(g[1]?.status, .failed)
        XCTAssertEqual(g[1]?.error, "URLError(.timedOut)")
        XCTAssertNotNil(g[1]?.endedNanos)
    }

    func testCancelledRecordsItsCause() {
        let g = fold { b in
            for (id, cause) in [(1, CancelCause.downstream), (2, .inspector), (3, .owner)] {
                b.subscribe(NodeID(id), op: "Timer", subscriber: "Sink")
                b.subscription(NodeID(id))
                b.cancel(NodeID(id), cause: cause)
            }
            b.subscribe(4, op: "Timer", subscriber: "Sink")
            b.add(.cancelled, 4)  // CAUSE_NONE on the wire
        }
        XCTAssertEqual(g[1]?.status, .cancelled)
        XCTAssertEqual(g[1]?.cause, .downstream)
        XCTAssertEqual(g[2]?.cause, .inspector)
        XCTAssertEqual(g[3]?.cause, .owner)
        XCTAssertEqual(g[4]?.cause, .downstream, "a cancel without a cause is taken as by its downstream")
    }

    // MARK: - Shared subscriptions

    func testRequestOnTheOwnerAppliesToItsSharers() {
        let g = fold { b in BatchFixtures.filterMapSubject(into: &b) }
        XCTAssertEqual(g[3]?.sharers, [1, 2], "sharers are kept in id order, live or loaded")
        XCTAssertEqual(g[1]?.subscriptionOwner, 3)
        XCTAssertEqual(g[2]?.subscriptionOwner, 3)
        for id: NodeID in [1, 2, 3] {
            XCTAssertEqual(g[id]?.requested, .unlimited, "#\(id)")
            XCTAssertEqual(g[id]?.status, .active, "#\(id)")
        }
        XCTAssertEqual(g[3]?.values, 5)
        XCTAssertEqual(g[2]?.values, 5)
        XCTAssertEqual(g[1]?.values, 3)
        XCTAssertEqual(g[1]?.lastValue, "50")
        XCTAssertEqual(g[3]?.lastValue, "5")
    }

    func testRequestOnASharerStaysOnTheSharer() {
        let h = fold { b in
            b.subscribe(1, op: "Map", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "Subject", subscriber: "Map")
            b.subscription(2)
            b.subscription(1, owner: 2)
            b.request(1, .count(2))
        }
        XCTAssertEqual(h[1]?.requested, .count(2))
        XCTAssertEqual(h[2]?.requested, .count(0), "a request is attributed to the stage it names")
    }

    func testCancelOnTheOwnerCancelsItsSharers() {
        let g = fold { b in
            BatchFixtures.filterMapSubject(into: &b)
            b.cancel(3, cause: .inspector)
        }
        for id: NodeID in [1, 2, 3] {
            XCTAssertEqual(g[id]?.status, .cancelled, "#\(id)")
            XCTAssertEqual(g[id]?.cause, .inspector, "#\(id)")
        }
    }

    func testSubscriptionOwnedByItselfIsNotShared() {
        let g = fold { b in
            b.subscribe(1, op: "Just", subscriber: "Sink")
            b.subscription(1, owner: 1)
        }
        XCTAssertNil(g[1]?.subscriptionOwner)
        XCTAssertEqual(g[1]?.sharers, [])
    }

    // MARK: - Forwarding

    func testForwardMirrorsEventsOntoTheForwarder() {
        let g = fold { b in
            b.subscribe(1, op: "AnyPublisher", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "Map", subscriber: "Sink")
            b.forward(1, to: 2)
            b.subscription(2)
            b.request(2, .count(3))
            b.value(2, "7")
            b.finish(2)
        }
        XCTAssertEqual(g[1]?.forwardsTo, 2)
        for id: NodeID in [1, 2] {
            XCTAssertEqual(g[id]?.status, .finished, "#\(id)")
            XCTAssertEqual(g[id]?.requested, .count(3), "#\(id)")
            XCTAssertEqual(g[id]?.values, 1, "#\(id)")
        }
    }

    /// The probe describes values of the stage that received them; a forwarder never
    /// receives values itself, so its last value must be mirrored like its count.
    func testForwarderMirrorsTheLastValueToo() {
        let g = fold { b in
            b.subscribe(1, op: "AnyPublisher", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "Map", subscriber: "Sink")
            b.forward(1, to: 2)
            b.value(2, "7")
        }
        XCTAssertEqual(g[1]?.values, 1)
        XCTAssertEqual(g[1]?.lastValue, "7", "the forwarder counts the value but shows no last value")
    }

    func testForwardToUnknownStageIsIgnored() {
        let g = fold { b in
            b.subscribe(1, op: "AnyPublisher", subscriber: "Sink")
            b.forward(1, to: 99)
        }
        XCTAssertNil(g[1]?.forwardsTo)
    }

    // MARK: - Terminal status is sticky

    func testValueAfterFinishCountsButStatusStaysFinished() {
        let g = fold { b in
            b.subscribe(1, op: "Just", subscriber: "Sink")
            b.subscription(1)
            b.finish(1)
            b.value(1, "late")
            b.subscription(1)
        }
        XCTAssertEqual(g[1]?.status, .finished)
        XCTAssertEqual(g[1]?.values, 1)
        XCTAssertEqual(g[1]?.lastValue, "late")
    }

    func testFirstEndingWins() {
        let g = fold { b in
            b.subscribe(1, op: "Just", subscriber: "Sink")
            b.finish(1)
            b.fail(1, "late failure")
            b.cancel(1, cause: .inspector)
        }
        XCTAssertEqual(g[1]?.status, .finished)
        XCTAssertNil(g[1]?.error)
        XCTAssertNil(g[1]?.cause)
        XCTAssertEqual(g[1]?.endedNanos, BatchBuilder.baseNanos + 1_000_000)
    }

    func testCancelAfterCancelKeepsTheFirstCause() {
        let g = fold { b in
            b.subscribe(1, op: "Timer", subscriber: "Sink")
            b.cancel(1, cause: .owner)
            b.cancel(1, cause: .inspector)
        }
        XCTAssertEqual(g[1]?.cause, .owner)
        XCTAssertEqual(g[1]?.endedNanos, BatchBuilder.baseNanos + 1_000_000)
    }

    func testSecondFailureKeepsTheFirstError() {
        let g = fold { b in
            b.subscribe(1, op: "TryMap", subscriber: "Sink")
            b.fail(1, "first")
            b.fail(1, "second")
        }
        XCTAssertEqual(g[1]?.status, .failed)
        XCTAssertEqual(g[1]?.endedNanos, BatchBuilder.baseNanos + 1_000_000)
        XCTAssertEqual(g[1]?.error, "first", "a stage that already failed must keep its first error")
    }

    // MARK: - Robustness

    func testEventsForUnknownNodesAreIgnored() {
        var b = BatchBuilder()
        b.subscribe(1, op: "Just", subscriber: "Sink")
        let before = Graph.folding(b.build())
        b.subscription(42)
        b.request(42, .unlimited)
        b.value(42, "ghost")
        b.demand(42, .count(1))
        b.finish(42)
        b.fail(43, "x")
        b.cancel(44)
        b.forward(45, to: 1)
        b.add(.unknown, 1)
        var after = Graph.folding(b.build())
        XCTAssertEqual(after.nodes.count, 1)
        XCTAssertEqual(after[1], before[1])
        XCTAssertEqual(after.roots, [1])
        after.apply(StageEvent(.unknown, node: 0, time: 0))
        XCTAssertEqual(after[1], before[1])
    }

    /// A SUBSCRIPTION for a pruned (or pre-snapshot) stage must not leave a ghost id in
    /// the owner's sharers, where the detail pane would list it.
    func testSubscriptionOfUnknownStageDoesNotLinkIt() {
        let g = fold { b in
            b.subscribe(1, op: "PassthroughSubject", subscriber: "Map")
            b.subscription(1)
            b.subscription(42, owner: 1)
        }
        XCTAssertNil(g[42])
        XCTAssertEqual(g[1]?.sharers, [], "unknown stage #42 was linked as a sharer")
    }

    func testTheTrailerCarriesDroppedAndEveryEventCounts() {
        var b = BatchBuilder()
        b.subscribe(1, op: "Just", subscriber: "Sink")
        b.subscription(1)
        var g = Graph()
        g.fold(b.build(sequence: 10, dropped: 3))
        XCTAssertEqual(g.dropped, 3)
        XCTAssertEqual(g.sequence, 10, "the probe's number for the batch's last event")
        g.fold(BatchBuilder().build(sequence: 10, dropped: 5))
        XCTAssertEqual(g.dropped, 5, "dropped is a running total from the probe")
        g.apply(StageEvent(.unknown, node: 0, time: 0))
        g.apply(StageEvent(.value, node: 1, time: 0))
        XCTAssertEqual(g.sequence, 12, "one at a time, each event counts, ignored or not")
    }

    func testRootsInCreationOrderAndChildrenInSubscribeOrder() {
        let g = fold { b in
            b.subscribe(1, op: "Zip", subscriber: "Sink")
            b.subscribe(2, op: "Just", subscriber: "Sink")
            b.subscribe(3, parent: 1, op: "A", subscriber: "Zip")
            b.subscribe(4, parent: 1, op: "B", subscriber: "Zip")
        }
        XCTAssertEqual(g.roots, [1, 2])
        XCTAssertEqual(g[1]?.children, [3, 4])
        XCTAssertEqual(GraphDump.lines(g), [
            "Zip<-Sink subscribing req=0 values=0",
            "  A<-Zip subscribing req=0 values=0",
            "  B<-Zip subscribing req=0 values=0",
            "Just<-Sink subscribing req=0 values=0",
        ])
    }
}
