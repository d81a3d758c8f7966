import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLocations
import PipescopeTap

/// The in-process half of Pipescope: the tap, its buffer, and the graph it feeds.
///
/// The tap records into the buffer from any thread. ``flush()`` (called by the server
/// every few milliseconds on its own thread, or directly by tests) turns the buffered
/// events into one ``EventBatch``, folds it into ``graph`` with the fold the inspector
/// uses, and returns it for sending. Value texts travel on their value events (see
/// ``ValueCapture``); copied scalars stay numbers (`EventValue`: their words are made
/// where they are shown), and the flush looks up the call stacks new
/// pipelines captured in the ``Locator``'s cache (never symbolizing: the symbol thread
/// does, and the location follows in a later batch), and runs no user code. Snapshots
/// are cut between flushes, so snapshot plus later batches never miss or repeat an event.
public final class Probe: @unchecked Sendable {
    let registry: StageRegistry
    let tap: Tap
    /// Pause and step (see ``Gate``).
    let gate: Gate
    /// The call stacks new stages captured, as locations (see ``Locator``).
    let locator = Locator()
    /// The closures new stages hold, as the places of their code (see ``CodeLocator``).
    let codeLocator = CodeLocator()
    /// Internal, not private, for tests that hold the clock's prunes back (``State/lastPrune``).
    let state = LockedBox(State())
    public let retention: Retention

    struct State {
        var graph = Graph()
        var sequence: UInt64 = 0
        /// Turns the buffered events' ticks into wall-clock time.
        var clock = TickClock()
        var lastPrune: Int64 = 0
        /// The graph's stages after the last prune (see ``shouldPrune(now:)``).
        var prunedSize = 0
        var dropped: UInt64 = 0
        /// The last caused events, and each stage's own, for snapshots (``GraphSnapshot/recent``).
        var recent = RecentCauses()
        /// Called around each fold (``FoldWatcher``).
        var foldWatcher: (any FoldWatcher)?

        /// Once a second, and whenever the graph has grown past twice its size after the
        /// last prune (and by at least 16,384 stages): a program that makes and ends
        /// pipelines fast (100,000 a second) would otherwise grow the graph by hundreds
        /// of thousands of stages between two prunes, only for the prune to drop all but
        /// the last ``Retention/maxEndedPipelines``, and every fold in between works in a
        /// table far larger than the cache. The prune walks the whole graph, so doing it
        /// after the graph doubled keeps its cost per new stage constant; the 16,384 keep
        /// the ended pipelines it retains (1,500 stages by default) from being walked
        /// again every few hundred new ones.
        func shouldPrune(now: Int64) -> Bool {
            now - lastPrune > 1_000_000_000 || graph.nodes.count > max(2 * prunedSize, prunedSize + 16_384)
        }
    }

    /// `bufferCapacity` is the events held between two flushes, and `maxBufferCapacity` how
    /// many they may grow to while the flush falls behind (a burst, or its core busy with
    /// something else): by default 8 times as many, 524,288 events or 32 MiB, beyond which
    /// events are dropped, counted by pipeline, and said where they were lost.
    /// `pauseDeadline`: seconds a pause lasts with nobody stepping before the program
    /// resumes by itself (default 60; `PIPESCOPE_PAUSE_DEADLINE`). `locations`: record
    /// where each pipeline was made (default on; `PIPESCOPE_LOCATIONS=0` turns it off).
    public init(bufferCapacity: Int = 1 << 16, maxBufferCapacity: Int? = nil, retention: Retention = .standard,
                pauseDeadline: Double = Probe.defaultPauseDeadline, locations: Bool = Probe.defaultLocations) {
        registry = StageRegistry(capacity: bufferCapacity, maxCapacity: maxBufferCapacity ?? bufferCapacity * 8,
                                 locations: locations)
        gate = Gate(deadline: pauseDeadline)
        tap = Tap(registry: registry, gate: gate)
        self.retention = retention
    }

    /// Starts seeing subscriptions made from now on (and, when it records locations,
    /// has the symbol thread read the program's symbols).
    public func enable() {
        if registry.capturesLocations { locator.warmUp() }
        tap.enable()
        ActiveTap.set(registry)
    }

    public func disable() {
        ActiveTap.clear(registry)
        tap.disable()
    }

    /// Asks for an early flush whenever the buffer is half full (the server schedules
    /// one on its event loop); nil stops asking.
    public func onBufferHalfFull(_ handler: (@Sendable () -> Void)?) {
        registry.setHalfFullHandler(handler)
    }

