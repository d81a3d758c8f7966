@preconcurrency import OpenCombine
import PipescopeGraph

/// What the inspector and Pipescope's own threads ask of the registry: cancelling a stage,
/// the capture policy, owners, tasks and contracts, and the flush's drain. Same lock, same
/// rules as the hot path (``StageRegistry``).
extension StageRegistry {
    // MARK: - Commands

    /// What cancelling a stage from the inspector will touch.
    package enum CancelTarget {
        /// The subscription to cancel, the stage that owns it, every stage sharing it, and
        /// the cancel's number (the cancels it sets off upstream are caused by it).
        case subscription(any Subscription, owner: NodeID, stages: [NodeID], event: EventID)
        case ended
        case unknown
        /// A value-type subscription: nothing to hold on to and call.
        case notCancellable
    }

    /// Records an inspector cancel of the stage's subscription, then returns the
    /// subscription so the caller can cancel it outside the lock. Cancelling a raw
    /// subscription fires no hook, so this records it; the cancels it sets off
    /// upstream fire hooks as usual.
    package func cancelFromInspector(node: NodeID) -> CancelTarget {
        let time = eventTicks()
        let issued = nextNode.load(ordering: .relaxed)
        // The object, retained only if alive, is let go after the lock in every case (its
        // last reference could be this one, and its deinit is user code).
        var retained: AnyObject?
        defer { retained = nil }
        return withState { st in
            guard st.stages.isLive(node) else { return node < issued ? .ended : .unknown }
            guard let target = st.stages.cancelTarget(node) else { return .ended }
            retained = target.shared.hold?.strong()
            guard let subscription = retained as? any Subscription else { return .notCancellable }
            _ = st.stages.cancel(target.id, links: &st.links)
            let id = st.ring.nextID
            let recorded = st.append(RawEvent(kind: .cancelled, node: target.shared.owner, time: time, cause: .inspector))
            return .subscription(subscription, owner: target.shared.owner, stages: target.shared.stages,
                                 event: recorded ? id : 0)
        }
    }

    package func setHalfFullHandler(_ handler: (@Sendable () -> Void)?) {
        // The old handler is released after the lock (it may hold an event loop).
        let old = state.withLockedValue { st -> (@Sendable () -> Void)? in
            defer { st.onHalfFull = handler }
            return st.onHalfFull
        }
        _ = old
    }

    /// `enabled`: any value text at all. `watched`: stages whose every value is described.
    package func setCapture(enabled: Bool, watched nodes: Set<NodeID>) {
        state.withLockedValue { st in
            st.capture.enabled = enabled
            st.capture.watched = nodes
        }
    }

    /// The stages whose every value is described now.
    var watchedStages: Set<NodeID> { state.withLockedValue { $0.capture.watched } }

    /// Back to sampling for every stage (the inspectors that watched them have gone).
    package func unwatchAll() {
        state.withLockedValue { $0.capture.watched = [] }
    }

    // MARK: - Lifecycle: owners, tasks, contracts

    /// Records an event made outside OpenCombine's callbacks (owners, tasks, contracts),
    /// with its words if it has any.
    package func record(_ event: RawEvent, text: String? = nil) {
        withState { st in
            if let text { _ = st.append(event, text: text) } else { _ = st.append(event) }
        }
    }

    /// The stages among `nodes` that have not ended.
    package func live(_ nodes: [NodeID]) -> [NodeID] {
        state.withLockedValue { st in nodes.filter { st.stages.isLive($0) } }
    }

    /// A stage that is not an OpenCombine subscription (a task), active at once.
    func startSynthetic(key: StageKey, stack: UnsafeBufferPointer<UInt> = .init(start: nil, count: 0),
                        stage: NewStage) -> NodeID {
        let id = nextNode.add(1, ordering: .relaxed).oldValue
        let time = eventTicks()
        withState { st in
            st.stages.insertSynthetic(id, key: key)
            _ = st.ring.append(RawEvent(kind: .subscribe, node: id, time: time), stage: stage, stack: stack,
                               halfFull: &st.halfFullPending)
            _ = st.append(RawEvent(kind: .subscription, node: id, time: time, other: id))
        }
        return id
    }

    /// Ends a synthetic stage with `kind` (finished or cancelled by `cause`); a stage
    /// that already ended is left alone.
    func endSynthetic(_ node: NodeID, _ kind: EventKind, cause: CancelCause? = nil) {
        let time = eventTicks()
        withState { st in
            guard st.stages.removeSynthetic(node) else { return }
            _ = st.append(RawEvent(kind: kind, node: node, time: time, cause: cause))
        }
    }

    // MARK: - Flush side

    /// Takes everything buffered so far and opens a new value window. Returns the events
    /// (with their texts and node infos) and the total dropped since the start. Hand the
    /// buffers back with ``recycle(_:)``.
    package func drain() -> (buffers: EventRing.Buffers, dropped: UInt64) {
        state.withLockedValue { st in
            st.capture.window &+= 1
            if st.capture.window == 0 { st.capture.window = 1 }
            return (st.ring.drain(), st.ring.dropped)
        }
    }

    /// Takes back drained buffers, so the next drain need not allocate. What they hold
    /// is released here, before the lock is taken.
    package func recycle(_ buffers: consuming EventRing.Buffers) {
        buffers.removeAll()
        state.withLockedValue { $0.ring.recycle(&buffers) }
    }

    /// Stages the tap still maps (not yet ended). For tests and the memory report.
    package var liveStageCount: Int { state.withLockedValue { $0.stages.liveCount } }
}
