import Dispatch
import Foundation
@preconcurrency import OpenCombine
import Pipescope

/// The lifecycle stories of DESIGN.md, played by the demo one after another. Every
/// pipeline is named for the story it tells, so a newcomer knows what to look at:
///
/// - **released owner**: a profile screen holds two pipelines in a CancellableBag; when
///   the screen closes, both are cancelled "by owner", grouped under the screen.
/// - **task outlives owner**: a feed screen starts a refresh task and only watches it;
///   after the screen closes the task keeps running (the owner-leak lint) until it is
///   stopped much later. Beside it, the same task tied to its owner ends with it.
/// - **broken promise**: a cache lookup declared immediate that emits nothing during
///   subscribe (the contract-violation lint).
/// - **demand violation**: a hand-written publisher that ignores its subscriber's demand
///   (the demand-violation lint).
/// - **slow stage**: a `map` whose closure takes 30 ms now and then (``SlowStageStory``,
///   the slow-stage lint).
/// - **search answers out of order**: a `flatMap` search whose slow answer to an old
///   query lands last (the out-of-order lint), beside the same search with
///   `switchToLatest` (``SearchStory``).
/// - **one request, subscribed twice**: ``RepeatedWorkStory`` (the repeated-work lint).
/// - **a zip where combineLatest was meant**: ``ZipStory`` (the zip-unpaired lint).
/// - **screen reopened**: a messages screen opened again every 2.1 s subscribes to the
///   inbox each time and stores the subscription in a bag nobody empties; the filter of
///   each keeps its own messages, so every old one flows and none ends. A minute in, the
///   live pipelines from that one line are a pile (the pile-up lint); after 120 openings
///   the bag is emptied and the pile starts again.
///
/// Driven by ``tick(_:)`` on the demo's serial queue.
final class LifecycleStories: @unchecked Sendable {
    private var profile: ProfileScreen?
    private var feeds: [FeedScreen] = []
    private var leakedTask: Task<Void, Never>?
    private var kept: [AnyCancellable] = []
    private let ticks = PassthroughSubject<Int, Never>()
    private let slowStage = SlowStageStory()
    private let search = SearchStory()
    private let repeatedWork = RepeatedWorkStory()
    private let messages = MessagesScreen()
    private let zip = ZipStory()

    /// The stories that run once and stay: the broken promise, the demand violation, the
    /// slow map, the two searches and the shipping quote.
    func start() {
        let cache = PassthroughSubject<String, Never>()
        cache.pipescopeExpect(.immediate, name: "story: cache lookup promised immediate")
            .sink { _ in }
            .store(in: &kept)
        let counter = DemandCounter()
        IgnoresDemand(count: 5).pipescopeName("story: publisher ignoring demand").subscribe(counter)
        slowStage.start()
        search.start()
        zip.start()
    }

    /// Called every 300 ms with the demo's step number.
    func tick(_ step: Int) {
        ticks.send(step)
        slowStage.tick(step)
        search.tick(step)
        repeatedWork.tick(step)
        messages.tick(step)
        zip.tick(step)
        switch step % 40 {
        case 2: profile = ProfileScreen(ticks: ticks)
        case 14: profile = nil  // the screen closes: its bag cancels both pipelines
        case 5: feeds = [FeedScreen(tied: false), FeedScreen(tied: true)]
        case 18:
            // Both screens close; the watched task lives on, the tied one is cancelled.
            leakedTask = feeds.first?.task
            feeds = []
        case 36:
            leakedTask?.cancel()  // much later someone notices and stops it
            leakedTask = nil
        default: break
        }
    }
}

/// Story: an owner's pipelines end with it.
private final class ProfileScreen: @unchecked Sendable {
    private let bag = CancellableBag("story: ProfileScreen (closes after 4 s)")

    init(ticks: PassthroughSubject<Int, Never>) {
        bag.collect {
            ticks.map { "avatar \($0)" }.pipescopeName("profile avatar").sink { _ in }
            ticks.filter { $0 % 2 == 0 }.pipescopeName("profile status").sink { _ in }
        }
    }
}

/// Story: a task outlives its owner unless tied to it.
private final class FeedScreen: @unchecked Sendable {
    private let bag: CancellableBag
    let task: Task<Void, Never>

    init(tied: Bool) {
        bag = CancellableBag(tied ? "story: FeedScreen, task tied" : "story: FeedScreen, task only watched")
        task = Task.detached {
            while !Task.isCancelled { try? await Task.sleep(nanoseconds: 200_000_000) }
        }
        if tied {
            task.eraseToAnyCancellable(name: "feed refresh (tied)").store(in: bag)
        } else {
            bag.watch(task, name: "feed refresh (not tied)")
        }
    }
}

/// Story: subscriptions that pile up. Each opening subscribes the screen to the inbox
/// anew and keeps the new subscription beside the old ones; the fix is to cancel the old
/// one first (`current?.cancel(); current = inbox.filter { … }.sink { … }`).
private final class MessagesScreen: @unchecked Sendable {
    private let inbox = PassthroughSubject<Int, Never>()
    private var subscriptions: [AnyCancellable] = []
    private var opened = 0

    /// Called every 300 ms: two messages arrive a second or so, each for the screen open
    /// last, and the screen is opened again every seventh step.
    func tick(_ step: Int) {
        if step % 2 == 0 { inbox.send(opened) }
        guard step % 7 == 1 else { return }
        if opened == 120 {
            subscriptions.removeAll()  // much later the app empties the bag: they all end
            opened = 0
        }
        opened += 1
        open(opened)
    }

    private func open(_ screen: Int) {
        inbox.filter { $0 == screen }.pipescopeName("story: messages screen reopened").sink { _ in }
            .store(in: &subscriptions)
    }
}

/// A subscriber that asks for one value at a time, and gets more than it asked for.
private final class DemandCounter: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never
    func receive(subscription: any Subscription) { subscription.request(.max(1)) }
    func receive(_ input: Int) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
}

/// A publisher that sends `count` values on the first request, whatever the demand.
private struct IgnoresDemand: Publisher {
    typealias Output = Int
    typealias Failure = Never
    let count: Int

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Rude(subscriber: subscriber, count: count))
    }

    private final class Rude<S: Subscriber>: Subscription where S.Input == Int, S.Failure == Never {
        private var subscriber: S?
        private let count: Int
        init(subscriber: S, count: Int) {
            self.subscriber = subscriber
            self.count = count
        }
        func request(_ demand: Subscribers.Demand) {
            guard let subscriber else { return }
            self.subscriber = nil
            for i in 0..<count { _ = subscriber.receive(i) }
        }
        func cancel() { subscriber = nil }
    }
}
