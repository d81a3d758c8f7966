import Dispatch
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Where a value came from, end to end: real OpenCombine pipelines tapped by an
/// in-process probe, their session recorded, the recording replayed into an inspector's
/// state, and the chain read from its history as `e` and `explain` show it.
final class ChainTests: RecordedProbeTestCase {
    /// The recording so far, replayed into an inspector's state (after a flush).
    private func replay() throws -> AppState {
        recorder.flush()
        var state = AppState(targetName: "chains")
        var reader = WireStreamReader()
        let data = FileManager.default.contents(atPath: recorder.path) ?? Data()
        for message in try RecordingFormat.read(data).messages {
            switch message.body {
            case .snapshot(let s)?: _ = reduce(&state, .snapshot(try reader.snapshot(s)))
            case .packed(let p)?: _ = reduce(&state, .batch(try reader.batch(p)))
            default: break
            }
        }
        return state
    }

    func stage(_ op: String, in state: AppState) throws -> NodeID {
        try XCTUnwrap(state.cursor.graph.nodes.values.filter { $0.operatorName == op }.map(\.id).min(), "no \(op)")
    }

    /// The chain of `op`'s last value in the replayed state.
    private func chain(of op: String, in state: AppState) throws -> CauseChain {
        let id = try stage(op, in: state)
        return try XCTUnwrap(CauseChain.lastValue(of: id, upTo: nil, in: state.cursor.log, graph: state.cursor.graph))
    }

    /// The chain's line with the measured gaps left out: `(2.1 ms)` goes, and
    /// `(2.1 ms, thread q)` reads `(…, thread q)`.
    func line(_ chain: CauseChain) -> String {
        let gap = #"\d+(\.\d)? (µs|ms|s|min)"#
        return CauseChainText.line(chain)
            .replacingOccurrences(of: " \\(\(gap)\\)", with: "", options: .regularExpression)
            .replacingOccurrences(of: "\\(\(gap), thread", with: "(…, thread", options: .regularExpression)
    }

    func testMapAndFilterOnOneThread() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 2 }.filter { $0 > 10 }.sink { _ in }
        subject.send(23)
        subject.send(1)
        let state = try replay()
        let chain = try chain(of: "Filter", in: state)
        XCTAssertEqual(line(chain), "Sink got 46 ← Filter 46 ← Map 23→46 ← PassthroughSubject sent 23 on main")
        XCTAssertEqual(chain.hops.map(\.thread), ["main", "main", "main"])
        XCTAssertEqual(chain.end, .origin)
        let ids = try ["Filter", "Map", "PassthroughSubject"].map { try stage($0, in: state) }
        XCTAssertEqual(chain.hops.map(\.stage), ids)
        XCTAssertEqual(chain.hops.map(\.id), chain.hops.map(\.id).sorted(by: >), "each cause is earlier")
        XCTAssertTrue(CauseChainJSON.render(chain).hasSuffix(#""end":"origin","stage":\#(ids[0]),"value":"46"}"#))
        c.cancel()
    }

    func testAcrossReceiveOnToAnotherQueue() throws {
        let subject = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "chain-receive-on")
        let done = expectation(description: "three values")
        let seen = LockedCounter()
        let c = subject.receive(on: queue.ocombine).map { $0 * 10 }.sink { _ in
            if seen.increment() == 3 { done.fulfill() }
        }
        for i in 1...3 { subject.send(i) }
        wait(for: [done], timeout: 10)
        let state = try replay()
        let chain = try chain(of: "Map", in: state)
        let worker = chain.hops[0].thread
        XCTAssertNotEqual(worker, "main")
        XCTAssertFalse(worker.isEmpty)
        XCTAssertEqual(line(chain),
                       "Sink got 30 ← Map 3→30 ← ReceiveOn 3 (…, thread \(worker)) ← PassthroughSubject sent 3 on main")
        XCTAssertEqual(chain.hops.map(\.thread), [worker, worker, "main"])
        c.cancel()
    }

    func testThroughFlatMapInners() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.flatMap { Just($0 * 2) }.sink { _ in }
        subject.send(4)
        let state = try replay()
        let chain = try chain(of: "FlatMap", in: state)
        XCTAssertEqual(line(chain), "Sink got 8 ← FlatMap 8 ← Just 8 ← PassthroughSubject sent 4 on main")
        XCTAssertEqual(state.cursor.graph[chain.hops[1].stage]?.parent, chain.hops[0].stage, "the Just is FlatMap's inner")
        c.cancel()
    }

    func testThroughDebounce() throws {
        let subject = PassthroughSubject<Int, Never>()
        let scheduler = ManualScheduler()
        let c = subject.debounce(for: .nanoseconds(100), scheduler: scheduler).sink { _ in }
        for i in 1...3 { subject.send(i) }
        scheduler.advance(by: .nanoseconds(200))
        let state = try replay()
        let chain = try chain(of: "Debounce", in: state)
        XCTAssertEqual(line(chain), "Sink got 3 ← Debounce 3 ← PassthroughSubject sent 3 on main")
        c.cancel()
    }

    /// collect(3) twice: the second output gathers exactly its own three inputs.
    func testThroughCollectOfThree() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.collect(3).sink { _ in }
        recorder.flush()
        let collect = try XCTUnwrap(probe.graph.nodes.values.first { $0.operatorName == "CollectByCount" }?.id)
        probe.captureEveryValue(of: [collect])
        for i in 1...6 { subject.send(i) }
        let state = try replay()
        let chain = try chain(of: "CollectByCount", in: state)
        XCTAssertEqual(line(chain), "Sink got [4, 5, 6] ← CollectByCount gathered 3 → [4, 5, 6] ← PassthroughSubject sent 6 on main")
        let gathered = try XCTUnwrap(chain.hops[0].gathered)
        XCTAssertEqual(gathered.map(\.value), ["4", "5", "6"])
        XCTAssertEqual(gathered.last?.id, chain.hops[1].id, "the last input is the cause")
        XCTAssertTrue(chain.hops[0].gatheredAll)
        c.cancel()
    }

    /// The sink cancels inside the value it got: the cancel that reaches the subject
    /// chains back through the cancel the sink made to that value and its send.
    func testACancelChainsBackToTheStageThatCancelled() throws {
        let subject = PassthroughSubject<Int, Never>()
        let box = ChainCancellableBox()
        box.cancellable = subject.receive(on: ImmediateScheduler.shared).map { $0 + 1 }.sink { _ in box.cancellable?.cancel() }
        subject.send(5)
        let state = try replay()
        let log = state.cursor.log
        let lastCancel = try XCTUnwrap(stride(from: log.start + 1, through: log.end, by: 1).reversed().first { log.event(at: $0)?.kind == .cancelled })
        let chain = try XCTUnwrap(CauseChain.at(lastCancel, in: log, graph: state.cursor.graph))
        XCTAssertEqual(line(chain), "PassthroughSubject cancelled ← ReceiveOn cancelled ← Map 5→6 ← ReceiveOn 5 "
            + "← PassthroughSubject sent 5 on main")
        XCTAssertEqual(chain.hops.map(\.kind), [.cancelled, .cancelled, .value, .value, .value])
        XCTAssertEqual(chain.hops.map(\.value), [nil, nil, "6", "5", "5"])
        XCTAssertEqual(chain.hops[2].receiver, "Sink", "the cancel happened inside the Sink's value")
        XCTAssertEqual(chain.end, .origin)
    }
}

