import DequeModule
import NIOConcurrencyHelpers
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeWire

/// Maps OpenCombine identities to Pipescope stages, and buffers what happens to them.
///
/// This is the only state the hook callbacks touch. Every operation takes one lock,
/// does a dictionary lookup and appends to a bounded buffer; nothing here blocks on I/O,
/// allocates strings, or calls back into user code. When the buffer is full the event
/// is dropped and counted: the host is never stalled.
///
/// Identities (`CombineIdentifier`) are memory addresses for many stages and are reused
/// soon after a stage dies, so a mapping is dropped as soon as its stage ends, and a new
/// subscribe under a reused identity simply takes the mapping over.
final class StageRegistry: @unchecked Sendable {
    /// A stage as the hot path needs it.
    struct Stage {
        var node: NodeID
        /// The stage whose operator owns this stage's subscriber: inner subscriptions
        /// made while delivering to that subscriber (flatMap, catch, retry) belong to it.
        var owner: NodeID?
    }

    /// What a new stage is, as the tap saw it subscribe.
    struct Subscribe {
        var key: StageKey
        var parent: NodeID?
        /// Set when the subscriber is the one the stage on top of the stack is already
        /// subscribing (AnyPublisher-like forwarding).
        var forwarder: NodeID?
        /// The subject this stage's publisher is, if any.
        var publishes: ObjectIdentifier?
        /// The subject this stage's subscriber delivers into, if any.
        var feeds: ObjectIdentifier?
    }

    /// One subscription object and the stages it passes through (Map, Filter share it).
    private struct Shared {
        var owner: NodeID
        var stages: [NodeID]
        weak var object: AnyObject?
        var isClass: Bool
        var isAlive: Bool { !isClass || object != nil }
    }

    /// What to forget when a stage ends.
    private struct Keys {
        var key: StageKey
        var parent: NodeID?
        var subscription: CombineIdentifier?
        var publishes: ObjectIdentifier?
        var feeds: ObjectIdentifier?
        /// Stages that forward their subscriber to this one (AnyPublisher).
        var forwarders: [NodeID] = []
    }

    private let lock = NIOLock()
    private var bySubscriber: [StageKey: Stage] = [:]
    /// Recently ended stages, so a value or completion that arrives after the end (a
    /// cancel racing a delivery) is recorded against the stage it belongs to instead
    /// of being lost. Bounded; a new stage under the same identity takes over.
    private var retired: [StageKey: NodeID] = [:]
    /// Retirement order; a key whose stage changed since is skipped when evicted.
    private var retiredOrder = Deque<(key: StageKey, node: NodeID)>()
    static let retiredCapacity = 4096
    private var bySubscription: [CombineIdentifier: Shared] = [:]
    private var keys: [NodeID: Keys] = [:]
    private var publishersOf: [ObjectIdentifier: [NodeID]] = [:]
    private var feedersOf: [ObjectIdentifier: [NodeID]] = [:]
    private var events: Deque<RawEvent>
    private var latestValues: [NodeID: Any] = [:]
    private var nextNode: NodeID = 1
    private let capacity: Int
    private var droppedCount: UInt64 = 0
    /// Value capture: keep the newest value per stage (the default), or none.
    private var captureLatest = true
    /// Stages whose every value is described, not only the newest.
    private var captureEvery = Set<NodeID>()
    /// Called (lock held, at most once between drains) when the buffer is half full, so
    /// the server flushes early instead of dropping at the end of its interval. It must
    /// only schedule work, never drain on the calling thread.
    private var onHalfFull: (@Sendable () -> Void)?
    private var halfFullSignalled = false

    /// `capacity` bounds the buffer between flushes.
    init(capacity: Int) {
        self.capacity = capacity
        events = Deque(minimumCapacity: min(capacity, 4096))
    }

    // MARK: - Subscribe

    func subscribe(_ s: Subscribe, info makeInfo: (NodeID) -> WireNodeInfo) -> NodeID {
        let time = wallClockNanos()
        return lock.withLock {
            let id = nextNode
            nextNode += 1
            // A forward target's subscriber belongs to whoever owns the forwarder's.
            let owner = s.forwarder.flatMap { f in keys[f].map { _ in ownerOf(f) } } ?? s.parent
            bySubscriber[s.key] = Stage(node: id, owner: owner)
            retired[s.key] = nil
            keys[id] = Keys(key: s.key, parent: s.parent, publishes: s.publishes, feeds: s.feeds)
            append(RawEvent(kind: .eventSubscribe, node: id, time: time, payload: .info(makeInfo(id))))
            if let forwarder = s.forwarder {
                keys[id]?.forwarders.append(forwarder)
                append(RawEvent(kind: .eventForward, node: forwarder, time: time, other: id))
            }
            if let subject = s.publishes {
                publishersOf[subject, default: []].append(id)
                for upstream in feedersOf[subject] ?? [] {
                    append(RawEvent(kind: .eventFeeds, node: upstream, time: time, other: id))
                }
            }
            if let subject = s.feeds {
                feedersOf[subject, default: []].append(id)
                for branch in publishersOf[subject] ?? [] {
                    append(RawEvent(kind: .eventFeeds, node: id, time: time, other: branch))
                }
            }
            return id
        }
    }

