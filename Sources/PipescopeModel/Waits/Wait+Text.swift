import PipescopeGraph

/// A wait in words: a few for the WAIT column and the tree, a sentence for the detail
/// pane and `explain`, and the `stalled` lint's message with what to do.
///
/// ```swift
/// wait.cell(in: graph, now: now)                 // "waits ↑ Future 41s"
/// wait.sentence(of: map, in: graph, now: now)    // "waits 41s for #3 Future (main.swift:41) upstream to send a value"
/// ```
extension Wait {
    /// `waits ↑ Future 41s`, `held: demand 0 12s`, `no subscription 3s`.
    public func cell(in graph: Graph, now: Int64) -> String {
        cell(holder: graph[at]?.operatorName ?? "#\(at)", now: now)
    }

    /// The same, given the holding stage's operator name.
    public func cell(holder: String, now: Int64) -> String {
        let age = CellText.age(nanos(at: now))
        switch reason {
        case .upstream: return "waits ↑ \(holder) \(age)"
        case .demand: return "held: demand 0 \(age)"
        case .subscription: return "no subscription \(age)"
        }
    }

    /// The tree's words beside the `‖` mark: `waits 41s`, `held 12s`, `no sub 3s`.
    public func mark(now: Int64) -> String {
        let age = CellText.age(nanos(at: now))
        switch reason {
        case .upstream: return "waits \(age)"
        case .demand: return "held \(age)"
        case .subscription: return "no sub \(age)"
        }
    }

    /// Stage `stage`'s wait as a sentence:
    /// - `waits 41s for #3 Future (main.swift:41) upstream to send a value`
    /// - `waits 41s: demand is outstanding and it sends nothing`
    /// - `held 12s: its subscriber Sink has no outstanding demand (last request .max(1))`
    /// - `no subscription after 3s from #4 Silent (main.swift:9) upstream`
    /// A wait through a combiner adds which input it waits on (``CombinerWait``):
    /// `waits 41s for #9 Future upstream to send a value; #7 Zip waits on its 2nd input
    /// (#9 Future): 2 values from #5, 0 from #9`.
    public func sentence(of stage: NodeID, in graph: Graph, now: Int64) -> String {
        let age = CellText.age(nanos(at: now))
        let zip = combiner(of: stage, in: graph).map { "; " + $0.text(in: graph) } ?? ""
        switch reason {
        case .upstream:
            return (at == stage
                ? "waits \(age): demand is outstanding and it sends nothing"
                : "waits \(age) for \(Self.name(at, in: graph)) upstream to send a value") + zip
        case .demand:
            return "held \(age): its subscriber \(Self.subscriber(of: stage, in: graph)) has no outstanding demand"
                + " (\(lastRequest.map { "last request \(Self.call($0))" } ?? "it never requested any"))"
        case .subscription:
            return (at == stage
                ? "no subscription after \(age): it was subscribed to and never sent one"
                : "no subscription after \(age) from \(Self.name(at, in: graph)) upstream") + zip
        }
    }

    /// The combiner (`zip`) a wait of stage `stage` on its upstream passes through, nearest
    /// the stage holding it; nil on demand (the subscriber holds it, not an input).
    public func combiner(of stage: NodeID, in graph: Graph) -> CombinerWait? {
        reason == .demand ? nil : CombinerWait.on(path: at, upTo: stage, in: graph)
    }

    /// The `stalled` lint's message for a pipeline `root` waiting with this verdict: the
    /// stage holding the wait, where it was made, why and for how long, and what to do.
    public func lintMessage(pipeline root: NodeID, in graph: Graph, now: Int64) -> String {
        let age = CellText.age(nanos(at: now))
        let holder = Self.name(at, in: graph)
        let zip = combiner(of: root, in: graph).map { $0.text(in: graph) + ". " } ?? ""
        switch reason {
        case .upstream:
            return "\(holder) has sent nothing for \(age) while pipeline #\(root) has demand outstanding. " + zip
                + "Make it send (fulfil the promise, send to the subject, start the timer), or cancel the pipeline."
        case .demand:
            // A pipeline's verdict is its root's: held on demand, `at` is the root and
            // the subscriber holding it back is the root's own (the sink).
            // `holder` may end with its location in parentheses: the request follows after a semicolon.
            let request = lastRequest.map { "its last request was \(Self.call($0))" } ?? "it never requested any"
            return "held \(age) by subscriber \(Self.subscriber(of: root, in: graph)), which has no outstanding demand "
                + "on \(holder); \(request). It must request more: return a demand from receive(_:), or call request(_:)."
        case .subscription:
            return "\(holder) has not sent a subscription in \(age): nothing can flow. " + zip
                + "A custom publisher must call receive(subscription:) on its subscriber."
        }
    }

    // MARK: - Parts

    /// `#3 Future (main.swift:41)`: the stage, and where it was made when known.
    public static func name(_ id: NodeID, in graph: Graph) -> String {
        let operatorName = graph[id]?.operatorName ?? "?"
        let location = graph.location(of: id).map { " (\($0.location.short))" } ?? ""
        return "#\(id) \(operatorName)\(location)"
    }

    /// Who subscribes to stage `id`: its parent's operator (`#2 Map`), or for a root its
    /// subscriber's description (`Sink`).
    static func subscriber(of id: NodeID, in graph: Graph) -> String {
        guard let node = graph[id] else { return "?" }
        guard let parent = node.parent, let p = graph[parent] else { return node.subscriber }
        return "#\(parent) \(p.operatorName)"
    }

    /// `.max(1)`, `.unlimited`, `.none`: a demand as the call that asked for it.
    public static func call(_ demand: Demand) -> String {
        switch demand {
        case .unlimited: return ".unlimited"
        case .count(0): return ".none"
        case .count(let n): return ".max(\(n))"
        }
    }
}
