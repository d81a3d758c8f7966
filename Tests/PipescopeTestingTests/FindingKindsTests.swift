import Foundation
@preconcurrency import OpenCombine
import Synchronization
import PipescopeModel
import PipescopeTesting
import Testing

/// Each kind of finding on a real pipeline made in a test's block, and where it is named:
/// `Pipescope.findings` returns it with the line to change, and `expectNoPipelineFindings`
/// fails the test at that line (checked with `withKnownIssue`: the test passes only if
/// that failure, and no other, is recorded). A clean block passes.
@Suite struct FindingKindsTests {
    /// Thresholds at which a pending one-shot publisher or a waiting pipeline is named at
    /// the first moment judged after it was made: no test waits for a clock.
    static var immediate: FindingThresholds {
        var t = FindingThresholds()
        t.neverCompletesAfter = 0
        t.stalledAfter = 0
        return t
    }

    static let file = #filePath

    /// Expects `body` to fail once per (kind, line) in `expected`, each at its line in this file.
    func expectFailures(_ expected: [(LintKind, Int)], _ thresholds: FindingThresholds = FindingThresholds(),
                        _ body: () -> Void) {
        let seen = Seen()
        let wanted = expected.map { ($0.0.rawValue, $0.1) }
        withKnownIssue {
            expectNoPipelineFindings(thresholds, body)
        } matching: { issue in
            guard let place = issue.sourceLocation, place.filePath == Self.file,
                  let text = issue.comments.first?.rawValue,
                  let kind = wanted.first(where: { text.hasPrefix($0.0 + ": ") && $0.1 == place.line })
            else { return false }
            seen.items.withLock { $0.append(kind.0) }
            return true
        }
        let recorded = seen.items.withLock { $0 }
        #expect(recorded.sorted() == wanted.map(\.0).sorted(), "failures recorded: \(recorded)")
    }

    final class Seen: Sendable {
        let items = Mutex<[String]>([])
    }

    @Test func anUnretainedCancellable() {
        let subject = PassthroughSubject<Int, Never>()
        let line = #line + 2
        expectFailures([(.unretainedCancellable, line)]) {
            _ = subject.map { $0 * 2 }.sink { _ in }
        }
    }

    /// Its sink is kept in a bag the block does not release: still active at the end, so
    /// a leak as well.
    @Test func aFutureNeverFulfilled() {
        var bag: [AnyCancellable] = []
        let line = #line + 3
        expectFailures([(.stalled, line), (.neverCompletes, line), (.leakedSubscription, line)], Self.immediate) {
            let future = Future<Int, Never> { _ in }
            future.sink { _ in }.store(in: &bag)
        }
        bag = []
    }

    @Test func aPublisherIgnoringDemand() {
        let line = #line + 2
        expectFailures([(.demandViolation, line)]) {
            RudePublisher(count: 3).subscribe(AsksFor(1))
        }
    }

    @Test func aValueAfterTheEnd() {
        let line = #line + 2
        expectFailures([(.afterTerminal, line)]) {
            RudePublisher(count: 1, valueAfterFinish: true).subscribe(AsksFor(10))
        }
    }

    @Test func aSubscriptionThatOutlivesTheTest() {
        let subject = PassthroughSubject<Int, Never>()
        let line = #line + 2
        expectFailures([(.leakedSubscription, line)]) {
            subject.sink { _ in }.store(in: &Outliving.kept)
        }
        Outliving.kept = []
    }

    /// Two `map`s off one `Deferred { Future }`: every refresh makes two requests.
    @Test func aColdPublisherSubscribedTwiceAtOnce() {
        let promises = Promises()
        let line = #line + 5
        expectFailures([(.repeatedWork, line)]) {
            var kept: [AnyCancellable] = []
            let request = Deferred { Future<Int, Never> { promises.append($0) } }
            request.map { $0 + 1 }.sink { _ in }.store(in: &kept)
            request.map { $0 * 2 }.sink { _ in }.store(in: &kept)
            promises.fulfil()
        }
    }

    /// A `map` whose closure takes 2 ms a value, at a 1 ms threshold: named at its closure.
    @Test func aSlowStage() {
        var thresholds = FindingThresholds()
        thresholds.slowAfter = 1
        let subject = PassthroughSubject<Int, Never>()
        let line = #line + 2  // the closure's first line
        expectFailures([(.slowStage, line)], thresholds) {
            let kept = subject.map { n -> Int in
                Thread.sleep(forTimeInterval: 0.002)  // the work under test: slow on purpose
                return n
            }.sink { _ in }
            for n in 1...4 { subject.send(n) }
            kept.cancel()
        }
    }

