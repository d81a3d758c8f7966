import DequeModule
@preconcurrency import OpenCombine
import PipescopeGraph

/// Which Pipescope stage an OpenCombine identity stands for, right now.
///
/// Rules:
/// - A stage is found by its subscriber's ``StageKey`` (identity and type). Identities
///   are memory addresses for many stages and are reused soon after a stage dies, so a
///   mapping is dropped as soon as its stage ends (``retire(_:)``), and a new subscribe
///   under a reused identity simply takes the mapping over.
/// - A recently ended stage stays findable in a bounded `retired` map, so a value or
///   completion racing its cancel is recorded against the stage it belongs to.
/// - One subscription object can serve several stages (Map and Filter pass their
///   upstream's subscription through). Its requests and cancels count once, on the most
///   upstream stage that owns it (``Shared/owner``).
/// - It holds no strong reference to anything of the program's: a subscription object
///   is held by its unowned count (``SubscriptionHold``, released exactly once, when its
///   entry goes), everything else is identities and numbers. Removing an entry never
///   runs user code.
/// - Not thread-safe by itself: it lives inside ``StageRegistry``'s locked state.
struct StageIndex {
    /// A stage as the hot path needs it.
    struct Stage {
        var node: NodeID
        /// The stage whose operator owns this stage's subscriber: inner subscriptions
        /// made while delivering to that subscriber (flatMap, catch, retry) belong to it.
        var owner: NodeID?
        /// The flush window in which a value of this stage was last described.
        var described: UInt32 = 0
        /// How this stage's operator turns inputs into outputs, and how its owner's does:
        /// whether its outputs and its deliveries touch ``CauseLinks``.
        var causes: CausePolicy = .inline
        var ownerCauses: CausePolicy = .inline
    }

    /// One subscription object and the stages it passes through.
    struct Shared {
        var owner: NodeID
        /// The first stage that received it, kept inline: most subscriptions serve one
        /// stage (every inner publisher of a flatMap does), and an array for it would be an
        /// allocation and a free on each.
        var first: NodeID
        /// The stages that received it after `first` (Map and Filter passing it through).
        var more: [NodeID] = []
        /// Every stage it serves, in the order they received it.
        var stages: [NodeID] { [first] + more }
        /// The object, when the subscription is a class. The index's, released when the
        /// entry goes: a copy handed out must not release it.
        var hold: SubscriptionHold?
        var isAlive: Bool { hold?.isAlive ?? true }
    }

    /// What to forget when a stage ends.
    struct Keys {
        var key: StageKey
        var parent: NodeID?
        var subscription: CombineIdentifier?
        var publishes: ObjectIdentifier?
        var feeds: ObjectIdentifier?
        /// Stages that forward their subscriber to this one (AnyPublisher).
        var forwarders: [NodeID] = []
        var causes: CausePolicy = .inline
        /// The memory of the object its publisher's identity is, held while it lives (see
        /// ``PublisherIdentity``); released exactly once, when the entry goes.
        var publisher: SubscriptionHold? = nil
    }

    static let retiredCapacity = 4096

    private(set) var bySubscriber = StageTable<Stage>()
    private var retired = StageTable<NodeID>()
    /// Retirement order; a key whose stage changed since is skipped when evicted.
    private var retiredOrder = Deque<(key: StageKey, node: NodeID)>()
    private var bySubscription = IdentityTable<CombineIdentifier, Shared>()
    private var keys = IdentityTable<NodeID, Keys>()
    /// The inputs of asynchronous stages not yet turned into outputs; forgotten with them.
    var causeLinks = CauseLinks()

    // MARK: - Stages

    mutating func insert(_ node: NodeID, key: StageKey, owner: NodeID?, parent: NodeID?,
                         publishes: ObjectIdentifier? = nil, feeds: ObjectIdentifier? = nil,
                         causes: CausePolicy = .inline, publisher: UInt = 0) {
        // Read in place: `keys[owner]?.causes` would copy the owner's whole entry out (its
        // forwarders array retained and released) on every subscribe under a parent.
        let ownerCauses = owner.flatMap { keys.modify($0) { $0.causes } } ?? .inline
        // A retired mapping of the same key stays: the live stage shadows it in
        // ``delivery(_:)``, and replaces it when it retires in turn.
        bySubscriber[key] = Stage(node: node, owner: owner, causes: causes, ownerCauses: ownerCauses)
        // A node id is never reused, so no entry is replaced here (its hold is not lost).
        keys[node] = Keys(key: key, parent: parent, publishes: publishes, feeds: feeds, causes: causes,
                          publisher: SubscriptionHold(address: publisher))
    }

    /// A stage with no subscriber of OpenCombine's (a task): known by its node only.
    mutating func insertSynthetic(_ node: NodeID, key: StageKey) {
        keys[node] = Keys(key: key, parent: nil)
    }

    /// Ends a synthetic stage; false if it had ended already.
    mutating func removeSynthetic(_ node: NodeID) -> Bool {
        keys.removeValue(forKey: node) != nil
    }

    /// The live stage of a subscriber.
    @inline(__always)
    func stage(_ key: StageKey) -> Stage? { bySubscriber[key] }

    /// The stage a delivery belongs to: live, or recently ended.
    @inline(__always)
    func delivery(_ key: StageKey) -> Stage? {
        bySubscriber[key] ?? retired[key].map { Stage(node: $0, owner: nil) }
    }

    mutating func markDescribed(_ key: StageKey, window: UInt32) {
        bySubscriber[key]?.described = window
    }

    func isLive(_ node: NodeID) -> Bool { keys.contains(node) }

    var liveCount: Int { keys.count }

