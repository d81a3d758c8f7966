import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// A filter hidden in an `AnyPublisher` (`actions.compactMap { $0 as? Login }
/// .eraseToAnyPublisher()`, as Fluxor's `ofType` is): the tap sees the `AnyPublisher` with
/// the subject under it, subscribed by the hidden `CompactMap`. A value the filter drops is
/// progress, as for a filter that is a stage of its own, so the pipeline waits on the
/// subject, the program's input, from the same moment the subject does: at no moment is
/// the `AnyPublisher` taken for a stage that swallowed the value and stalled (Fluxor's
/// suite, judged by `pipescope check` at every moment, showed seven such findings).
final class ErasedFilterWaitTests: RecordedProbeTestCase {
    func testAFilterInsideAnAnyPublisherIsProgressNotAStall() throws {
        let actions = PassthroughSubject<Int, Never>()
        let logins = actions.compactMap { $0 > 100 ? $0 : nil }.eraseToAnyPublisher()
        kept.append(logins.sink { _ in })
        actions.send(7)  // not a login: dropped
        let erased = try XCTUnwrap(stages("AnyPublisher").first)
        let subject = try XCTUnwrap(stages("PassthroughSubject").first)
        XCTAssertEqual(subject.parent, erased.id)
        XCTAssertEqual(subject.subscriber, "CompactMap", "the hidden filter subscribed the subject")
        let sent = try XCTUnwrap(subject.lastValueNanos)
        XCTAssertGreaterThan(sent, erased.createdNanos)
        for now in [sent + 2_000_000_000, sent + 2_000_000_001, sent + 2_000_100_000, sent + 60_000_000_000] {
            let wait = Waits(probe.graph, now: now, after: 2).pipeline(erased.id)
            XCTAssertNotEqual(wait?.at, erased.id, "at \(now - sent) ns after the value: \(String(describing: wait))")
            XCTAssertEqual(lints(now: now).filter { $0.kind == .stalled }, [], "idle on the program's input")
        }
        XCTAssertEqual(Waits(probe.graph, now: sent + 60_000_000_000, after: 2).pipeline(erased.id)?.at, subject.id)
    }
}
