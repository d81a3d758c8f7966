import PipescopeGraph

/// Where a value came from: an event and the events it happened because of, back to
/// its origin, newest first.
///
/// Each event records its cause (``StageEvent/causedBy``): the delivery it ran inside on
/// its thread, or the input an asynchronous operator (receive(on:), debounce…) received.
/// The chain follows those numbers back through the history (a binary search each:
/// numbers increase with position), then through the probe's recent causes for what is
/// older than the history (``History/earlier``), and says how it ends
/// (``CauseChainEnd``): never silently short.
///
/// ```swift
/// // subject.map { $0 * 2 }.filter { … }.sink { … }; subject.send(23)
/// let chain = CauseChain.lastValue(of: filter, upTo: nil, in: history, graph: graph)!
/// chain.hops.map(\.operatorName)   // ["Filter", "Map", "PassthroughSubject"]
/// chain.end                        // .origin
/// CauseChainText.line(chain)       // "Sink got 46 ← Filter 46 ← Map 23→46 ← PassthroughSubject sent 23 on main"
/// ```
public struct CauseChain: Equatable, Sendable {
    /// The event asked about first, then its cause, its cause's cause…
    public var hops: [CauseHop]
    public var end: CauseChainEnd

    /// The most hops a chain follows (a guard: causes always point back, so a chain ends).
    public static let maximumHops = 10_000

    public init(hops: [CauseHop], end: CauseChainEnd) {
        self.hops = hops
        self.end = end
    }

    // MARK: - Building

    /// The chain of the event at history `position`; nil when there is none.
    public static func at(_ position: Int, in history: History, graph: Graph) -> CauseChain? {
        guard let event = history.event(at: position) else { return nil }
        return from(event, position: position, in: history, graph: graph)
    }

    /// The chain of stage `stage`'s last value up to `position` (nil: the newest), looked
    /// for in the history and then in the probe's recent causes; nil when it has none.
    public static func lastValue(of stage: NodeID, upTo position: Int?, in history: History,
                                 graph: Graph) -> CauseChain? {
        var p = min(position ?? history.end, history.end)
        while p > history.start {
            if let event = history.event(at: p), event.node == stage, event.kind == .value {
                return from(event, position: p, in: history, graph: graph)
            }
            p -= 1
        }
        let before = history.firstID ?? .max
        guard let event = history.earlier.last(where: { $0.node == stage && $0.kind == .value && $0.id < before })
        else { return nil }
        return from(event, position: nil, in: history, graph: graph)
    }

    /// The chain of `event` (found at history `position`, or nil when it came from the
    /// probe's recent causes).
    public static func from(_ event: StageEvent, position: Int?, in history: History, graph: Graph) -> CauseChain {
        let names = Names(history: history, graph: graph)
        var hops = [hop(event, position: position, history: history, names: names)]
        guard event.kind.payload.caused else { return CauseChain(hops: hops, end: .kindHasNoCause) }
        guard event.id != 0 else { return CauseChain(hops: hops, end: .notRecorded) }
        var current = event
        var currentPosition = position
        while hops.count < maximumHops {
            var causedBy = current.causedBy
            if causedBy == 0 {
                if let p = currentPosition, history.causeIsTooFar(at: p) {
                    return CauseChain(hops: hops, end: .tooFarBack)
                }
                // An inner publisher's value with no delivery around it (a Future
                // fulfilled later, on another thread): on through the value it was made for.
                guard let made = madeFor(current, names: names) else { return CauseChain(hops: hops, end: .origin) }
                hops[hops.count - 1].madeFor = made
                causedBy = made.event
            }
            guard let (p, cause) = history.event(numbered: causedBy) else {
                return CauseChain(hops: hops, end: .earlierThanHistory(causedBy))
            }
            hops.append(hop(cause, position: p, history: history, names: names))
            current = cause
            currentPosition = p
        }
        return CauseChain(hops: hops, end: .earlierThanHistory(current.causedBy))
    }