    /// An address zipped with a weight that rarely changes, where each address should meet
    /// the latest weight: four addresses, one pair. Kept, it is also still active at the
    /// block's end.
    @Test func aZipWhereCombineLatestWasMeant() {
        let address = PassthroughSubject<String, Never>()
        let weight = CurrentValueSubject<Int, Never>(2)
        var bag: [AnyCancellable] = []
        var thresholds = FindingThresholds()
        // Longer than a subscribe takes on a loaded machine (a zip subscribing across a
        // flush reads as waiting for its subscription past a threshold of a few ms).
        thresholds.stalledAfter = 0.05
        let line = #line + 2
        expectFailures([(.zipUnpaired, line), (.leakedSubscription, line)], thresholds) {
            address.zip(weight).map { "\($0): \($1 * 3) €" }.sink { _ in }.store(in: &bag)
            for street in ["1 Main St", "2 Elm St", "3 Oak Ave", "4 Pine Rd"] { address.send(street) }
            Thread.sleep(forTimeInterval: 0.25)  // the silence under test: no new weight for 5 thresholds
        }
        bag = []
    }

    /// A cache lookup declared immediate whose subject sends nothing during subscribe.
    @Test func aBrokenContract() {
        let cache = PassthroughSubject<String, Never>()
        var bag: [AnyCancellable] = []
        let line = #line + 2
        expectFailures([(.contractViolation, line), (.leakedSubscription, line)]) {
            cache.pipescopeExpect(.immediate, name: "cache lookup").sink { _ in }.store(in: &bag)
        }
        bag = []
    }

    /// A `flatMap` search whose answer to the older query lands after the newer one's.
    @Test func answersOutOfOrder() {
        let query = PassthroughSubject<Int, Never>()
        let answers = PromisesByValue()
        let line = #line + 3
        expectFailures([(.outOfOrder, line)]) {
            var kept: [AnyCancellable] = []
            query.flatMap { q in Future<Int, Never> { answers.append(q, $0) } }.sink { _ in }.store(in: &kept)
            query.send(1)
            query.send(2)
            answers.fulfil(2)
            answers.fulfil(1)  // the older query's answer, last
        }
    }

    /// Three subscriptions from one line kept past the block: one mistake, one finding
    /// with a count, as the lints' findings are (a failure per pipeline would bury it).
    @Test func leaksFromOnePlaceAreOneFinding() {
        let subject = PassthroughSubject<Int, Never>()
        var kept: [AnyCancellable] = []
        var thresholds = FindingThresholds()
        thresholds.settle = 60  // the count is by place: wait for it however slow the symbol thread
        let line = #line + 2
        let found = Pipescope.findings(thresholds) {
            for _ in 0..<3 { subject.sink { _ in }.store(in: &kept) }
        }
        kept = []
        #expect(found.map(\.kind) == [.leakedSubscription])
        #expect(found.first?.count == 3)
        #expect(found.first?.at?.line == line)
    }

    @Test func aCleanBlockHasNoFindings() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let found = Pipescope.findings {
            let kept = subject.map { $0 + 1 }.sink { received.append($0) }
            subject.send(1)
            subject.send(2)
            kept.cancel()
        }
        #expect(found == [])
        #expect(received == [2, 3])
    }

    @Test func findingsAreValuesWithTheirPlace() async {
        let subject = PassthroughSubject<Int, Never>()
        let line = #line + 2
        let found = await Pipescope.findings {
            for _ in 0..<3 { _ = subject.sink { _ in } }
            await Task.yield()
        }
        #expect(found.map(\.kind) == [.unretainedCancellable])
        #expect(found.first?.count == 3)
        #expect(found.first?.at?.line == line)
        #expect(found.first?.at?.file == Self.file)
    }

    @Test func anAllowedLintIsNoFinding() {
        var thresholds = FindingThresholds()
        thresholds.allowed = [.unretainedCancellable]
        let subject = PassthroughSubject<Int, Never>()
        let found = Pipescope.findings(thresholds) { _ = subject.sink { _ in } }
        #expect(found == [])
    }
}
