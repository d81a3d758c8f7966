import Dispatch
import Foundation
@preconcurrency import OpenCombine
import OpenCombineDispatch
import OpenCombineFoundation
import Pipescope

/// The built-in demo: a handful of real OpenCombine pipelines that keep a screen alive
/// at human speed, each telling one part of Combine's lifecycle.
///
/// - **ticker**: a `Timer` publisher through `map` and `filter` into a sink (forever).
/// - **requests**: a subject whose `flatMap` starts a `Future` per request; the inner
///   publishers appear, answer after a while, and finish.
/// - **upload**: a progress subject through `scan` that finishes after ten steps,
///   then starts over.
/// - **search**: a debounced query pipeline that is cancelled after a while, then
///   rebuilt.
/// - **parser**: a `tryMap` that fails on bad input, then is rebuilt.
/// - **forgotten request**: a one-shot request whose AnyCancellable nobody keeps, so it
///   is cancelled at once and never answers (the `unretained-cancellable` lint).
/// - the lifecycle stories of ``LifecycleStories``: a released owner, a task that
///   outlives its owner, a broken promise, a demand violation, a search whose answers
///   arrive out of order.
///
/// Call ``start()`` after `Pipescope.start()`, then run the main run loop (the timer
/// fires on it). Everything else happens on the demo's own serial queue.
public final class DemoProgram: @unchecked Sendable {
    private let queue = DispatchQueue(label: "demo.driver")
    private let work = DispatchQueue(label: "demo.network", attributes: .concurrent)
    // Touched only on `queue`, except the ticker (set up once from `start`).
    private var ticker: AnyCancellable?
    private let requests = PassthroughSubject<Int, Never>()
    private var requestsSink: AnyCancellable?
    private var upload: PassthroughSubject<Int, Never>?
    private var uploadSink: AnyCancellable?
    private var search: PassthroughSubject<String, Never>?
    private var searchSink: AnyCancellable?
    private var parser: PassthroughSubject<String, Never>?
    private var parserSink: AnyCancellable?
    private var step = 0
    private var driver: DispatchSourceTimer?
    private let stories = LifecycleStories()

    public init() {}

    /// Builds the pipelines and starts driving them. The ticker needs the main run loop.
    public func start() {
        ticker = Timer.publish(every: 0.25, on: RunLoop.main, in: .default)
            .autoconnect()
            .map { _ in Int.random(in: 0..<100) }
            .filter { $0 % 2 == 0 }
            .sink { _ in }
        queue.sync {
            requestsSink = requests
                .flatMap { [work] id in Self.fetch(id, on: work) }
                .sink { _ in }
            startUpload()
            startSearch()
            startParser()
            stories.start()
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(300), repeating: .milliseconds(300))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        driver = timer
    }

    /// A one-shot "network request": answers after a while, then finishes.
    private static func fetch(_ id: Int, on work: DispatchQueue) -> Future<String, Never> {
        Future { promise in
            let answer = Promise(fulfil: promise)
            work.asyncAfter(deadline: .now() + .milliseconds(1500)) { answer.fulfil(.success("response \(id)")) }
        }
    }

    private func startUpload() {
        let subject = PassthroughSubject<Int, Never>()
        upload = subject
        uploadSink = subject.scan(0, +).map { "\($0)%" }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    }

    private func startSearch() {
        let subject = PassthroughSubject<String, Never>()
        search = subject
        searchSink = subject
            .debounce(for: .milliseconds(400), scheduler: queue.ocombine)
            .removeDuplicates()
            .sink { _ in }
    }

    private func startParser() {
        let subject = PassthroughSubject<String, Never>()
        parser = subject
        parserSink = subject
            .tryMap { text -> Int in
                guard let n = Int(text) else { throw ParseError(text: text) }
                return n
            }
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    }

    /// The classic bug: the result of `sink` is dropped, so the subscription is cancelled
    /// before the response can arrive.
    private func forgetARequest(_ id: Int) {
        _ = Self.fetch(id, on: work).map { "user \($0)" }.pipescopeName("story: forgotten request").sink { _ in }
    }

    /// Runs every 300 ms on `queue`: sends values and plays the lifecycles out.
    private func tick() {
        step += 1
        stories.tick(step)
        if step % 7 == 0 { requests.send(step / 7) }
        if step % 15 == 0 { forgetARequest(step / 15) }

        // upload: ten steps of 10%, finish, pause, start over.
        let uploadPhase = step % 20
        if uploadPhase < 10 {
            upload?.send(10)
        } else if uploadPhase == 10 {
            upload?.send(completion: .finished)
        } else if uploadPhase == 19 {
            startUpload()
        }

        // search: typing for a while, then the screen is closed (cancel), later reopened.
        let searchPhase = step % 40
        if searchPhase < 25, step % 3 == 0 {
            let words = ["c", "co", "com", "comb", "combi", "combine"]
            search?.send(words[(step / 3) % words.count])
        } else if searchPhase == 25 {
            searchSink?.cancel()
        } else if searchPhase == 39 {
            startSearch()
        }

        // parser: numbers, then a bad line fails it; rebuilt a little later.
        let parserPhase = step % 30
        if parserPhase < 12 {
            parser?.send(String(step))
        } else if parserPhase == 12 {
            parser?.send("12a")
        } else if parserPhase == 29 {
            startParser()
        }
    }
}

struct ParseError: Error, CustomStringConvertible {
    var text: String
    var description: String { "not a number: \"\(text)\"" }
}

/// Carries a Future's promise to the queue that fulfils it. OpenCombine's Future
/// serialises fulfilment itself, so sending the closure across is safe.
struct Promise: @unchecked Sendable {
    let fulfil: (Result<String, Never>) -> Void
}