    /// The probe's current graph (as of the last flush).
    public var graph: Graph { state.withLockedValue { $0.graph } }

    /// Stages the tap still tracks as live. Zero once every pipeline ended.
    public var liveStageCount: Int { registry.liveStageCount }

    /// Held for a whole flush: see ``flush()``.
    private let flushing = Lock()

    /// Moves buffered events into the graph and returns them as one batch.
    ///
    /// Safe to call from several threads at once (a test's own flush beside the
    /// server's): flushes run one at a time, so batches fold in the order their events
    /// were buffered. Two overlapping flushes could otherwise fold a stage's values
    /// before the subscribe that adds it, and the graph ignores values for stages it
    /// does not know.
    @discardableResult
    public func flush() -> EventBatch {
        flushing.withLock {
            let batch = flushAlone()
            // Still under `flushing`, so observers see batches in the order they folded.
            if let observer = flushObserver.withLockedValue({ $0 }) { observer(batch) }
            return batch
        }
    }

    /// Tests: folds `batch` into the graph and shows it to the flush observer, as a flush
    /// does, for what no program can make: the metrics' cardinality test places 100,000
    /// real pipelines at 10,000 lines (a batch of ``EventBatch/locations`` only), where a
    /// source would need 10,000 call sites.
    package func fold(_ batch: EventBatch) {
        flushing.withLock {
            state.withLockedValue { $0.fold(batch) }
            if let observer = flushObserver.withLockedValue({ $0 }) { observer(batch) }
        }
    }

    /// Called after each flush, on the flushing thread (the server's, or a test's), with
    /// the batch just folded; nil stops it. What PipescopeMetrics counts from: it runs
    /// beside the flush, never on the program's threads, so the tap's cost is unchanged.
    /// The observer may read the graph (``withGraph(_:)``) but must not flush.
    ///
    /// ```swift
    /// probe.onFlush { batch in counted.add(batch.events.count) }
    /// probe.onFlush(nil)
    /// ```
    public func onFlush(_ observer: (@Sendable (EventBatch) -> Void)?) {
        flushObserver.withLockedValue { $0 = observer }
    }

    private let flushObserver = LockedBox<(@Sendable (EventBatch) -> Void)?>(nil)

    /// Reads the graph in place, under the probe's lock: no copy, where ``graph`` copies
    /// (and a copy held across the next fold makes that fold copy every stage). `body`
    /// must be short and must not flush or snapshot.
    ///
    /// ```swift
    /// let live = probe.withGraph { graph in graph.roots.filter { graph[$0]?.status == .active }.count }
    /// ```
    public func withGraph<T>(_ body: (Graph) -> T) -> T {
        state.withLockedValue { body($0.graph) }
    }

    private func flushAlone() -> EventBatch {
        let (buffers, dropped) = registry.drain()
        let anchor = state.withLockedValue { $0.clock.anchor() }
        let threads = ThreadDirectory.names
        var batch = EventBatch()
        batch.events.reserveCapacity(buffers.events.count)
        var id = buffers.firstID
        for raw in buffers.events {
            batch.events.append(raw.stageEvent(id: id, clock: anchor, buffers: buffers, threads: threads,
                                               nodes: &batch.nodes))
            id &+= 1
        }
        let lastID = id &- 1
        // Node infos reach the batch in the order they were buffered, each with its stack.
        // Only cached addresses are looked at here: the rest are symbolized on the
        // symbol thread, and their locations go out with a later flush.
        if batch.nodes.count == buffers.stageCount, !buffers.addresses.isEmpty || locator.hasPending {
            batch.locations = locator.locate(&batch.nodes) { buffers.stack(of: $0) }
        }
        if batch.nodes.count == buffers.stageCount, !buffers.codeWords.isEmpty || codeLocator.hasPending {
            batch.codes = codeLocator.place(batch.nodes.indices.map {
                CodeLocator.Stage(node: batch.nodes[$0].id, words: buffers.code(of: $0), inner: buffers.isInner($0))
            })
        }
        // A small table, copied out before the buffers go back (emptying them empties it).
        let drops = buffers.drops
        let droppedSince = drops.firstNanos(anchor)
        registry.recycle(consume buffers)
        gate.checkDeadline()
        let gate = gate.state()
        let now = wallClockNanos()
        return state.withLockedValue { state in
            // The ring numbers events; a batch's sequence is its last event's number.
            state.sequence = max(state.sequence, lastID)
            state.recent.record(batch.events, firstID: lastID &- UInt64(batch.events.count) &+ 1)
            batch.trailer = BatchTrailer(sequence: state.sequence, dropped: dropped,
                                         droppedSinceLast: dropped &- state.dropped, gate: gate)
            state.dropped = dropped
            state.fold(batch)
            if !drops.isEmpty {
                // After the fold, so that stages this batch added have their pipeline.
                let byPipeline = Self.pipelines(of: drops, in: state.graph)
                batch.trailer.droppedByPipeline = byPipeline
                batch.trailer.droppedSinceNanos = droppedSince
                state.graph.countDropped(byPipeline)
            }
            if state.shouldPrune(now: now) {
                state.lastPrune = now
                state.graph.prune(now: now, retention: retention)
                state.prunedSize = state.graph.nodes.count
                // A stage's own recent causes live as long as the stage does.
                let graph = state.graph
                state.recent.forgetStages { graph.nodes[$0] == nil }
            }
            return batch
        }
    }

