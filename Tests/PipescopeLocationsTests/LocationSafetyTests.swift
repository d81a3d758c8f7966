import CPipescopeLocations
import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import XCTest

/// What recording locations may not do to the program: walk a stack under the tap's
/// lock, symbolize while holding it, or do anything per value. And the switch that
/// turns it off.
final class LocationSafetyTests: XCTestCase {
    private var probe: Probe!

    override func tearDown() {
        probe?.disable()
        probe = nil
    }

    private func start(locations: Bool = true) {
        probe = Probe(locations: locations)
        probe.enable()
    }

    /// Whether another thread can take the registry's lock within a second: false means
    /// the caller holds it.
    private static func registryIsFree(_ registry: StageRegistry) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            _ = registry.liveStageCount  // takes the lock
            done.signal()
        }.start()
        return done.wait(timeout: .now() + 1) == .success
    }

    func testTheStackIsWalkedWithTheRegistryUnlocked() {
        start()
        let registry = probe.registry
        let checks = Checks()
        probe.tap.afterCapture = { checks.note(Self.registryIsFree(registry)) }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 }.sink { _ in }
        c.cancel()
        XCTAssertEqual(checks.results, [true], "one walk, for the root only, with the lock free")
    }

    func testValuesWalkNoStackOnlySubscriptionsDo() {
        start()
        let checks = Checks()
        probe.tap.afterCapture = { checks.note(true) }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 * 2 }.filter { $0 > 0 }.sink { _ in }
        for i in 0..<1_000 { subject.send(i) }
        XCTAssertEqual(checks.results.count, 1, "the sink's subscribe; none of the 1,000 values")
        // A flatMap subscribes an inner publisher per value: each is a new stage, and it
        // records where it was made (a subscribe, not the value path).
        let inner = subject.flatMap { Just($0) }.sink { _ in }
        for i in 0..<10 { subject.send(i) }
        XCTAssertEqual(checks.results.count, 1 + 1 + 10)
        c.cancel()
        inner.cancel()
    }

    func testSymbolizingHoldsNoLockTheProgramNeeds() {
        start()
        let registry = probe.registry
        let checks = Checks()
        probe.locator.whileResolving = {
            // The program subscribes and cancels on another thread while the symbol
            // thread is symbolizing: it must not wait for it.
            let done = DispatchSemaphore(value: 0)
            Thread {
                let c = Just(1).map { $0 }.sink { _ in }
                c.cancel()
                done.signal()
            }.start()
            checks.note(done.wait(timeout: .now() + 2) == .success && Self.registryIsFree(registry))
        }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        XCTAssertTrue(probe.settleLocations())
        probe.locator.whileResolving = nil
        XCTAssertFalse(checks.results.isEmpty)
        XCTAssertTrue(checks.results.allSatisfy { $0 })
        c.cancel()
    }

    func testTheFlushNeverWaitsForTheSymbolThread() throws {
        start()
        // The symbol thread is stuck (a huge binary's line tables, a slow disk, a
        // sanitizer) until `hold` is left.
        let hold = DispatchGroup()
        hold.enter()
        var released = false
        defer { if !released { hold.leave() } }
        let asked = DispatchSemaphore(value: 0)
        probe.locator.whileResolving = {
            asked.signal()
            hold.wait()
        }
        let subject = PassthroughSubject<Int, Never>()
        let (c, line) = (subject.sink { _ in }, #line)
        defer { c.cancel() }
        probe.gate.pause(by: ObjectIdentifier(self))
        defer { probe.gate.resume() }

        let probe = probe!
        let first = Batches()
        let flushed = DispatchSemaphore(value: 0)
        Thread {
            first.add(probe.flush())
            flushed.signal()
        }.start()
        XCTAssertEqual(flushed.wait(timeout: .now() + 10), .success, "the flush waited for the symbol thread")
        XCTAssertEqual(asked.wait(timeout: .now() + 10), .success, "the stage's addresses were never looked up")
        let batch = try XCTUnwrap(first.all.first)
        XCTAssertEqual(batch.nodes.map(\.operatorName), ["PassthroughSubject"])
        XCTAssertNil(batch.nodes[0].location, "no location yet: it was not known at the flush")
        XCTAssertTrue(batch.trailer.gate.paused, "the gate travels at once")
        XCTAssertTrue(probe.locator.hasPending)
        let root = batch.nodes[0].id

        // Once the symbol thread has looked, a later flush sends the location by itself.
        hold.leave()
        released = true
        probe.locator.whileResolving = nil
        var located: [LocatedStage] = []
        let deadline = Date(timeIntervalSinceNow: 60)
        while located.isEmpty, Date() < deadline {
            SymbolThread.shared.waitUntilIdle(timeout: 1)
            located += probe.flush().locations
        }
        XCTAssertEqual(located.map(\.node), [root])
        XCTAssertEqual(located.first?.location.line, line)
        XCTAssertEqual(located.first?.location.file, #filePath)
        XCTAssertEqual(probe.graph[root]?.location, located.first?.location, "the probe's own graph has it too")
        XCTAssertFalse(probe.locator.hasPending)
        XCTAssertEqual(probe.flush().locations, [], "sent once")
    }

    func testOffRecordsNoLocationAndWalksNoStack() {
        start(locations: false)
        let checks = Checks()
        probe.tap.afterCapture = { checks.note(true) }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        probe.flush()
        XCTAssertEqual(checks.results, [])
        XCTAssertEqual(probe.graph.nodes.count, 1, "the subject's stage")
        XCTAssertTrue(probe.graph.nodes.values.allSatisfy { $0.location == nil && $0.frames.isEmpty })
        c.cancel()
    }

    func testTheEnvironmentSwitch() {
        XCTAssertTrue(CallStack.enabled(in: [:]))
        XCTAssertTrue(CallStack.enabled(in: ["PIPESCOPE_LOCATIONS": "1"]))
        for off in ["0", "off", "false", "no", "OFF"] {
            XCTAssertFalse(CallStack.enabled(in: ["PIPESCOPE_LOCATIONS": off]), off)
        }
    }

    func testAStackIsReadOnlyInsideTheThreadsOwnStack() {
        // Bounds that exclude the current frame give nothing, rather than a read
        // anywhere else.
        var out = [UInt](repeating: 0, count: 8)
        let n = out.withUnsafeMutableBufferPointer { pipescope_return_addresses($0.baseAddress, 8, 0, 4096) }
        XCTAssertEqual(n, 0)
        let frames = ThreadFrames.current.stackBounds
        XCTAssertGreaterThan(frames.high, frames.low)
        let m = out.withUnsafeMutableBufferPointer {
            pipescope_return_addresses($0.baseAddress, 8, frames.low, frames.high)
        }
        XCTAssertGreaterThan(m, 2)
    }
}

/// Batches flushed on another thread.
private final class Batches: @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [EventBatch] = []
    func add(_ batch: EventBatch) { lock.lock(); batches.append(batch); lock.unlock() }
    var all: [EventBatch] { lock.lock(); defer { lock.unlock() }; return batches }
}

/// Results noted from any thread.
private final class Checks: @unchecked Sendable {
    private let lock = NSLock()
    private var noted: [Bool] = []
    func note(_ ok: Bool) { lock.lock(); noted.append(ok); lock.unlock() }
    var results: [Bool] { lock.lock(); defer { lock.unlock() }; return noted }
}