extension ChainTests {
    /// An inspector that attaches after the values has no history of them: the probe's
    /// snapshot carries its recent causes, through the wire, and the chain follows them.
    func testALateInspectorFollowsTheProbesRecentCauses() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 2 }.sink { _ in }
        subject.send(21)
        recorder.flush()
        let snapshot = probe.snapshot()
        XCTAssertEqual(snapshot.recent.filter { $0.kind == .value }.map(\.text), ["21", "42"])
        XCTAssertEqual(snapshot.recent.map(\.id), snapshot.recent.map(\.id).sorted())
        var writer = WireStreamWriter(), reader = WireStreamReader()
        let payload = writer.message(snapshot).framed().dropFirst(4)
        let back = try reader.snapshot(ServerMessage.decode(payload: payload).snapshot)
        var state = AppState(targetName: "late")
        _ = reduce(&state, .snapshot(back))
        XCTAssertEqual(state.cursor.log.end, 0, "no history")
        let map = try stage("Map", in: state)
        let chain = try XCTUnwrap(CauseChain.lastValue(of: map, upTo: nil, in: state.cursor.log, graph: state.cursor.graph))
        XCTAssertEqual(line(chain), "Sink got 42 ← Map 21→42 ← PassthroughSubject sent 21 on main")
        XCTAssertEqual(chain.hops.map(\.position), [nil, nil])
        c.cancel()
    }

    /// The probe keeps the newest caused events, oldest first, numbered; requests and
    /// subscribes are not kept. (The ring alone: the stage's own last one is in it.)
    func testTheProbeKeepsABoundedRingOfRecentCauses() {
        var recent = RecentCauses(limit: 3, perStage: 1)
        var events: [StageEvent] = []
        for i in 0..<6 {
            events.append(StageEvent(i % 2 == 0 ? .value : .request, node: 1, time: Int64(i), text: "\(i)"))
        }
        recent.record(events, firstID: 100)
        XCTAssertEqual(recent.events.map(\.id), [100, 102, 104])
        recent.record([StageEvent(.finished, node: 1, time: 9)], firstID: 200)
        XCTAssertEqual(recent.events.map(\.id), [102, 104, 200])
        XCTAssertEqual(recent.events.map(\.kind), [.value, .value, .finished])
        // A batch of more than the ring holds: its newest three, in order, and the ring
        // goes on from them.
        recent.record((0..<10).map { StageEvent(.value, node: 1, time: Int64($0)) }, firstID: 300)
        XCTAssertEqual(recent.events.map(\.id), [307, 308, 309])
        recent.record([StageEvent(.value, node: 1, time: 20), StageEvent(.request, node: 1, time: 21)], firstID: 400)
        XCTAssertEqual(recent.events.map(\.id), [308, 309, 400])
    }
}

/// A counter the queue's sink bumps (Sendable for Swift 6).
private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
}

/// Holds the cancellable a sink cancels from inside its own closure.
private final class ChainCancellableBox: @unchecked Sendable {
    var cancellable: AnyCancellable?
}
