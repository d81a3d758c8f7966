import Dispatch
import Foundation
@preconcurrency import OpenCombine
import Pipescope

/// Story: a search whose answers arrive out of order (the `out-of-order` lint).
///
/// The user types "s", then "shoe". Each query starts a request (a `Future`); the one
/// for "s" matches more and is slow, the one for "shoe" is quick. Through `flatMap`, the
/// answer for "s" lands after the answer for "shoe", and the screen ends up showing the
/// results for "s" under the query "shoe". Beside it, the same search written with
/// `map { … }.switchToLatest()` cancels the request for "s" as soon as "shoe" is typed,
/// and shows the right results: no lint.
///
/// In the inspector: the lint on the first pipeline's FlatMap names "s" and "shoe";
/// `e` on its sink shows where its last value came from, through the `Future` and the
/// query it was made for.
///
/// Driven by ``tick(_:)`` every 300 ms on the demo's serial queue.
final class SearchStory: @unchecked Sendable {
    private let queries = PassthroughSubject<String, Never>()
    private let network = DispatchQueue(label: "demo.search", attributes: .concurrent)
    private var kept: [AnyCancellable] = []

    func start() {
        queries
            .flatMap { [network] query in Self.search(query, on: network) }
            .pipescopeName("story: search answers out of order")
            .sink { _ in }
            .store(in: &kept)
        queries
            .map { [network] query in Self.search(query, on: network) }
            .switchToLatest()
            .pipescopeName("story: search, latest answer only")
            .sink { _ in }
            .store(in: &kept)
    }

    /// Types "s" and, 600 ms later, "shoe", once every 12 s.
    func tick(_ step: Int) {
        switch step % 40 {
        case 20: queries.send("s")
        case 22: queries.send("shoe")
        default: break
        }
    }

    /// A search request: a short query matches more and takes longer (1.8 s for one
    /// letter, 300 ms for a word).
    private static func search(_ query: String, on network: DispatchQueue) -> Future<String, Never> {
        Future { promise in
            let answer = Answer(fulfil: promise)
            let delay = query.count < 2 ? 1800 : 300
            network.asyncAfter(deadline: .now() + .milliseconds(delay)) {
                answer.fulfil(.success("\(12 / query.count) results for \(query)"))
            }
        }
    }
}

/// Carries a Future's promise to the queue that fulfils it (OpenCombine's Future
/// serialises fulfilment itself).
private struct Answer: @unchecked Sendable {
    let fulfil: (Result<String, Never>) -> Void
}
