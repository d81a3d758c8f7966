import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// `zip-unpaired` on real OpenCombine pipelines: a zip where `combineLatest` was meant
/// (each address with a weight that rarely changes) is named on the zip, with what each
/// input sent; a zip that pairs a list with taps to come, one a value behind, and one
/// waiting on a stuck `Future` (the `stalled` lint's) are not.
final class ZipUnpairedLintTests: RecordedProbeTestCase {
    private var later: Int64 { aMinuteLater }

    private func zipLints() -> [Lint] { lints(now: later).filter { $0.kind == .zipUnpaired } }

    func testAnAddressZippedWithARarelyChangingWeightIsNamedOnTheZip() throws {
        let address = PassthroughSubject<String, Never>()
        let weight = CurrentValueSubject<Int, Never>(0)
        var quotes: [String] = []
        let c = address.zip(weight).map { "\($0): \($1 * 3) €" }.sink { quotes.append($0) }
        for street in ["Main St", "Elm St", "Oak Ave", "Main St", "Elm St"] { address.send(street) }
        weight.send(2)
        address.send("Oak Ave")
        address.send("Main St")
        XCTAssertEqual(quotes, ["Main St: 0 €", "Elm St: 6 €"], "two pairs; five addresses wait")
        let zip = try XCTUnwrap(stages("Zip").first)
        let street = try XCTUnwrap(stages("PassthroughSubject").first).id
        let weights = try XCTUnwrap(stages("CurrentValueSubject").first).id
        XCTAssertEqual(zipLints(), [Lint(kind: .zipUnpaired, node: zip.id, message:
            "holds 5 values of its 1st input (#\(street) PassthroughSubject) that its 2nd input "
            + "(#\(weights) CurrentValueSubject) has not matched: it sent 2 values while #\(street) sent 7. "
            + ZipUnpairedRule.advice)])
        XCTAssertEqual(lints(now: later).filter { $0.kind == .stalled }, [], "the weight is the program's input: no stall")
        c.cancel()
        XCTAssertEqual(zipLints(), [], "cancelled, it holds nothing")
    }

    func testAListZippedWithTapsToComeIsQuiet() throws {
        let taps = PassthroughSubject<Void, Never>()
        let c = taps.zip((1...10).publisher).sink { _ in }
        XCTAssertEqual(zipLints(), [], "ten items, no tap yet: the items wait for taps by design")
        taps.send(())
        let zip = try XCTUnwrap(stages("Zip").first)
        XCTAssertEqual(zip.values, 1)
        XCTAssertEqual(zipLints(), [], "one tap took the first item; nine wait for the next taps")
        c.cancel()
    }

    func testAZipTwoValuesBehindIsQuiet() throws {
        let a = PassthroughSubject<Int, Never>(), b = PassthroughSubject<Int, Never>()
        let c = a.zip(b).sink { _ in }
        a.send(1)
        b.send(1)
        a.send(2)
        a.send(3)
        XCTAssertEqual(zipLints(), [])
        a.send(4)
        XCTAssertEqual(zipLints().count, 1, "three without a partner")
        c.cancel()
    }

    func testAZipWaitingOnAStuckFutureIsTheStalledLintsNotThisOne() throws {
        let a = PassthroughSubject<Int, Never>()
        let c = a.zip(Future<Int, Never> { _ in }).sink { _ in }
        for n in 1...5 { a.send(n) }
        let future = try XCTUnwrap(stages("Future").first).id
        XCTAssertEqual(zipLints(), [])
        XCTAssertEqual(lints(now: later).filter { $0.kind == .stalled }.map(\.node), [future])
        c.cancel()
    }

    /// Payments zipped with confirmations nobody sends, the payments a second apart: named,
    /// saying the other input sent nothing. The same five payments sent at subscribe (a
    /// list) are not.
    func testPaymentsZippedWithConfirmationsNobodySendsAreNamedWhenTheyCameOverTime() {
        for (gap, named) in [(Int64(1_000_000_000), true), (Int64(1_000), false)] {
            var b = BatchBuilder(step: gap)
            b.subscribe(1, op: "Zip", subscriber: "Sink")
            b.subscribe(2, parent: 1, op: "PassthroughSubject", subscriber: "Zip")
            b.subscribe(3, parent: 1, op: "PassthroughSubject", subscriber: "Zip")
            for id: NodeID in [3, 2, 1] { b.subscription(id) }
            for id: NodeID in [1, 2, 3] { b.request(id, .unlimited) }
            for _ in 1...5 { b.value(2) }
            var graph = Graph()
            graph.fold(b.build())
            let found = Linter().lints(graph, now: b.now + 60_000_000_000).filter { $0.kind == .zipUnpaired }
            XCTAssertEqual(found, named ? [Lint(kind: .zipUnpaired, node: 1, message:
                "holds 5 values of its 1st input (#2 PassthroughSubject) and none of its 2nd input "
                + "(#3 PassthroughSubject), which has sent nothing: zip sends only whole pairs, so nothing goes on "
                + "until #3 sends. Make it send, or do not zip what should go on without it.")] : [],
                           "values \(gap) ns apart")
        }
    }
}