    /// The events `drops` counts by stage, by the pipeline (root stage) each stage is in;
    /// 0 for stages the graph does not have (their subscribe was dropped too, or they
    /// were pruned).
    static func pipelines(of drops: DroppedEvents, in graph: Graph) -> [NodeID: UInt64] {
        var byPipeline: [NodeID: UInt64] = [:]
        for (node, n) in drops.byNode {
            byPipeline[node == 0 ? 0 : graph.pipeline(of: node) ?? 0, default: 0] &+= n
        }
        return byPipeline
    }

    /// Whether stages flushed so far still wait for the symbol thread to say where they
    /// were made or where their code is.
    package var locationsPending: Bool { locator.hasPending || codeLocator.hasPending }

    /// Waits (at most until `deadline`) for the symbol thread to finish what it was given;
    /// the next flush then carries what it found.
    package func waitForSymbols(until deadline: Date) {
        let left = deadline.timeIntervalSinceNow
        if left > 0 { SymbolThread.shared.waitUntilIdle(timeout: left) }
    }

    /// Tests: flushes until every stage flushed so far has its location (or is known to
    /// have none), or `timeout` seconds pass; whether they all settled.
    @discardableResult
    func settleLocations(timeout: Double = 60) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            flush()
            guard locator.hasPending || codeLocator.hasPending else { return true }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            SymbolThread.shared.waitUntilIdle(timeout: left)
        }
    }

    /// Whether locations are recorded unless told otherwise: yes, but for
    /// `PIPESCOPE_LOCATIONS=0` in the environment.
    public static var defaultLocations: Bool { CallStack.enabled(in: ProcessInfo.processInfo.environment) }

    /// `PIPESCOPE_PAUSE_DEADLINE` seconds, else 60; a value that is not a positive number
    /// is said on standard error once, with what is used instead.
    public static let defaultPauseDeadline: Double = {
        let (seconds, problem) = pauseDeadline(in: ProcessInfo.processInfo.environment)
        if let problem { EnvironmentNumber.say(problem) }
        return seconds
    }()

    /// How long a pause lasts at most, from `environment`, and what was wrong with it.
    static func pauseDeadline(in environment: [String: String]) -> (Double, String?) {
        EnvironmentNumber.read("PIPESCOPE_PAUSE_DEADLINE", in: environment, default: 60.0, minimum: 0, exclusive: true,
                               unit: "seconds")
    }

    /// Prunes ended stages now, as if the clock read `now` (wall-clock nanoseconds).
    /// Flushes prune once a second by themselves, and sooner when the graph has doubled.
    public func prune(now: Int64) {
        state.withLockedValue { $0.graph.prune(now: now, retention: retention) }
    }

    /// Describes every value of these stages, not only one per flush window.
    public func captureEveryValue(of nodes: Set<NodeID>) {
        registry.setCapture(enabled: true, watched: nodes)
    }

    /// Keeps no value text at all (the cheapest policy).
    public func captureNoValues() {
        registry.setCapture(enabled: false, watched: [])
    }

    /// The graph as a snapshot, cut at the last flush, saying whether stages flushed so
    /// far still wait for their locations (the locator's pending stages only change at a
    /// flush, so the two agree).
    public func snapshot() -> GraphSnapshot {
        let pending = locator.hasPending || codeLocator.hasPending
        return state.withLockedValue { state in
            var snapshot = state.graph.snapshot()
            snapshot.recent = state.recent.events
            snapshot.locationsPending = pending
            return snapshot
        }
    }
}
