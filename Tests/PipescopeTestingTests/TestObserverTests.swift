import Foundation
@preconcurrency import OpenCombine
import PipescopeTesting
import Synchronization
import Testing
import XCTest

/// `PipescopeTestObserver` wraps each XCTest test it observes: run here through XCTest's
/// own lifecycle (`XCTestCase.run()`: setUp, the test, its teardown blocks, tearDown, the
/// observation center's calls), with the test's failures collected rather than reported.
/// The pipelines are subscribed on a dispatch queue, where no task-local block is set: they
/// are the test's because it is the process's current test.
@Suite(.serialized) struct TestObserverTests {
    /// An XCTest test case running `body` as its test, its failures collected; its fixture
    /// (`kept`) is released in `tearDown()`, as a `setUp()`/`tearDown()` pair does.
    final class Observed: XCTestCase, @unchecked Sendable {
        let failures = Mutex<[(description: String, file: String, line: Int)]>([])
        nonisolated(unsafe) var kept: AnyCancellable?

        override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                    expected: Bool) {
            failures.withLock { $0.append((description, filePath, lineNumber)) }
        }

        override func tearDown() {
            kept = nil
        }
    }

    /// What outlives a test: a subscription kept here is a leak of the test that made it.
    final class Outliving: @unchecked Sendable {
        var bag: [AnyCancellable] = []
    }

    /// Runs `body` as an XCTest test observed by `observer`, on a thread of its own (XCTest
    /// runs a test on its thread, and waits there for its async setUp on the pool).
    static func run(_ name: String, observer: PipescopeTestObserver,
                    _ body: @escaping @Sendable (Observed) -> Void) async -> Observed {
        let test = Observed(name: name, testClosure: { body($0 as! Observed) })
        XCTestObservationCenter.shared.addTestObserver(observer)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { test.run(); done.resume() }.start()
        }
        XCTestObservationCenter.shared.removeTestObserver(observer)
        return test
    }

    /// Runs `work` on a dispatch queue (outside any task-local block) and waits for it.
    static func onQueue(_ work: @escaping @Sendable () -> Void) {
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group, execute: work)
        group.wait()
    }

    /// The lines `work` drops an AnyCancellable on, keeps the fixture's on, and leaks on.
    static let dropLine = #line + 7, fixtureLine = dropLine + 1, leakLine = dropLine + 5

    /// Drops an AnyCancellable, keeps one where the test releases it (its fixture, released
    /// in tearDown), keeps one past the test (`outliving`), and one it cancels itself.
    static func work(_ test: Observed, _ outliving: Outliving) {
        let subject = PassthroughSubject<Int, Never>()
        onQueue {
            _ = subject.sink { _ in }
            test.kept = subject.map { $0 + 1 }.sink { _ in }
            let cancelled = subject.sink { _ in }
            subject.send(1)
            cancelled.cancel()
            subject.sink { _ in }.store(in: &outliving.bag)
        }
    }

    /// Failing the tests: the dropped one and the leak fail the test at their lines; the
    /// fixture, still held when the teardown block judges, is a leak too (documented: a
    /// failure can only be recorded before tearDown()).
    @Test func eachFindingFailsItsTestAtItsLine() async {
        let outliving = Outliving()
        let observer = PipescopeTestObserver(failsTests: true, report: { _ in })
        let test = await Self.run("dropsAndLeaks", observer: observer) { Self.work($0, outliving) }
        let failures = test.failures.withLock { $0 }.map { "\($0.description.prefix(while: { $0 != ":" })) \($0.line)" }
        #expect(failures.sorted() == ["leaked-subscription \(Self.leakLine)", "leaked-subscription \(Self.fixtureLine)",
                                      "unretained-cancellable \(Self.dropLine)"].sorted())
        #expect(test.failures.withLock { $0 }.allSatisfy { $0.file == #filePath })
        #expect(observer.results.map(\.test) == ["Observed.dropsAndLeaks"])
        outliving.bag = []
    }

    /// Reporting only: no failure recorded; judged after tearDown(), so the fixture it
    /// released is no leak; the report has the dropped one and the leak.
    @Test func aReportLeavesTheTestAlone() async {
        let outliving = Outliving()
        let reported = Mutex<[PipescopeTestObserver.TestFindings]>([])
        let observer = PipescopeTestObserver(failsTests: false, report: { found in reported.withLock { $0.append(found) } })
        let test = await Self.run("reported", observer: observer) { Self.work($0, outliving) }
        #expect(test.failures.withLock { $0.isEmpty })
        let found = reported.withLock { $0 }
        #expect(found.map(\.test) == ["Observed.reported"])
        #expect(found.first?.findings.map { "\($0.kind.rawValue) \($0.at?.line ?? 0)" }.sorted()
            == ["leaked-subscription \(Self.leakLine)", "unretained-cancellable \(Self.dropLine)"])
        outliving.bag = []
    }

    /// A clean test: nothing reported, nothing failed; and the next test's pipelines are
    /// not the previous one's (each test its own block).
    @Test func aCleanTestHasNoFindings() async {
        let observer = PipescopeTestObserver(failsTests: true, report: { _ in })
        let clean = await Self.run("clean", observer: observer) { _ in
            let subject = PassthroughSubject<Int, Never>()
            Self.onQueue {
                let kept = subject.sink { _ in }
                subject.send(1)
                kept.cancel()
            }
        }
        #expect(clean.failures.withLock { $0.isEmpty })
        let dropping = await Self.run("dropping", observer: observer) { _ in
            Self.onQueue { _ = PassthroughSubject<Int, Never>().sink { _ in } }
        }
        #expect(dropping.failures.withLock { $0.count } == 1)
        #expect(observer.results.map { "\($0.test) \($0.findings.count)" } == ["Observed.clean 0", "Observed.dropping 1"])
    }
}
