@preconcurrency import OpenCombine
import PipescopeGraph

/// The `_Introspection` handler: turns OpenCombine's hook callbacks into stage events.
///
/// Each callback reads the thread's frame stack, makes one ``StageRegistry`` call and
/// pushes or pops a frame. No value or error outlives its callback: the registry turns
/// it into text (or a copied scalar) on this thread, by ``ValueCapture``'s policy.
package final class Tap: _Introspection, @unchecked Sendable {
    package let registry: StageRegistry
    let gate: Gate
    private let typeNames = TypeNames()
    /// ``ThreadFrames``' slot, kept here so the value path does not go through the lazy
    /// global each time.
    private let frameKey = ThreadFrames.key
    /// Tests: called on the subscribing thread right after a call stack was captured,
    /// before the registry is called (to check that its lock is free there).
    var afterCapture: (@Sendable () -> Void)?

    package init(registry: StageRegistry, gate: Gate) {
        self.registry = registry
        self.gate = gate
        OwnerRelease.calibrateNow()
    }

    // MARK: - Subscribe

    package func willReceive<Upstream: Publisher, Downstream: Subscriber>(
        publisher: Upstream, subscriber: Downstream
    ) where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        // Every callback reaches the thread's frames with `with(key:)`: no retain and
        // release of them (two atomics) per callback, as `ThreadFrames.current` costs.
        ThreadFrames.with(key: frameKey) { subscribe(publisher, by: subscriber, frames: $0) }
    }

    @inline(__always)
    private func subscribe<Upstream: Publisher, Downstream: Subscriber>(
        _ publisher: Upstream, by subscriber: Downstream, frames: ThreadFrames
    ) where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        var key = StageKey(subscriber)
        var parent: NodeID?
        var forwarder: NodeID?
        var madeFor: EventID = 0
        // Where it was made is worth a stack walk for a new pipeline and for an inner
        // publisher subscribed while delivering; a stage subscribed inside its
        // downstream's subscribe is where that one is.
        var locate = registry.capturesLocations
        var inner = false
        switch frames.top {
        case .subscribing(let node, let outer)?:
            locate = false
            parent = node
            // OpenCombine hands a re-subscribed subscriber to the hook wrapped in an
            // AnySubscriber: same identity, but later callbacks use the original type.
            if outer.id == key.id {
                forwarder = node
                key = outer
            }
        case .delivering(let delivery)?:
            // An inner publisher (flatMap, switchToLatest, catch, retry), or a pipeline a
            // sink's closure builds: made for the event being delivered.
            parent = delivery.owner
            madeFor = delivery.event
            inner = parent != nil
        case .unknown?, .cancelling?, nil:
            parent = nil
        }
        // What the types say is worked out once per pair of types. OpenCombine's
        // subscribers describe themselves briefly ("Sink", "Map"); other subscribers are
        // named by their type, never dumped field by field.
        let types = typeNames.subscribe(Upstream.self, Downstream.self, cache: frames.typeFacts)
        // A stage named with pipescopeName/pipescopeExpect shows its name, over the type
        // of the publisher it wraps. (Only the label and the names leave this branch: no
        // existential is kept for the common, unlabelled stage.)
        var named: NewStage.Named?
        var causes = types.publisher.causes
        if types.isLabelled, let labelled = publisher as? PipescopeLabelled {
            named = NewStage.Named(operatorName: labelled.pipescopeLabel,
                                   publisherType: typeNames.names(of: labelled.pipescopeUpstreamType).full)
            causes = .inline
        }
        // What its node info is made of; the flush makes the node info. Its creation
        // time is its subscribe event's, filled in there too: no clock read here.
        var stage: NewStage? = NewStage(parent: parent, facts: types, named: named,
                                        subscriber: types.ownDescription(of: subscriber), thread: frames.number,
                                        madeFor: madeFor, inner: inner)
        // Which publisher it is, from one word of its memory; whether an AnyPublisher
        // erases a subject, once per box class.
        let identity = types.identity.read(publisher)
        stage!.publisher = identity.id
        // Which test block made a new pipeline: one task-local read, for roots only (the
        // stages under a root are its pipeline's; an inner publisher's, whose delivery may
        // run on any thread, is its outer pipeline's).
        if parent == nil { stage!.scope = FindingScope.current }
        stage!.subjectSource = types.publishesSubject
            || (identity.boxClass != 0 && typeNames.erasesSubject(boxClass: identity.boxClass, cache: frames.typeFacts))
        let request = StageRegistry.Subscribe(
            key: key, parent: parent, forwarder: forwarder,
            publishes: types.publishesSubject ? SubjectIdentity.subject(publisher) : nil,
            feeds: types.feedsSubject ? SubjectIdentity.subject(fedBy: subscriber) : nil,
            causes: causes, publisherObject: identity.object)
        // The stack is walked and the closures' addresses read here, before the registry
        // takes its lock; it only copies them.
        let node = CallStack.withAddresses(enabled: locate, frames: frames) { stack in
            if locate { afterCapture?() }
            return Self.withCode(publisher, subscriber, types: types, root: parent == nil,
                                 enabled: registry.capturesLocations) { code in
                registry.subscribe(request, stack: stack, code: code, stage: stage.take()!)
            }
        }
        if parent == nil { frames.noteRoot(node) }
        frames.push(.subscribing(node: node, subscriber: key))
    }

    /// Runs `body` with the code words of the publisher's type (when it is the
    /// program's, ``ProgramType``) and closures, then, for a root, the subscriber's
    /// (``CodeFields``), in a buffer on this stack: a few loads, no call into the program,
    /// no retain. Empty when neither type is the program's or keeps a closure.
    @inline(__always)
    private static func withCode<P, S, R>(_ publisher: P, _ subscriber: S, types: TypeNames.Subscribe, root: Bool,
                                          enabled: Bool, _ body: (UnsafeBufferPointer<UInt>) -> R) -> R {
        let own = types.publisherCode, sink = root ? types.subscriberCode : .none
        let sinkType = root ? types.subscriberType : 0
        guard enabled, !own.offsets.isEmpty || !sink.offsets.isEmpty || types.publisherType != 0 || sinkType != 0 else {
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        let capacity = (2 * CodeFields.maxFields + 3) * CodeFields.wordsPerField
        return withUnsafeTemporaryAllocation(of: UInt.self, capacity: capacity) {
            let out = $0.baseAddress!
            var n = 0
            if types.publisherType != 0 {
                out[0] = CodeFields.publisherTypeMarker
                out[1] = types.publisherType
                n = 2
            }
            n += withUnsafePointer(to: publisher) { own.read(UnsafeRawPointer($0), into: out + n) }
            if !sink.offsets.isEmpty || sinkType != 0 {
                // The sink's code follows the marker: it is the code only when the
                // publisher's own is none (``CodeFields/sinkMarker``).
                out[n] = 0
                out[n + 1] = CodeFields.sinkMarker
                n += 2
                if sinkType != 0 {
                    out[n] = CodeFields.subscriberTypeMarker
                    out[n + 1] = sinkType
                    n += 2
                }
                n += withUnsafePointer(to: subscriber) { sink.read(UnsafeRawPointer($0), into: out + n) }
            }
            return body(UnsafeBufferPointer(start: out, count: n))
        }
    }

    package func didReceive<Upstream: Publisher, Downstream: Subscriber>(
        publisher: Upstream, subscriber: Downstream
    ) where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        ThreadFrames.with(key: frameKey) { $0.pop() }
    }

    // MARK: - Subscription, request, cancel

    package func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {
        guard let empty = registry.receive(subscription: subscription, subscriber: StageKey(subscriber)) else { return }
        ThreadFrames.with(key: frameKey) { $0.receivingEmpty = empty }
    }

    package func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: any Subscription) {
        guard subscription.combineIdentifier == StageRegistry.emptySubscription else { return }
        ThreadFrames.with(key: frameKey) { $0.receivingEmpty = 0 }
    }

    package func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {
        let id = subscription.combineIdentifier
        guard id == StageRegistry.emptySubscription else {
            registry.request(subscription: id, demand: demand)
            return
        }
        // Shared by every stage given it: the stage receiving it on this thread asked.
        let node = ThreadFrames.with(key: frameKey) { $0.receivingEmpty }
        if node != 0 { registry.request(emptySubscriptionOf: node, demand: demand) }
    }

    /// The outermost cancel on a thread says who started it: an owner releasing its
    /// AnyCancellable, or a downstream asking. The cancels it sets off upstream are
    /// each by their downstream.
    package func willCancel(subscription: any Subscription) {
        ThreadFrames.with(key: frameKey) { cancel(subscription, frames: $0) }
    }

    @inline(__always)
    private func cancel(_ subscription: any Subscription, frames: ThreadFrames) {
        let byOwner = !frames.isCancelling && (frames.releasingOwner > 0 || OwnerRelease.isReleasingOwner(frames: frames))
        let cause: CancelCause = byOwner ? .owner : .downstream
        let context = frames.cause
        let event = registry.cancel(subscription: subscription.combineIdentifier, cause: cause, context: context,
                                    thread: frames.number)
        // A cancel that was not recorded (cancelled already) passes its own cause on.
        frames.push(.cancelling(event: event != 0 ? event : context.event))
    }

    package func didCancel(subscription: any Subscription) {
        ThreadFrames.with(key: frameKey) { $0.pop() }
    }

    // MARK: - Values and completions

    /// Records the value with its cause (``ThreadFrames/cause``) and starts timing its
    /// delivery: the subscriber's code runs between this and `didReceive`.
    package func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        let key = StageKey(subscriber)
        ThreadFrames.with(key: frameKey) { frames in
            frames.blocked &+= gate.pass(node: registry.node(of: key), kind: .value, thread: frames.label)
            if let delivered = registry.value(subscriber: key, input, paused: gate.isPaused, context: frames.cause,
                                              thread: frames.number) {
                frames.beginDelivery(node: delivered.stage.node, owner: delivered.stage.owner, event: delivered.event,
                                     start: delivered.time)
            } else {
                frames.push(.unknown)
            }
        }
    }

    package func didReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input,
                                            resultingDemand: Subscribers.Demand) {
        ThreadFrames.with(key: frameKey) { frames in
            let node: NodeID? = if case .delivering(let d)? = frames.top { d.node } else { nil }
            let due = frames.endDelivery()
            if resultingDemand != .none, let node { registry.demand(node: node, resultingDemand) }
            if due { frames.takeTimings { registry.record($0, thread: frames.number) } }
        }
    }

    package func willReceive<Downstream: Subscriber>(subscriber: Downstream,
                                             completion: Subscribers.Completion<Downstream.Failure>) {
        // A failure's error is described here, on the delivering thread, and not kept.
        // Looking into a `Completion<Failure>` needs its generic metadata (a hashed
        // lookup in the runtime, a few hundred instructions, which the compiler hoists to
        // wherever the completion is in reach); a pipeline that cannot fail has only
        // `.finished`, so the completion goes no further than this line.
        let failure = Downstream.Failure.self == Never.self ? nil : Self.failureText(of: completion)
        let key = StageKey(subscriber)
        ThreadFrames.with(key: frameKey) { complete(key, failure: failure, frames: $0) }
    }

    /// The description of a failure's error; nil for `.finished`.
    @inline(never)
    private static func failureText<Failure: Error>(of completion: Subscribers.Completion<Failure>) -> String? {
        guard case .failure(let error) = completion else { return nil }
        return ValueCapture.describe(error)
    }

    @inline(__always)
    private func complete(_ key: StageKey, failure text: String?, frames: ThreadFrames) {
        frames.blocked &+= gate.pass(node: registry.node(of: key), kind: text != nil ? .failed : .finished,
                                     thread: frames.label)
        if let delivered = registry.completion(subscriber: key, failure: text, context: frames.cause,
                                               thread: frames.number) {
            frames.beginDelivery(node: delivered.stage.node, owner: delivered.stage.owner, event: delivered.event,
                                 start: delivered.time)
        } else {
            frames.push(.unknown)
        }
    }

    /// A completion's time counts as its downstream's, not its upstream's own code; it is
    /// not recorded by itself.
    package func didReceive<Downstream: Subscriber>(subscriber: Downstream,
                                            completion: Subscribers.Completion<Downstream.Failure>) {
        ThreadFrames.with(key: frameKey) { frames in
            if frames.endDelivery(keep: false) { frames.takeTimings { registry.record($0, thread: frames.number) } }
        }
    }
}