    mutating func addForwarder(_ forwarder: NodeID, to node: NodeID) {
        keys.modify(node) { $0.forwarders.append(forwarder) }
    }

    /// Who owns the subscriber of `node`'s forward target: whoever owns `node`'s.
    func ownerOf(_ node: NodeID) -> NodeID? {
        keys[node].flatMap { bySubscriber[$0.key]?.owner } ?? keys[node]?.parent
    }

    // MARK: - Subscriptions

    /// Records that `key`'s stage received `subscription`; returns the stage and the
    /// stage that owns the subscription (itself, unless the object is shared).
    /// `object`: the subscription, when it is a class.
    mutating func received(_ subscription: CombineIdentifier, object: AnyObject?,
                           by key: StageKey) -> (stage: NodeID, owner: NodeID)? {
        guard let stage = bySubscriber[key] else { return nil }
        var owner = stage.node
        let known = bySubscription.modify(subscription) { shared -> NodeID? in
            guard shared.isAlive else { return nil }
            // Room for the stages that usually pass one subscription through (Map, Filter
            // and their sink): one allocation, where appending one at a time would grow it twice.
            if shared.more.isEmpty { shared.more.reserveCapacity(3) }
            shared.more.append(stage.node)
            return shared.owner
        }
        if let known, let known {
            owner = known
        } else {
            // A dead object's identifier given again (only a subscription with an
            // identifier of its own can: an address stays held): its entry goes first.
            if known != nil { forgetSubscription(subscription) }
            bySubscription[subscription] = Shared(owner: stage.node, first: stage.node,
                                                  hold: object.map(SubscriptionHold.init))
        }
        keys.modify(stage.node) { $0.subscription = subscription }
        return (stage.node, owner)
    }

    /// The stage that counts a request on `subscription`.
    func requestOwner(_ subscription: CombineIdentifier) -> NodeID? {
        bySubscription[subscription]?.owner
    }

    /// Forgets a cancelled subscription and retires every stage it served; returns its
    /// owner, or nil if it was not known (or already cancelled).
    /// (The returned copy's hold is released already.)
    mutating func cancel(_ subscription: CombineIdentifier, links: inout SubjectLinkIndex) -> Shared? {
        guard let shared = forgetSubscription(subscription) else { return nil }
        retire(shared.first, links: &links)
        for node in shared.more { retire(node, links: &links) }
        return shared
    }

    /// Removes a subscription's entry and releases its hold; returns the entry.
    @discardableResult
    private mutating func forgetSubscription(_ subscription: CombineIdentifier) -> Shared? {
        guard let shared = bySubscription.removeValue(forKey: subscription) else { return nil }
        shared.hold?.release()
        return shared
    }

    /// Releases every subscription held, when the registry goes.
    mutating func releaseHolds() {
        bySubscription.removeAll { $0.hold?.release() }
        keys.removeAll { $0.publisher?.release() }
    }

    /// The subscription the inspector can cancel for `node`, looked up (not removed).
    func cancelTarget(_ node: NodeID) -> (shared: Shared, id: CombineIdentifier)? {
        guard let id = keys[node]?.subscription, let shared = bySubscription[id] else { return nil }
        return (shared, id)
    }

    // MARK: - Ending

    /// Forgets a stage that ended, so its identity can be reused by a new stage. Its
    /// identity stays in the bounded `retired` map for late events, and its subject links
    /// go with it.
    mutating func retire(_ node: NodeID, links: inout SubjectLinkIndex) {
        guard let k = keys.removeValue(forKey: node) else { return }
        k.publisher?.release()
        if k.causes != .inline { causeLinks.forget(node) }
        if bySubscriber[k.key]?.node == node {
            bySubscriber[k.key] = nil
            retired[k.key] = node
            retiredOrder.append((k.key, node))
            if retiredOrder.count > Self.retiredCapacity, let oldest = retiredOrder.popFirst(),
               retired[oldest.key] == oldest.node {
                retired[oldest.key] = nil
            }
            // The next retire evicts the oldest entry: its slot, 4,096 retires old, is in
            // no cache by now. Fetched here, an event early, the lookup then finds it there.
            // (Unfetched, in a profile of the flatMap benchmark, that lookup's two misses are a
            // fifth of a completion's time in the tap, and the insert's miss a sixth.)
            if retiredOrder.count >= Self.retiredCapacity, let next = retiredOrder.first { retired.prefetch(next.key) }
        }
        if let s = k.subscription, bySubscription.modify(s, { $0.owner }) == node { forgetSubscription(s) }
        links.forget(node, publishes: k.publishes, feeds: k.feeds)
        for forwarder in k.forwarders { retire(forwarder, links: &links) }
    }

    /// Starts loading the slot of `key` in the retired stages, where ``retire(_:links:)``
    /// will put it if its stage ends now (see ``IdentityTable/prefetch(_:)``).
    @inline(__always)
    func prefetchRetired(_ key: StageKey) { retired.prefetch(key) }

    /// Ended stages still findable by their subscriber (tests).
    var retiredCount: Int { retired.count }

    // MARK: - Orphans

    /// subscribe(on:) subscribes its upstream on another thread, so that stage started
    /// as a root. When its subscriber turns up as the subscription a stage receives, the
    /// orphan has found its downstream: returns the orphan, now under `parent`.
    mutating func adoptOrphan(subscribedBy key: StageKey, under parent: NodeID) -> NodeID? {
        guard var orphan = bySubscriber[key], orphan.node != parent,
              let k = keys[orphan.node], k.parent == nil else { return nil }
        keys.modify(orphan.node) { $0.parent = parent }
        orphan.owner = parent
        orphan.ownerCauses = keys[parent]?.causes ?? .inline
        bySubscriber[key] = orphan
        return orphan.node
    }
}