    /// What `event`, which recorded no cause, came from instead: the event its inner
    /// publisher was made for (``NodeInfo/madeFor``), found on its stage or the nearest
    /// stage downstream that has one (the inner publisher's downstream end: `Future.map`
    /// records it on the Map). Nil for a cancel (its origin is whoever cancelled), for a
    /// subject's value (the program sent it), and for a stage made for nothing.
    private static func madeFor(_ event: StageEvent, names: Names) -> CauseHop.MadeFor? {
        guard event.kind == .value || event.kind == .finished || event.kind == .failed,
              !names.operatorName(event.node).hasSuffix("Subject") else { return nil }
        var stage: NodeID? = event.node
        var walked = 0
        while let id = stage, walked < maximumHops {
            let made = names.madeFor(id)
            if made != 0 { return CauseHop.MadeFor(stage: id, event: made) }
            stage = names.parent(of: id)
            walked += 1
        }
        return nil
    }

    /// Whether a stage named `operatorName` gathers several inputs into one output, so
    /// its output's chain lists them all: Collect, CollectByCount, CollectByTime,
    /// Reduce, TryReduce, and anything named like them.
    public static func gathers(_ operatorName: String) -> Bool {
        let name = operatorName.lowercased()
        return name.contains("collect") || name.contains("reduce")
    }

    // MARK: - One hop

    private static func hop(_ event: StageEvent, position: Int?, history: History, names: Names) -> CauseHop {
        var hop = CauseHop(
            id: event.id, position: position, stage: event.node, operatorName: names.operatorName(event.node),
            receiver: names.receiver(of: event.node), receiverStage: names.parent(of: event.node), value: event.kind == .value ? event.text : nil,
            kind: event.kind, detail: detail(of: event), thread: event.thread, time: event.time,
            location: names.graph.location(of: event.node).flatMap { $0.isInherited ? nil : $0.location.short })
        if event.kind == .value, gathers(hop.operatorName) {
            let (inputs, all) = gathered(by: event, position: position, history: history, names: names)
            hop.gathered = inputs
            hop.gatheredAll = all
        }
        return hop
    }

    private static func detail(of event: StageEvent) -> String? {
        switch event.kind {
        case .failed: return event.text
        case .cancelled: return event.cause?.rawValue
        case .unknown, .subscribe, .subscription, .request, .value, .demand, .finished, .forward, .adopt, .feeds,
             .owned, .ownerReleased, .contractBroken, .delivered:
            return nil
        }
    }

    /// The values stage `output.node`'s upstream delivered to it since its previous
    /// output (or its subscribe), oldest first, and whether that start was found (in the
    /// history, or in the probe's recent causes before it).
    private static func gathered(by output: StageEvent, position: Int?, history: History,
                                 names: Names) -> ([GatheredInput], Bool) {
        let stage = output.node
        var inputs: [GatheredInput] = []
        func input(_ e: StageEvent) -> GatheredInput {
            GatheredInput(id: e.id, stage: e.node, value: e.text, thread: e.thread, time: e.time)
        }
        if let position {
            var p = position - 1
            while p > history.start {
                guard let e = history.event(at: p) else { break }
                if e.node == stage, e.kind == .value || e.kind == .subscribe { return (inputs.reversed(), true) }
                if e.kind == .value, names.parent(of: e.node) == stage { inputs.append(input(e)) }
                p -= 1
            }
        }
        // Before the history: the probe's recent causes (values only: no subscribes).
        let before = position == nil ? output.id : (history.firstID ?? output.id)
        for e in history.earlier.reversed() where e.id < before {
            if e.node == stage, e.kind == .value { return (inputs.reversed(), true) }
            if e.kind == .value, names.parent(of: e.node) == stage { inputs.append(input(e)) }
        }
        return (inputs.reversed(), false)
    }

    /// Stage names and links from the graph on screen, else from the stage
    /// descriptions the history keeps (a stage the graph has pruned).
    private struct Names {
        let history: History
        let graph: Graph

        func operatorName(_ id: NodeID) -> String {
            graph[id]?.operatorName ?? history.info(of: id)?.operatorName ?? "#\(id)"
        }

        func madeFor(_ id: NodeID) -> EventID {
            graph[id]?.madeFor ?? history.info(of: id)?.madeFor ?? 0
        }

        func parent(of id: NodeID) -> NodeID? {
            if let node = graph[id] { return node.parent }
            return history.info(of: id)?.parent
        }

        /// The stage's downstream operator, or a root's subscriber.
        func receiver(of id: NodeID) -> String {
            if let parent = parent(of: id), parent != id { return operatorName(parent) }
            return graph[id]?.subscriber ?? history.info(of: id)?.subscriber ?? "its subscriber"
        }
    }
}