    func receive(subscription: any Subscription, subscriber: StageKey) {
        let time = wallClockNanos()
        let subscriptionID = subscription.combineIdentifier
        let isEmpty = subscriptionID == Self.emptySubscription
        let isClass = type(of: subscription) is AnyObject.Type
        let asSubscriber = StageKey(subscription: subscription)
        lock.withLock {
            guard let stage = bySubscriber[subscriber] else { return }
            var owner = stage.node
            if !isEmpty {
                if let shared = bySubscription[subscriptionID], shared.isAlive {
                    owner = shared.owner
                    bySubscription[subscriptionID]?.stages.append(stage.node)
                } else {
                    bySubscription[subscriptionID] = Shared(
                        owner: stage.node, stages: [stage.node],
                        object: isClass ? subscription as AnyObject : nil, isClass: isClass)
                }
                keys[stage.node]?.subscription = subscriptionID
            }
            append(RawEvent(kind: .eventSubscription, node: stage.node, time: time, other: owner))
            adoptOrphan(subscribedBy: asSubscriber, under: stage.node, time: time)
        }
    }

    // MARK: - Hot path

    /// The stage of a subscriber, for showing what waits at the gate.
    func node(of subscriber: StageKey) -> NodeID? {
        lock.withLock { bySubscriber[subscriber]?.node }
    }

    func request(subscription: CombineIdentifier, demand: Subscribers.Demand) {
        let time = wallClockNanos()
        lock.withLock {
            guard let shared = bySubscription[subscription] else { return }
            append(RawEvent(kind: .eventRequest, node: shared.owner, time: time, demand: demand.wire))
        }
    }

    func cancel(subscription: CombineIdentifier, cause: WireCancelCause) {
        let time = wallClockNanos()
        lock.withLock {
            guard let shared = bySubscription.removeValue(forKey: subscription) else { return }
            append(RawEvent(kind: .eventCancelled, node: shared.owner, time: time, cause: cause))
            for node in shared.stages { retire(node) }
        }
    }

    /// Records a value for the stage whose subscriber is `subscriber`; returns the stage.
    func value(subscriber: StageKey, _ value: Any) -> Stage? {
        let time = wallClockNanos()
        return lock.withLock {
            guard let stage = bySubscriber[subscriber] ?? retiredStage(subscriber) else { return nil }
            if captureEvery.isEmpty || !captureEvery.contains(stage.node) {
                append(RawEvent(kind: .eventValue, node: stage.node, time: time))
            } else {
                append(RawEvent(kind: .eventValue, node: stage.node, time: time, payload: .value(value)))
            }
            if captureLatest { latestValues[stage.node] = value }
            return stage
        }
    }

    /// Records the demand a subscriber returned from `receive(_:)`, when there is any.
    func demand(node: NodeID, _ demand: Subscribers.Demand) {
        guard demand != .none else { return }
        let time = wallClockNanos()
        lock.withLock {
            append(RawEvent(kind: .eventDemand, node: node, time: time, demand: demand.wire))
        }
    }

    func completion<Failure: Error>(subscriber: StageKey, _ completion: Subscribers.Completion<Failure>) -> Stage? {
        let time = wallClockNanos()
        return lock.withLock {
            guard let stage = bySubscriber[subscriber] ?? retiredStage(subscriber) else { return nil }
            switch completion {
            case .finished:
                append(RawEvent(kind: .eventFinished, node: stage.node, time: time))
            case .failure(let error):
                append(RawEvent(kind: .eventFailed, node: stage.node, time: time, payload: .error(error)))
            }
            retire(stage.node)
            return stage
        }
    }

    // MARK: - Commands

    /// What cancelling a stage from the inspector will touch.
    enum CancelTarget {
        /// The subscription to cancel, the stage that owns it, and every stage sharing it.
        case subscription(any Subscription, owner: NodeID, stages: [NodeID])
        case ended
        case unknown
        /// A value-type subscription: nothing to hold on to and call.
        case notCancellable
    }

    /// Records an inspector cancel of the stage's subscription, then returns the
    /// subscription so the caller can cancel it outside the lock. Cancelling a raw
    /// subscription fires no hook, so this records it; the cancels it sets off
    /// upstream fire hooks as usual.
    func cancelFromInspector(node: NodeID) -> CancelTarget {
        let time = wallClockNanos()
        return lock.withLock {
            guard let k = keys[node] else { return node < nextNode ? .ended : .unknown }
            guard let id = k.subscription, let shared = bySubscription[id] else { return .ended }
            guard let subscription = shared.object as? any Subscription else { return .notCancellable }
            bySubscription[id] = nil
            append(RawEvent(kind: .eventCancelled, node: shared.owner, time: time, cause: .causeInspector))
            for stage in shared.stages { retire(stage) }
            return .subscription(subscription, owner: shared.owner, stages: shared.stages)
        }
    }

    func setHalfFullHandler(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { onHalfFull = handler }
    }

