import Foundation
import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// ``Waits`` on graphs with exact times: the threshold, who holds a wait, and the
/// verdict's words in the WAIT column, the lint, and `explain`.
final class WaitsModelTests: XCTestCase {
    let t0 = BatchBuilder.baseNanos
    let second: Int64 = 1_000_000_000

    func waits(_ b: BatchBuilder, at now: Int64) -> (Graph, Waits) {
        let graph = Graph.folding(b.build())
        return (graph, Waits(graph, now: now, after: 2))
    }

    // MARK: - The rule

    func testAWaitIsMoreThanTheThresholdWithoutProgress() {
        // Sink ← Map(1) ← Subject(2): each asks for unlimited, the Map at t0 + 4 ms and
        // the subject at t0 + 5 ms (one event a millisecond).
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "PassthroughSubject"])
        let graph = Graph.folding(b.build())
        let asked = t0 + 4_000_000
        XCTAssertEqual(graph[1]?.recentRequests.map(\.time), [asked])
        XCTAssertEqual(graph[2]?.recentRequests.map(\.time), [asked + 1_000_000])
        XCTAssertNil(Waits(graph, now: asked + 2 * second, after: 2).pipeline(1), "exactly the threshold: not yet")
        // A nanosecond over: the Map waits, and its subject, asked a millisecond later,
        // not yet; so the Map holds the wait.
        let over = Waits(graph, now: asked + 2 * second + 1, after: 2)
        XCTAssertEqual(over.pipeline(1), Wait(reason: .upstream, at: 1, sinceNanos: asked))
        XCTAssertNil(over[2])
        // Once the subject waits too, the wait is the subject's; the pipeline's wait
        // still began when its root last made progress.
        XCTAssertEqual(Waits(graph, now: asked + 3 * second, after: 2).pipeline(1),
                       Wait(reason: .upstream, at: 2, sinceNanos: asked))
        XCTAssertNil(Waits(graph, now: asked + 9 * second, after: 10).pipeline(1), "the threshold is a setting")
    }

    func testAStageWhoseChildrenFlowButThatSendsNothingHoldsTheWait() {
        // Sink ← Custom(1) ← Subject(2): the subject keeps delivering, the operator (no
        // filter) sends nothing on.
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Custom", "PassthroughSubject"])
        b.now = t0 + 10 * second
        b.value(2)
        let (_, w) = waits(b, at: t0 + 11 * second)
        XCTAssertNil(w[2], "the subject delivered a second ago")
        XCTAssertEqual(w.pipeline(1), Wait(reason: .upstream, at: 1, sinceNanos: t0 + 4_000_000), "since its request")
        XCTAssertEqual(w.holders, [1])
    }

    func testAFilterDroppingWhatItGetsFlowsAndSoDoesWhatIsDownstreamOfIt() {
        // Sink ← Map(1) ← Filter(2) ← Subject(3): the subject keeps delivering, the filter
        // drops it all (values meant for another screen): filtered, not stalled.
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Filter", "PassthroughSubject"])
        b.now = t0 + 10 * second
        b.value(3)
        let (_, w) = waits(b, at: t0 + 11 * second)
        XCTAssertTrue(w.stages.isEmpty, "nothing waits: \(w.stages)")
        XCTAssertNil(w.pipeline(1))
        // Once the subject too has sent nothing for the threshold, the pipeline waits on it,
        // the program's input, from its last value.
        let (_, idle) = waits(b, at: t0 + 13 * second)
        XCTAssertEqual(idle.pipeline(1), Wait(reason: .upstream, at: 3, sinceNanos: t0 + 10 * second))
    }

    func testAZipGettingValuesFromOneSideWaitsOnTheOther() {
        // Sink ← Zip(1) ← [Subject(2), sending; Future(3), never answers].
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Zip", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Zip")
        b.subscribe(3, parent: 1, op: "Future", subscriber: "Zip")
        for id: NodeID in [2, 3, 1] { b.subscription(id) }
        for id: NodeID in [1, 2, 3] { b.request(id, .unlimited) }
        b.now = t0 + 10 * second
        b.value(2)
        let (_, w) = waits(b, at: t0 + 11 * second)
        XCTAssertEqual(w.pipeline(1)?.reason, .upstream)
        XCTAssertEqual(w.pipeline(1)?.at, 3, "the side that never answered")
    }

    func testAFlatMapWhoseInnerIsInFlightIsNotStuck() {
        // Sink ← FlatMap(1) ← Subject(2), and a Future(3) the FlatMap made for the
        // subject's value 9 s in: the FlatMap has delivered nothing for 9 s, but work
        // started a second ago.
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["FlatMap", "PassthroughSubject"])
        b.now = t0 + 9 * second
        b.value(2)
        b.subscribe(3, parent: 1, op: "Future", subscriber: "FlatMap")
        b.subscription(3)
        b.request(3, .unlimited)
        let (_, inFlight) = waits(b, at: t0 + 10 * second)
        XCTAssertNil(inFlight.pipeline(1), "its inner was made a second ago")
        // Two seconds more and the Future has not answered: it holds the wait.
        let (_, stuck) = waits(b, at: t0 + 12 * second)
        XCTAssertEqual(stuck.pipeline(1)?.reason, .upstream)
        XCTAssertEqual(stuck.pipeline(1)?.at, 3, "the Future that never answered")
    }

    func testAnOperatorThatDoesNotAskItsUpstreamHoldsTheWait() {
        // Sink ← Custom(1) ← Subject(2): the sink asked the operator for unlimited; the
        // operator never asked the subject for anything, so the subject waits on demand.
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Custom", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Custom")
        b.subscription(2)
        b.subscription(1)
        b.request(1, .unlimited)
        let (_, w) = waits(b, at: t0 + 5 * second)
        XCTAssertEqual(w[2], Wait(reason: .demand, at: 1, sinceNanos: t0 + 1_000_000),
                       "held since it was made by its subscriber, the Custom operator")
        XCTAssertEqual(w.pipeline(1), Wait(reason: .upstream, at: 1, sinceNanos: t0 + 4_000_000))
    }

    func testTheFirstWaitingChildIsFollowedToTheFurthestStageUpstream() {
        // Sink ← Merge(1) ← [Just(2), finished; Map(3) ← Future(4), never answers]
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Merge", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "Just", subscriber: "Merge")
        b.subscribe(3, parent: 1, op: "Map", subscriber: "Merge")
        b.subscribe(4, parent: 3, op: "Future", subscriber: "Map")
        for id: NodeID in [4, 3, 2, 1] { b.subscription(id) }
        b.request(1, .unlimited)
        b.request(2, .unlimited)
        b.request(4, .unlimited)
        b.request(3, .unlimited)
        b.value(2)
        b.finish(2)
        let (_, w) = waits(b, at: t0 + 30 * second)
        XCTAssertNil(w[2], "ended")
        XCTAssertEqual(w.pipeline(1)?.reason, .upstream)
        XCTAssertEqual(w.pipeline(1)?.at, 4)
        XCTAssertEqual(w[3]?.at, 4)
        XCTAssertEqual(w.holders, [4])
    }

    func testANonRootHeldOnDemandNamesItsParent() {
        // Sink ← Buffer(1) ← Subject(2): the buffer asked for 2 and got them; the sink
        // asked for nothing, so the buffer waits on demand at itself (the sink's).
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Buffer", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Buffer")
        b.subscription(2)
        b.subscription(1)
        b.request(2, .count(2))
        b.value(2)
        b.value(2)
        let (graph, w) = waits(b, at: t0 + 20 * second)
        XCTAssertEqual(w[2], Wait(reason: .demand, at: 1, sinceNanos: t0 + 6_000_000, lastRequest: .count(2)),
                       "since its last value")
        XCTAssertEqual(w[1], Wait(reason: .demand, at: 1, sinceNanos: t0, lastRequest: nil), "since it was made")
        XCTAssertEqual(w[2]?.sentence(of: 2, in: graph, now: t0 + 20 * second),
                       "held 19s: its subscriber #1 Buffer has no outstanding demand (last request .max(2))")
        XCTAssertEqual(w[1]?.sentence(of: 1, in: graph, now: t0 + 20 * second),
                       "held 20s: its subscriber Sink has no outstanding demand (it never requested any)")
    }

    func testEndedStagesDoNotWait() {
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Future"])
        b.cancel(2)
        b.cancel(1)
        let (_, w) = waits(b, at: t0 + 60 * second)
        XCTAssertEqual(w, Waits(Graph(), now: t0 + 60 * second, after: 2))
        XCTAssertTrue(w.stages.isEmpty)
    }

    func testATaskShownAsAStageDoesNotWait() {
        // The tap shows a task under its owner as a root with no upstream and no demand.
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "feed refresh", type: "Task<Void, Never>", subscriber: "Task")
        b.subscription(1)
        b.subscribe(2, op: "Tasks", type: "Map<Empty<Int, Never>, Int>", subscriber: "Task")
        b.subscription(2)
        let (_, w) = waits(b, at: t0 + 60 * second)
        XCTAssertNil(w[1])
        XCTAssertEqual(w[2]?.reason, .demand, "a stage whose subscriber is only named Task is judged")
    }

    // MARK: - Words

    func testTheVerdictInAFewWordsAndInASentence() {
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 41))
        b.subscribe(2, parent: 1, op: "Future", subscriber: "Map")
        b.subscription(2)
        b.subscription(1, owner: 2)
        b.request(2, .unlimited)
        b.subscribe(3, op: "Silent", subscriber: "Sink")
        let now = t0 + 41 * second + 500_000_000
        let (graph, w) = waits(b, at: now)
        let future = w.pipeline(1)!
        XCTAssertEqual(future.cell(in: graph, now: now), "waits ↑ Future 41s")
        XCTAssertEqual(future.mark(now: now), "waits 41s")
        XCTAssertEqual(future.sentence(of: 1, in: graph, now: now),
                       "waits 41s for #2 Future (Feed.swift:41) upstream to send a value")
        XCTAssertEqual(future.sentence(of: 2, in: graph, now: now), "waits 41s: demand is outstanding and it sends nothing")
        let silent = w.pipeline(3)!
        XCTAssertEqual(silent.cell(in: graph, now: now), "no subscription 41s")
        XCTAssertEqual(silent.mark(now: now), "no sub 41s")
        XCTAssertEqual(Wait(reason: .demand, at: 1, sinceNanos: t0).cell(in: graph, now: t0 + 12 * second),
                       "held: demand 0 12s")
        XCTAssertEqual(Wait.call(.unlimited), ".unlimited")
        XCTAssertEqual(Wait.call(.count(1)), ".max(1)")
    }

    func testTheStalledLintIsOnTheHoldingStageWithWhereWhyAndWhatToDo() {
        var b = BatchBuilder(start: t0)
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 41))
        b.subscribe(2, parent: 1, op: "Future", subscriber: "Map")
        b.subscription(2)
        b.subscription(1, owner: 2)
        b.request(2, .unlimited)
        b.subscribe(3, op: "PassthroughSubject", subscriber: "Counter")
        b.subscription(3)
        b.request(3, .count(1))
        b.value(3)
        b.subscribe(4, op: "Silent", subscriber: "Sink")
        let graph = Graph.folding(b.build())
        let now = t0 + 12 * second
        let lints = Linter(allowed: [.neverCompletes]).lints(graph, now: now)
        XCTAssertEqual(lints.map(\.node), [2, 3, 4])
        XCTAssertEqual(Set(lints.map(\.kind)), [.stalled])
        XCTAssertEqual(lints[0].message, "#2 Future (Feed.swift:41) has sent nothing for 11s while pipeline #1 has "
            + "demand outstanding. Make it send (fulfil the promise, send to the subject, start the timer), "
            + "or cancel the pipeline.")
        XCTAssertEqual(lints[1].message, "held 11s by subscriber Counter, which has no outstanding demand on "
            + "#3 PassthroughSubject; its last request was .max(1). It must request more: return a demand from receive(_:), "
            + "or call request(_:).")
        XCTAssertEqual(lints[2].message, "#4 Silent has not sent a subscription in 11s: nothing can flow. "
            + "A custom publisher must call receive(subscription:) on its subscriber.")
        XCTAssertEqual(Linter().lints(graph, now: t0 + second), [], "within the threshold")
        XCTAssertEqual(Linter(allowed: [.stalled, .neverCompletes]).lints(graph, now: now), [], "-A stalled")
    }

    // MARK: - Cost

    func testTenThousandPipelinesAreJudgedInOneWalk() {
        var b = BatchBuilder(start: t0, step: 1)
        for p in 0..<10_000 {
            b.chain(from: NodeID(p * 3 + 1), subscriber: "Sink", ops: ["Map", "Filter", "PassthroughSubject"])
        }
        let graph = Graph.folding(b.build())
        let start = DispatchTime.now().uptimeNanoseconds
        let w = Waits(graph, now: t0 + 10 * second, after: 2)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        XCTAssertEqual(w.pipelines.count, 10_000)
        XCTAssertEqual(w.stages.count, 30_000)
        XCTAssertEqual(w.holders.count, 10_000)
        print("Waits over 10,000 pipelines (30,000 stages): \(String(format: "%.1f", elapsed)) ms")
    }
}
