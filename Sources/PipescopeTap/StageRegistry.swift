@preconcurrency import OpenCombine
import PipescopeGraph
import Synchronization

/// The tap's state, behind its one lock: the only type that takes that lock. This file
/// holds what the program's threads call (subscribe, the hot path); what the inspector
/// and the flush ask is in `StageRegistry+Commands.swift`, under the same rules.
///
/// What it holds, each with its own rules at the top of its file:
/// - ``EventRing``: the bounded buffer of events, its drop count and half-full signal;
/// - ``StageIndex``: identities to stages, retirement, shared subscriptions, orphans;
/// - ``SubjectLinkIndex``: subjects to the stages publishing from and feeding into them;
/// - ``ValueCapture/Policy``: which values get text;
/// - ``CauseLinks`` (inside ``StageIndex``): the inputs asynchronous stages have not yet
///   turned into outputs, for the causes of their outputs.
///
/// **The lock.** Every method takes it once (a sampled value description takes it twice:
/// once to decide, once to attach the text made in between). Inside it: dictionary
/// lookups, small struct updates and an append. Never inside it:
/// - user code: no `description`, no user closure, no release of a user object
///   (nothing here holds one: a subscription object only by its unowned count, which
///   keeps its memory, not it; values not at all);
/// - NIO or I/O: the half-full signal is read under the lock and called after it;
/// - building strings: callers make them first (and node infos are made at the flush);
/// - capturing a call stack: the tap walks it before calling, and the registry only
///   copies the finished addresses (the ``Locator`` turns them into locations later,
///   without it).
///
/// Every method can be called from any thread, including re-entrantly from user code
/// that a callback runs (a `deinit` that cancels, a `description` that sends), because
/// no method calls out while it holds the lock.
package final class StageRegistry: @unchecked Sendable {
    typealias Stage = StageIndex.Stage

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
        /// How its operator turns inputs into outputs (by its publisher's type).
        var causes: CausePolicy = .inline
        /// The heap object its publisher's identity is (``PublisherIdentity``); 0 for none.
        var publisherObject: UInt = 0
    }

    /// An event recorded for a delivery: the stage it belongs to and its number (0 if it
    /// was dropped), for the frame the tap pushes while the subscriber runs.
    struct Delivered {
        var stage: Stage
        var event: EventID
        /// The ticks it was stamped with: when its subscriber's code starts.
        var time: Int64
    }

    struct State {
        var ring: EventRing
        var stages = StageIndex()
        var links = SubjectLinkIndex()
        var capture = ValueCapture.Policy()
        /// Asks the server for an early flush; called after the lock is released.
        var onHalfFull: (@Sendable () -> Void)?
        var halfFullPending = false

        /// Appends `event`; false if the buffer was full and it was dropped.
        @inline(__always)
        mutating func append(_ event: RawEvent) -> Bool {
            ring.append(event, halfFull: &halfFullPending)
        }

        mutating func append(_ event: RawEvent, text: String, as payload: RawEvent.Payload = .text) -> Bool {
            ring.append(event, text: text, as: payload, halfFull: &halfFullPending)
        }

        /// The cause of an output of `stage` recorded while `context` is the thread's
        /// innermost delivery or cancel: the input it is receiving; for an asynchronous
        /// operator emitting on its own (a scheduler's thread), the input ``CauseLinks``
        /// kept for it; otherwise whatever it runs inside (a subject sent to from another
        /// pipeline's sink), or nothing.
        @inline(__always)
        mutating func cause(of stage: Stage, _ context: ThreadFrames.Cause) -> EventID {
            if stage.causes == .inline { return context.event }
            if context.inputOf == stage.node, context.event != 0 {
                stages.causeLinks.used(context.event, by: stage.node)
                return context.event
            }
            return stages.causeLinks.take(for: stage.node, policy: stage.causes) ?? context.event
        }

        /// `stage` delivered event `id` into its owner's operator: an input the owner keeps
        /// if it emits later.
        @inline(__always)
        mutating func delivered(_ id: EventID, by stage: Stage) {
            guard stage.ownerCauses != .inline, id != 0, let owner = stage.owner else { return }
            stages.causeLinks.received(id, by: owner, policy: stage.ownerCauses)
        }
    }

    /// A pthread mutex (NIO's): ThreadSanitizer sees it. (Swift's `Mutex` takes a futex
    /// in code ThreadSanitizer does not instrument, so every access looked like a race.)
    let state: LockedBox<State>
    /// Node ids are handed out without the lock, so node info is built before taking it.
    let nextNode = Atomic<UInt64>(1)
    private let capacity: Int
    /// Whether new roots and inner publishers capture their call stack (``CallStack``).
    package let capturesLocations: Bool

    /// `capacity` bounds the buffer between flushes, and `maxCapacity` how far it may grow
    /// when the flush falls behind (``EventRing``). `locations`: capture call stacks.
    package init(capacity: Int, maxCapacity: Int? = nil, locations: Bool = true) {
        self.capacity = capacity
        capturesLocations = locations
        state = LockedBox(State(ring: EventRing(capacity: capacity, maxCapacity: maxCapacity)))
    }

    /// The subscription objects still held give their unowned counts back (at most
    /// freeing memory whose deinit ran already; no user code).
    deinit {
        state.withLockedValue { $0.stages.releaseHolds() }
    }

    /// Runs `body` under the lock, then, with the lock released, signals a half-full
    /// buffer if `body` made it so.
    @inline(__always)
    func withState<T>(_ body: (inout State) -> T) -> T {
        var signal: (@Sendable () -> Void)?
        let result = state.withLockedValue { state -> T in
            let result = body(&state)
            if state.halfFullPending {
                state.halfFullPending = false
                signal = state.onHalfFull
            }
            return result
        }
        signal?()
        return result
    }

    // MARK: - Subscribe

    /// Records a new stage, `stage` what its node info is made of. `stack`: the return
    /// addresses the caller captured (``CallStack``), copied into the buffer for the
    /// flush's ``Locator``.
    func subscribe(_ s: Subscribe, stack: UnsafeBufferPointer<UInt> = .init(start: nil, count: 0),
                   code: UnsafeBufferPointer<UInt> = .init(start: nil, count: 0),
                   stage: consuming NewStage) -> NodeID {
        let id = nextNode.add(1, ordering: .relaxed).oldValue
        // Moved, not copied, into the buffer.
        var stage: NewStage? = stage
        let time = eventTicks()
        withState { st in
            let owner: NodeID?
            if let f = s.forwarder, st.stages.isLive(f) { owner = st.stages.ownerOf(f) } else { owner = s.parent }
            st.stages.insert(id, key: s.key, owner: owner, parent: s.parent, publishes: s.publishes, feeds: s.feeds,
                             causes: s.causes, publisher: s.publisherObject)
            _ = st.ring.append(RawEvent(kind: .subscribe, node: id, time: time), stage: stage.take()!, stack: stack,
                               code: code, halfFull: &st.halfFullPending)
            if let forwarder = s.forwarder {
                st.stages.addForwarder(forwarder, to: id)
                _ = st.append(RawEvent(kind: .forward, node: forwarder, time: time, other: id))
            }
            if s.publishes != nil || s.feeds != nil {
                for pair in st.links.subscribed(id, publishes: s.publishes, feeds: s.feeds) {
                    _ = st.append(RawEvent(kind: .feeds, node: pair.upstream, time: time, other: pair.branch))
                }
            }
        }
        return id
    }

    /// Records that `subscriber`'s stage received `subscription`. Returns the stage when
    /// the subscription is `Subscriptions.empty` (shared by every publisher that hands it
    /// out, so a request on it names no stage: the tap gives the requests made while the
    /// stage receives it to the stage itself, ``request(emptySubscriptionOf:demand:)``).
    @discardableResult
    func receive(subscription: any Subscription, subscriber: StageKey) -> NodeID? {
        receive(opened: subscription, subscriber: subscriber)
    }

    /// `receive(subscription:subscriber:)` with the subscription's type known: a class's
    /// object is its one word, with no trip through the runtime's `as AnyObject`.
    private func receive<S: Subscription>(opened subscription: S, subscriber: StageKey) -> NodeID? {
        let time = eventTicks()
        let subscriptionID = subscription.combineIdentifier
        let isEmpty = subscriptionID == Self.emptySubscription
        let object: AnyObject? = S.self is AnyClass && !isEmpty ? unsafeBitCast(subscription, to: AnyObject.self) : nil
        let asSubscriber = StageKey(id: subscriptionID, type: ObjectIdentifier(S.self))
        return withState { st -> NodeID? in
            let node: NodeID, owner: NodeID
            if isEmpty {
                guard let stage = st.stages.stage(subscriber) else { return nil }
                (node, owner) = (stage.node, stage.node)
            } else {
                guard let received = st.stages.received(subscriptionID, object: object, by: subscriber)
                else { return nil }
                (node, owner) = received
            }
            _ = st.append(RawEvent(kind: .subscription, node: node, time: time, other: owner))
            if let orphan = st.stages.adoptOrphan(subscribedBy: asSubscriber, under: node) {
                _ = st.append(RawEvent(kind: .adopt, node: orphan, time: time, other: node))
            }
            return isEmpty ? node : nil
        }
    }

    // MARK: - Hot path

    /// The stage of a subscriber, for showing what waits at the gate.
    func node(of subscriber: StageKey) -> NodeID? {
        state.withLockedValue { $0.stages.stage(subscriber)?.node }
    }

    /// A request on `Subscriptions.empty` made while stage `node` received it (its
    /// subscriber asks at once, as `sink` does): the stage's own demand. The publisher that
    /// handed it out sends what it sends whatever the demand, so without this the stage
    /// would look as if its subscriber never asked.
    func request(emptySubscriptionOf node: NodeID, demand: Subscribers.Demand) {
        let time = eventTicks()
        withState { st in
            guard st.stages.isLive(node) else { return }
            _ = st.append(RawEvent(kind: .request, node: node, time: time, demand: demand.wire))
        }
    }

    func request(subscription: CombineIdentifier, demand: Subscribers.Demand) {
        let time = eventTicks()
        withState { st in
            guard let owner = st.stages.requestOwner(subscription) else { return }
            _ = st.append(RawEvent(kind: .request, node: owner, time: time, demand: demand.wire))
        }
    }

    /// Records a cancel caused by `context` (the cancel or delivery it happens inside);
    /// returns its number, 0 when it was not recorded (unknown, or cancelled already).
    func cancel(subscription: CombineIdentifier, cause: CancelCause, context: ThreadFrames.Cause,
                thread: UInt32) -> EventID {
        let time = eventTicks()
        return withState { st in
            guard let shared = st.stages.cancel(subscription, links: &st.links) else { return 0 }
            var event = RawEvent(kind: .cancelled, node: shared.owner, time: time, cause: cause)
            event.causedBy = context.event
            event.thread = thread
            let id = st.ring.nextID
            return st.append(event) ? id : 0
        }
    }

    /// Records a value for the stage whose subscriber is `subscriber`; returns the stage.
    ///
    /// The value is never stored: a scalar is copied as data, and a description, when
    /// the policy asks for one, is made here on the delivering thread with the lock
    /// released, then attached to the event already in the buffer. `paused`: the gate is
    /// closed (the user is stepping), so every value is described.
    /// `context` is the thread's innermost delivery or cancel (what the value happens
    /// inside), `thread` its ``ThreadDirectory`` number. Returns the stage and the
    /// value's number.
    func value<Value>(subscriber: StageKey, _ value: Value, paused: Bool, context: ThreadFrames.Cause,
                      thread: UInt32) -> Delivered? {
        let time = eventTicks()
        let scalar = Scalar(value)
        let isString = Value.self == String.self
        var position: UInt64 = 0
        let (delivered, describe) = withState { st -> (Delivered?, Bool) in
            guard let stage = st.stages.delivery(subscriber) else { return (nil, false) }
            var event = RawEvent(kind: .value, node: stage.node, time: time)
            event.causedBy = st.cause(of: stage, context)
            event.thread = thread
            let id = st.ring.nextID
            let appended: Bool
            var describe = false
            switch st.capture.decide(node: stage.node, described: stage.described,
                                     isScalar: scalar != nil || isString, paused: paused) {
            case .bare:
                appended = st.append(event)
            case .scalar:
                if let scalar {
                    event.setScalar(scalar)
                    appended = st.append(event)
                } else {
                    appended = st.append(event, text: unsafeBitCast(value, to: String.self), as: .string)
                }
            case .describe:
                st.stages.markDescribed(subscriber, window: st.capture.window)
                position = st.ring.appended
                appended = st.append(event)
                describe = appended
            }
            guard appended else { return (Delivered(stage: stage, event: 0, time: time), false) }
            st.delivered(id, by: stage)
            return (Delivered(stage: stage, event: id, time: time), describe)
        }
        if describe {
            let text = ValueCapture.describe(value)
            // If a drain took the event in between, the text is let go here, outside the
            // lock (it is only a String); the stage's next value is described instead.
            _ = withState { $0.ring.setText(text, at: position) }
        }
        return delivered
    }

    /// Records how long values' deliveries took: on each value, or as a
    /// ``EventKind/delivered`` event when the value has gone out already. One lock for a
    /// thread's outermost delivery and everything nested in it (``ThreadFrames``).
    func record(_ timings: UnsafeBufferPointer<ThreadFrames.Timing>, thread: UInt32) {
        withState { st in
            // The clock is read only for a late one: a read is about 12 ns (rdtsc on the
            // AMD EPYC machine the benchmarks run on), as much as the lock.
            var time: Int64?
            for t in timings where !st.ring.setTiming(of: t.event, selfTicks: t.selfTicks, totalTicks: t.totalTicks) {
                let now = time ?? eventTicks()
                time = now
                var late = RawEvent(kind: .delivered, node: t.node, time: now)
                late.causedBy = t.event
                late.thread = thread
                late.selfTicks = t.selfTicks
                late.totalTicks = t.totalTicks
                _ = st.append(late)
            }
        }
    }

    /// Records the demand a subscriber returned from `receive(_:)`, when there is any.
    func demand(node: NodeID, _ demand: Subscribers.Demand) {
        guard demand != .none else { return }
        let time = eventTicks()
        withState { st in
            _ = st.append(RawEvent(kind: .demand, node: node, time: time, demand: demand.wire))
        }
    }

    /// Records a completion: a failure when `failure` (its error's description, made by
    /// the caller on the delivering thread) is given, else finished.
    func completion(subscriber: StageKey, failure text: String?, context: ThreadFrames.Cause,
                    thread: UInt32) -> Delivered? {
        let time = eventTicks()
        var event = RawEvent(kind: text == nil ? .finished : .failed, node: 0, time: time)
        event.thread = thread
        return withState { st in
            // Its stage is retired below: its slot there loads while the event is made.
            st.stages.prefetchRetired(subscriber)
            guard let stage = st.stages.delivery(subscriber) else { return nil }
            event.node = stage.node
            event.causedBy = st.cause(of: stage, context)
            let id = st.ring.nextID
            let appended = if let text { st.append(event, text: text) } else { st.append(event) }
            if appended, stage.ownerCauses == .inOrder { st.delivered(id, by: stage) }
            st.stages.retire(stage.node, links: &st.links)
            return Delivered(stage: stage, event: appended ? id : 0, time: time)
        }
    }

    static let emptySubscription = Subscriptions.empty.combineIdentifier
}

extension Subscribers.Demand {
    /// -1 for unlimited, as on the wire.
    var wire: Int64 { max.map { Int64($0) } ?? -1 }
}
