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
        /// The stage's downstream: inner subscriptions made while delivering to this
        /// stage's subscriber belong to the parent's operator.
        var parent: NodeID?
    }

    /// One subscription object and the stages it passes through (Map, Filter share it).
    private struct Shared {
        var owner: NodeID
        var stages: [NodeID]
        weak var object: AnyObject?
        var isClass: Bool
        var isAlive: Bool { !isClass || object != nil }
    }

    private struct Keys {
        var subscriber: CombineIdentifier
        var subscription: CombineIdentifier?
        /// Stages that forward their subscriber to this one (AnyPublisher).
        var forwarders: [NodeID] = []
    }

    private let lock = NIOLock()
    private var bySubscriber: [CombineIdentifier: Stage] = [:]
    private var bySubscription: [CombineIdentifier: Shared] = [:]
    private var keys: [NodeID: Keys] = [:]
    private var events: Deque<RawEvent>
    private var latestValues: [NodeID: Any] = [:]
    private var nextNode: NodeID = 1
    private let capacity: Int
    private var droppedCount: UInt64 = 0

    /// `capacity` bounds the buffer between flushes.
    init(capacity: Int) {
        self.capacity = capacity
        events = Deque(minimumCapacity: min(capacity, 4096))
    }

    // MARK: - Hot path

    func subscribe(subscriber: CombineIdentifier, parent: NodeID?, forwardingFrom forwarder: NodeID?,
                   info makeInfo: (NodeID) -> WireNodeInfo) -> NodeID {
        let time = wallClockNanos()
        return lock.withLock {
            let id = nextNode
            nextNode += 1
            bySubscriber[subscriber] = Stage(node: id, parent: parent)
            keys[id] = Keys(subscriber: subscriber)
            append(RawEvent(kind: .eventSubscribe, node: id, time: time, payload: .info(makeInfo(id))))
            if let forwarder {
                keys[id]?.forwarders.append(forwarder)
                append(RawEvent(kind: .eventForward, node: forwarder, time: time, other: id))
            }
            return id
        }
    }

    func receive(subscription: any Subscription, subscriber: CombineIdentifier) {
        let time = wallClockNanos()
        let subscriptionID = subscription.combineIdentifier
        let isEmpty = subscriptionID == Self.emptySubscription
        let isClass = type(of: subscription) is AnyObject.Type
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
        }
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
    func value(subscriber: CombineIdentifier, _ value: Any) -> Stage? {
        let time = wallClockNanos()
        return lock.withLock {
            guard let stage = bySubscriber[subscriber] else { return nil }
            append(RawEvent(kind: .eventValue, node: stage.node, time: time))
            latestValues[stage.node] = value
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

    func completion<Failure: Error>(subscriber: CombineIdentifier,
                                    _ completion: Subscribers.Completion<Failure>) -> Stage? {
        let time = wallClockNanos()
        return lock.withLock {
            guard let stage = bySubscriber[subscriber] else { return nil }
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
            return Drained(events: fresh, values: freshValues, dropped: droppedCount)
        }
    }

    /// Stages the tap still maps (not yet ended). For tests and the memory report.
    var liveStageCount: Int { lock.withLock { keys.count } }

    // MARK: - Internals (lock held)

    private func append(_ event: RawEvent) {
        if events.count < capacity {
            events.append(event)
        } else {
            droppedCount &+= 1
        }
    }

    /// Forgets a stage that ended, so its identity can be reused by a new stage.
    private func retire(_ node: NodeID) {
        guard let k = keys.removeValue(forKey: node) else { return }
        if bySubscriber[k.subscriber]?.node == node { bySubscriber[k.subscriber] = nil }
        if let s = k.subscription, bySubscription[s]?.owner == node { bySubscription[s] = nil }
        for forwarder in k.forwarders { retire(forwarder) }
    }

    private static let emptySubscription = Subscriptions.empty.combineIdentifier
}

extension Subscribers.Demand {
    /// -1 for unlimited, as on the wire.
    var wire: Int64 { max.map { Int64($0) } ?? -1 }
}
