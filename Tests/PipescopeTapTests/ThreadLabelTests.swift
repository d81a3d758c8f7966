import Dispatch
import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
import XCTest

/// Each stage says which thread subscribed it: the program's own name for a thread it
/// named, `main`, or `worker N`, never a name libdispatch or the process gave it.
final class ThreadLabelTests: XCTestCase {
    private var probe: Probe!

    override func setUp() {
        probe = Probe(bufferCapacity: 1 << 16)
        probe.enable()
    }

    override func tearDown() { probe.disable() }

    /// Subscribes a one-stage pipeline from `run` and returns its stage's thread label.
    private func label(subscribingOn run: (@escaping @Sendable () -> Void) -> Void) -> String? {
        let subject = PassthroughSubject<Int, Never>()
        // Written on the other thread before it signals, read here after the wait.
        nonisolated(unsafe) var kept: AnyCancellable?
        let done = DispatchSemaphore(value: 0)
        run {
            kept = subject.sink { _ in }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        defer { kept?.cancel() }
        probe.flush()
        return probe.graph.nodes.values.first { $0.operatorName == "PassthroughSubject" }?.thread
    }

    func testDispatchWorkersAreWorkers() throws {
        let queues: [DispatchQueue] = [.global(), .global(qos: .userInitiated), .global(qos: .utility),
                                       DispatchQueue(label: "com.example.feed"),
                                       DispatchQueue(label: "feed", attributes: .concurrent)]
        for queue in queues {
            let thread = try XCTUnwrap(label { work in queue.async(execute: work) })
            XCTAssertTrue(thread.hasPrefix("worker "), "\(queue.label) ran on \"\(thread)\"")
        }
    }

    func testAThreadTheProgramNamedKeepsItsName() {
        let thread = label { work in
            // Foundation on Linux loses a name a new Thread gives itself before start()
            // has returned to the thread that started it (164 of 2,000 threads here):
            // the thread waits for that, as a program's long-lived thread would have.
            let started = DispatchSemaphore(value: 0)
            Thread {
                started.wait()
                Thread.current.name = "feed-loader"
                work()
            }.start()
            started.signal()
        }
        XCTAssertEqual(thread, "feed-loader")
    }

    func testTheMainThreadIsMain() {
        XCTAssertEqual(label { work in work() }, "main")
    }

    func testNamesThatAreNotTheProgramsAreNotNames() {
        for name in ["oot.default-qos", "r-initiated-qos", "-qos.overcommit", "ot.utility-qos", "", "myprogram"] {
            XCTAssertNil(ThreadFrames.userName(name, processName: "myprogram"), name)
        }
        XCTAssertNil(ThreadFrames.userName(nil, processName: "myprogram"))
        XCTAssertEqual(ThreadFrames.userName("net.reader", processName: "myprogram"), "net.reader")
    }
}