    func setCapture(latest: Bool, every nodes: Set<NodeID>) {
        lock.withLock {
            captureLatest = latest
            captureEvery = nodes
            if !latest { latestValues.removeAll() }
        }
    }

    // MARK: - Lifecycle: owners, tasks, contracts

    /// Records an event made outside OpenCombine's callbacks (owners, tasks, contracts).
    func record(_ event: RawEvent) {
        lock.withLock { append(event) }
    }

    /// The stages among `nodes` that have not ended.
    func live(_ nodes: [NodeID]) -> [NodeID] {
        lock.withLock { nodes.filter { keys[$0] != nil } }
    }

    /// A stage that is not an OpenCombine subscription (a task), active at once.
    func startSynthetic(key: StageKey, info makeInfo: (NodeID) -> WireNodeInfo) -> NodeID {
        let time = wallClockNanos()
        return lock.withLock {
            let id = nextNode
            nextNode += 1
            keys[id] = Keys(key: key, parent: nil)
            append(RawEvent(kind: .eventSubscribe, node: id, time: time, payload: .info(makeInfo(id))))
            append(RawEvent(kind: .eventSubscription, node: id, time: time, other: id))
            return id
        }
    }

    /// Ends a synthetic stage with `kind` (finished or cancelled by `cause`); a stage
    /// that already ended is left alone.
    func endSynthetic(_ node: NodeID, _ kind: WireEventKind, cause: WireCancelCause = .causeNone) {
        let time = wallClockNanos()
        lock.withLock {
            guard keys.removeValue(forKey: node) != nil else { return }
            append(RawEvent(kind: kind, node: node, time: time, cause: cause))
        }
    }

    // MARK: - Flush side

    struct Drained {
        var events: Deque<RawEvent>
        var values: [NodeID: Any]
        var dropped: UInt64
    }

    /// Takes everything buffered so far, leaving an empty buffer of the same capacity.
    func drain() -> Drained {
        var fresh = Deque<RawEvent>(minimumCapacity: min(capacity, 4096))
        var freshValues: [NodeID: Any] = [:]
        return lock.withLock {
            swap(&fresh, &events)
            swap(&freshValues, &latestValues)
            halfFullSignalled = false
            return Drained(events: fresh, values: freshValues, dropped: droppedCount)
        }
    }

    /// Stages the tap still maps (not yet ended). For tests and the memory report.
    var liveStageCount: Int { lock.withLock { keys.count } }

    // MARK: - Internals (lock held)

    private func append(_ event: RawEvent) {
        if events.count < capacity {
            events.append(event)
            if events.count == capacity / 2, !halfFullSignalled, let onHalfFull {
                halfFullSignalled = true
                onHalfFull()
            }
        } else {
            droppedCount &+= 1
        }
    }

    private func ownerOf(_ node: NodeID) -> NodeID? {
        keys[node].flatMap { bySubscriber[$0.key]?.owner } ?? keys[node]?.parent
    }

    /// subscribe(on:) subscribes its upstream on another thread, so that stage started
    /// as a root. When its subscriber turns up as the subscription a stage receives, the
    /// orphan has found its downstream.
    private func adoptOrphan(subscribedBy key: StageKey, under parent: NodeID, time: Int64) {
        guard var orphan = bySubscriber[key], orphan.node != parent,
              let k = keys[orphan.node], k.parent == nil else { return }
        keys[orphan.node]?.parent = parent
        orphan.owner = parent
        bySubscriber[key] = orphan
        append(RawEvent(kind: .eventAdopt, node: orphan.node, time: time, other: parent))
    }

    private func retiredStage(_ key: StageKey) -> Stage? {
        retired[key].map { Stage(node: $0, owner: nil) }
    }

    /// Forgets a stage that ended, so its identity can be reused by a new stage. Its
    /// identity stays in the bounded `retired` map for late events.
    private func retire(_ node: NodeID) {
        guard let k = keys.removeValue(forKey: node) else { return }
        if bySubscriber[k.key]?.node == node {
            bySubscriber[k.key] = nil
            retired[k.key] = node
            retiredOrder.append((k.key, node))
            if retiredOrder.count > Self.retiredCapacity, let oldest = retiredOrder.popFirst(),
               retired[oldest.key] == oldest.node {
                retired[oldest.key] = nil
            }
        }
        if let s = k.subscription, bySubscription[s]?.owner == node { bySubscription[s] = nil }
        if let subject = k.publishes { remove(node, from: &publishersOf, subject) }
        if let subject = k.feeds { remove(node, from: &feedersOf, subject) }
        for forwarder in k.forwarders { retire(forwarder) }
    }

    private func remove(_ node: NodeID, from map: inout [ObjectIdentifier: [NodeID]], _ subject: ObjectIdentifier) {
        map[subject]?.removeAll { $0 == node }
        if map[subject]?.isEmpty == true { map[subject] = nil }
    }

    private static let emptySubscription = Subscriptions.empty.combineIdentifier
}

extension Subscribers.Demand {
    /// -1 for unlimited, as on the wire.
    var wire: Int64 { max.map { Int64($0) } ?? -1 }
}
