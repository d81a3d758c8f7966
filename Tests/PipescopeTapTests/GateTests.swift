import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeClient
import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Pause and step on real pipelines running on other threads.
final class GateTests: XCTestCase {
    private var probe: Probe!

    override func tearDown() {
        probe?.gate.resume()
        probe?.disable()
    }

    private func start(deadline: Double = 60) {
        probe = Probe(pauseDeadline: deadline)
        probe.enable()
    }

    /// Polls until the gate shows `count` waiting events, the oldest not `after`.
    private func waitForPending(_ count: Int, after ticket: UInt64? = nil, timeout: Double = 30) -> [PendingEvent] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let pending = probe.gate.state().pending
            if pending.count == count, ticket == nil || pending.first?.ticket != ticket { return pending }
            usleep(1_000)
        }
        XCTFail("expected \(count) waiting events, have \(probe.gate.state().pending.count)")
        return []
    }

    /// Value events delivered so far, in order, as stage ids.
    private var delivered: [NodeID] = []
    private func collect() {
        let batch = probe.flush()
        delivered += batch.events.filter { $0.kind == .value }.map(\.node)
    }

    /// The gate says when a pause began, with every state while paused, and when it
    /// ended, once: the inspector leaves that time out of every wait.
    func testAPauseSaysWhenItBeganAndItsEndOnce() throws {
        start()
        let before = wallClockNanos()
        probe.gate.pause(by: ObjectIdentifier(self))
        let paused = probe.gate.state()
        XCTAssertTrue(paused.paused)
        XCTAssertGreaterThanOrEqual(paused.pausedSinceNanos, before)
        XCTAssertEqual(probe.gate.state().pausedSinceNanos, paused.pausedSinceNanos, "said again while paused")
        XCTAssertNil(paused.endedPause)
        probe.gate.pause(by: ObjectIdentifier(self))
        XCTAssertEqual(probe.gate.state().pausedSinceNanos, paused.pausedSinceNanos, "pausing again changes nothing")
        probe.gate.resume()
        let after = wallClockNanos()
        let resumed = probe.gate.state()
        XCTAssertFalse(resumed.paused)
        XCTAssertEqual(resumed.pausedSinceNanos, 0)
        let ended = try XCTUnwrap(resumed.endedPause)
        XCTAssertEqual(ended.fromNanos, paused.pausedSinceNanos)
        XCTAssertTrue(ended.fromNanos <= ended.toNanos && ended.toNanos <= after, "\(ended) ends by \(after)")
        XCTAssertNil(probe.gate.state().endedPause, "said once")
        probe.gate.resume()
        XCTAssertNil(probe.gate.state().endedPause, "resuming an open gate ends no pause")
    }

    func testSteppingReleasesExactlyTheEventsShownInOrder() throws {
        start()
        let subject = PassthroughSubject<Int, Never>()
        let received = Counter()
        let c = subject.map { $0 * 10 }.filter { _ in true }.sink { _ in received.increment() }
        collect()
        let graph = probe.graph
        let subjectStage = try XCTUnwrap(graph.nodes.values.first { $0.operatorName == "PassthroughSubject" }?.id)
        let mapStage = try XCTUnwrap(graph.nodes.values.first { $0.operatorName == "Map" }?.id)
        let filterStage = try XCTUnwrap(graph.nodes.values.first { $0.operatorName == "Filter" }?.id)

        probe.gate.pause(by: ObjectIdentifier(self))
        let done = DispatchSemaphore(value: 0)
        Thread { for i in 1...4 { subject.send(i) }; done.signal() }.start()

        // Each step moves the first value one stage on; the pending list says where.
        var shown: [NodeID] = []
        var pending = waitForPending(1)
        for _ in 0..<3 {
            shown.append(pending[0].node)
            XCTAssertEqual(pending[0].kind, .value)
            XCTAssertTrue(pending[0].thread.hasPrefix("worker"), pending[0].thread)
            probe.gate.step(1)
            pending = waitForPending(1, after: pending[0].ticket)   // released, stopped at its next callback
            collect()
        }
        XCTAssertEqual(shown, [subjectStage, mapStage, filterStage], "the value walked the pipeline stage by stage")
        XCTAssertEqual(delivered, [subjectStage, mapStage, filterStage], "exactly three events, in the order shown")
        XCTAssertEqual(received.value, 1, "the first value reached the sink and nothing else did")

        probe.gate.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "after resuming, the program finishes")
        collect()
        XCTAssertEqual(delivered.count, 12, "every value delivered through all three stages")
        XCTAssertEqual(received.value, 4)
        c.cancel()
    }

    func testSeveralThreadsWaitAndTheOldestGoesFirst() {
        start()
        let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<Int, Never>()
        let ca = a.sink { _ in }, cb = b.sink { _ in }
        collect()
        probe.gate.pause(by: ObjectIdentifier(self))
        let stageA = probe.graph.roots[0], stageB = probe.graph.roots[1]
        let group = DispatchGroup()
        group.enter()
        Thread { a.send(1); group.leave() }.start()
        _ = waitForPending(1)
        group.enter()
        Thread { b.send(2); group.leave() }.start()
        let pending = waitForPending(2)
        XCTAssertEqual(pending.map(\.node), [stageA, stageB], "listed oldest first")
        XCTAssertNotEqual(pending[0].thread, pending[1].thread, "two threads wait")
        probe.gate.step(1)
        let left = waitForPending(1, after: pending[0].ticket)
        XCTAssertEqual(left.map(\.node), [stageB], "the oldest was released")
        probe.gate.resume()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        ca.cancel(); cb.cancel()
    }

    /// Asking for more than wait releases those that wait and no more: the next event to
    /// arrive waits, and the answer says what happened.
    func testAskingForMoreThanWaitReleasesOnlyThoseWaiting() {
        start()
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let sinks = subjects.map { $0.sink { _ in } }
        collect()
        probe.gate.pause(by: ObjectIdentifier(self))
        let group = DispatchGroup()
        for (i, subject) in subjects.prefix(3).enumerated() {
            group.enter()
            Thread { subject.send(i); group.leave() }.start()
            _ = waitForPending(i + 1)
        }
        let step = probe.gate.step(10)
        XCTAssertEqual(step, Gate.Step(released: 3, waiting: 3))
        XCTAssertEqual(CommandHandler.stepped(asked: 10, step), "released all 3 waiting (asked 10)")
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "the three went")
        group.enter()
        Thread { subjects[3].send(3); group.leave() }.start()
        XCTAssertEqual(waitForPending(1).count, 1, "the next one waits: no credit was left over")
        XCTAssertEqual(probe.gate.step(1), Gate.Step(released: 1, waiting: 1))
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(CommandHandler.stepped(asked: 2, Gate.Step(released: 2, waiting: 5)), "released 2 of 5 waiting events")
        XCTAssertEqual(CommandHandler.stepped(asked: 2, Gate.Step(released: 2, waiting: 0)),
                       "released the next 2 events (none waiting yet)")
        sinks.forEach { $0.cancel() }
    }

    func testTheUserChoosesWhichWaitingEventGoes() {
        start()
        let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<Int, Never>()
        let ca = a.sink { _ in }, cb = b.sink { _ in }
        collect()
        let stageA = probe.graph.roots[0], stageB = probe.graph.roots[1]
        probe.gate.pause(by: ObjectIdentifier(self))
        let group = DispatchGroup()
        group.enter()
        Thread { a.send(1); group.leave() }.start()
        _ = waitForPending(1)
        group.enter()
        Thread { b.send(2); group.leave() }.start()
        let pending = waitForPending(2)
        XCTAssertEqual(pending.map(\.node), [stageA, stageB])
        XCTAssertTrue(probe.gate.release(ticket: pending[1].ticket), "the newer one, chosen")
        let left = waitForPending(1, after: nil)
        XCTAssertEqual(left.map(\.node), [stageA], "the oldest still waits")
        XCTAssertFalse(probe.gate.release(ticket: pending[1].ticket), "no longer waiting")
        probe.gate.resume()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        ca.cancel(); cb.cancel()
    }

    func testAPausedProgramResumesWhenItsInspectorIsKilled() throws {
        start()
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ProbeServer(probe: probe, path: directory + "/g.sock")
        defer { server.close() }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        let connection = try ProbeConnection.connect(path: directory + "/g.sock")
        _ = try connection.handshake()
        var pause = WireCommand()
        pause.kind = .commandPause
        connection.send(pause)
        XCTAssertTrue(eventuallyTrue { self.probe.gate.isPaused })
        let done = DispatchSemaphore(value: 0)
        Thread { subject.send(1); done.signal() }.start()
        _ = waitForPending(1)
        connection.close()   // the inspector dies
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the program resumed by itself")
        XCTAssertFalse(probe.gate.isPaused)
        c.cancel()
    }

    func testAPauseNobodyStepsEndsAtTheDeadline() {
        start(deadline: 0.5)
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        probe.gate.pause(by: ObjectIdentifier(self))
        let done = DispatchSemaphore(value: 0)
        Thread { subject.send(1); done.signal() }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "released at the deadline")
        let state = probe.gate.state()
        XCTAssertFalse(state.paused)
        XCTAssertTrue(state.resumedBecause.contains("deadline"), state.resumedBecause)
        c.cancel()
    }

    private func eventuallyTrue(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}
