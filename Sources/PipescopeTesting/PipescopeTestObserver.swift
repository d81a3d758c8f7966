#if canImport(XCTest)
import Foundation
import Pipescope
import PipescopeModel
import PipescopeTap
import XCTest

/// Wraps every XCTest test of the process in a findings block, without editing a test:
/// each test's pipelines are judged as ``Pipescope/findings(_:_:)-(_,()->Void)`` judges a
/// block's (every lint raised on them, and those still active at its end that nothing it
/// released holds, ``LintKind/leakedSubscription``), and attributed to that test.
///
/// Registered once, before the first test runs (the PipescopeTestObserver product does it
/// with no test file edited; the article "Catching pipeline mistakes in tests" shows how):
///
/// ```swift
/// // Each finding fails the test it was made in, at the line to change:
/// PipescopeTestObserver.register()
/// // Or only a report, one line per finding, the tests' results unchanged:
/// PipescopeTestObserver.register(failsTests: false)
/// ```
///
/// XCTest runs one test at a time, on the main thread, and a test's pipelines may be
/// subscribed on any thread or queue; so while a test runs its block is the process's
/// current one (``FindingScope/process``): a pipeline subscribed anywhere outside a
/// task-local block (`Pipescope.findings { }`, Swift Testing's traits, which keep their own)
/// is the running test's. Work a test leaves behind (a `DispatchQueue.asyncAfter` that
/// subscribes once the next test runs) is counted in the test it runs in.
///
/// When a test is judged:
/// - `failsTests: true`: in a teardown block the observer adds as the test starts. XCTest
///   runs teardown blocks after the test method and before `tearDown()` (on Linux a failure
///   can only be recorded while the test runs), so what `tearDown()` releases is still
///   held then: a pipeline a fixture of `setUp()` keeps until `tearDown()` is a leak.
/// - `failsTests: false`: when the test has finished, `tearDown()` included.
public final class PipescopeTestObserver: NSObject, XCTestObservation, @unchecked Sendable {
    /// One test's findings, as the observer reports them.
    public struct TestFindings: Sendable {
        /// XCTest's name of the test (`SearchModelTests.testSearch` on Linux).
        public var test: String
        public var findings: [Finding]
        /// Events the tap dropped while the test ran (its findings may then miss some).
        public var dropped: UInt64
    }

    public let thresholds: FindingThresholds
    /// Whether a finding fails its test (else it is only reported).
    public let failsTests: Bool
    private let report: @Sendable (TestFindings) -> Void
    /// The test running now and its block, and every test's findings so far. XCTest calls
    /// an observer on its main thread, but a teardown block is the test's: kept locked.
    private let state = LockedBox<(open: (test: ObjectIdentifier, scope: UInt64)?, results: [TestFindings])>((nil, []))

    /// An observer judging each test with `thresholds`; `report` is told each test's
    /// findings (by default each is printed, ``printReport(_:)``), whether or not they fail it.
    ///
    /// ```swift
    /// let observer = PipescopeTestObserver(failsTests: false) { found in
    ///     if !found.findings.isEmpty { print(found.test, found.findings.map(\.kind)) }
    /// }
    /// XCTestObservationCenter.shared.addTestObserver(observer)
    /// ```
    public init(_ thresholds: FindingThresholds = FindingThresholds(), failsTests: Bool = true,
                report: @escaping @Sendable (TestFindings) -> Void = PipescopeTestObserver.printReport) {
        self.thresholds = thresholds
        self.failsTests = failsTests
        self.report = report
    }

    /// Makes an observer and adds it to XCTest's shared observation center; call it before
    /// the first test starts (a test already running is not wrapped).
    ///
    /// ```swift
    /// PipescopeTestObserver.register(failsTests: false)
    /// ```
    @discardableResult
    public static func register(_ thresholds: FindingThresholds = FindingThresholds(), failsTests: Bool = true,
                                report: @escaping @Sendable (TestFindings) -> Void = PipescopeTestObserver.printReport)
        -> PipescopeTestObserver {
        let observer = PipescopeTestObserver(thresholds, failsTests: failsTests, report: report)
        XCTestObservationCenter.shared.addTestObserver(observer)
        return observer
    }

    /// Every test's findings so far, in the order the tests ended (tests without any too).
    public var results: [TestFindings] { state.withLockedValue { $0.results } }

    /// Prints one line per finding to standard output, compiler style, then the test:
    /// `/src/Feed.swift:88: unretained-cancellable: … (stage #4) [test FeedTests.testLoad]`.
    @Sendable public static func printReport(_ found: TestFindings) {
        var text = ""
        for finding in found.findings { text += "pipescope: \(finding.line) [test \(found.test)]\n" }
        if found.dropped > 0 {
            text += "pipescope: \(found.dropped) events dropped while \(found.test) ran: its findings may miss some\n"
        }
        if !text.isEmpty { FileHandle.standardOutput.write(Data(text.utf8)) }
    }

    public func testCaseWillStart(_ testCase: XCTestCase) {
        let scope = TestTap.shared.begin(linter: thresholds.linter)
        let previous = state.withLockedValue { state in
            defer { state.open = (ObjectIdentifier(testCase), scope) }
            return state.open
        }
        // A test that never finished (XCTest stops only by exiting): no longer judged.
        if let previous { _ = TestTap.shared.end(previous.scope, thresholds: thresholds) }
        FindingScope.process.store(scope, ordering: .relaxed)
        if failsTests {
            // Unowned: the test keeps its teardown blocks, and XCTest keeps the test.
            testCase.addTeardownBlock { [unowned self, unowned testCase] in finish(testCase) }
        }
    }

    public func testCaseDidFinish(_ testCase: XCTestCase) {
        finish(testCase)
    }

    /// Ends `testCase`'s block (once: the teardown block's, or the end of the test's) and
    /// reports its findings; with `failsTests`, fails the test once per finding.
    private func finish(_ testCase: XCTestCase) {
        let id = ObjectIdentifier(testCase)
        guard let open = state.withLockedValue({ state -> (test: ObjectIdentifier, scope: UInt64)? in
            guard let open = state.open, open.test == id else { return nil }
            state.open = nil
            return open
        }) else { return }
        // Pipelines subscribed from here on are the next test's, or no test's.
        _ = FindingScope.process.compareExchange(expected: open.scope, desired: 0, ordering: .relaxed)
        let (findings, dropped) = TestTap.shared.end(open.scope, thresholds: thresholds)
        let found = TestFindings(test: testCase.name, findings: findings, dropped: dropped)
        state.withLockedValue { $0.results.append(found) }
        report(found)
        if failsTests { testCase.recordPipelineFindings(findings, file: nil, line: 0) }
    }
}
#endif
