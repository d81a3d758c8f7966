import PipescopeGraph

/// Which input a combining stage waits on: a `zip` sends a value once every input has
/// sent one, so an input that has sent fewer than the others holds it, however many
/// values the others send.
///
/// The counts are the values each input stage delivered to the combiner (its children,
/// in the order they subscribed: the order of the inputs in `a.zip(b, c)`), so the side
/// that keeps it waiting is the one with the fewest.
///
/// ```swift
/// let zip = CombinerWait.on(path: future, upTo: sink, in: graph)!
/// zip.text(in: graph)   // "#7 Zip waits on its 2nd input (#9 Future): 2 values from #5, 0 from #9"
/// ```
public struct CombinerWait: Hashable, Sendable {
    /// One input: its stage and how many values it delivered to the combiner.
    public struct Input: Hashable, Sendable {
        public var stage: NodeID
        public var values: Int
    }

    /// The combining stage.
    public var stage: NodeID
    public var operatorName: String
    /// Its inputs, in subscription order.
    public var inputs: [Input]
    /// The positions in ``inputs`` it waits on: those that sent the fewest values (every
    /// input when all sent as many: it waits for the next value of each).
    public var waitingOn: [Int]

    /// The operators that send only once each input has sent a value (OpenCombine 0.14
    /// has no `combineLatest` and no `merge`, which wait on no one input).
    public static let operators: Set<String> = ["Zip", "Zip3", "Zip4"]

    /// Stage `id`'s combiner wait, when it is a combiner with two inputs or more.
    public static func of(_ id: NodeID, in graph: Graph) -> CombinerWait? {
        guard let node = graph[id], operators.contains(node.operatorName), node.children.count >= 2 else { return nil }
        let inputs = node.children.map { Input(stage: $0, values: graph[$0]?.values ?? 0) }
        let fewest = inputs.map(\.values).min() ?? 0
        let waiting = inputs.indices.filter { inputs[$0].values == fewest }
        return CombinerWait(stage: id, operatorName: node.operatorName, inputs: inputs, waitingOn: waiting)
    }

    /// The combiner nearest to `holder` on the way from it downstream to `stage`
    /// (inclusive): the one a wait held at `holder` passes through. Nil when none is.
    public static func on(path holder: NodeID, upTo stage: NodeID, in graph: Graph) -> CombinerWait? {
        var current = holder
        // Bounded by the graph's size, as ``Graph/location(of:)``'s walk.
        for _ in 0...graph.nodes.count {
            if let found = of(current, in: graph) { return found }
            guard current != stage, let parent = graph[current]?.parent, parent != current else { return nil }
            current = parent
        }
        return nil
    }

    /// `#7 Zip waits on its 2nd input (#9 Future): 2 values from #5, 0 from #9`; when every
    /// input sent as many: `#7 Zip waits on every input for its next value: 1 value from #5,
    /// 1 from #9`.
    public func text(in graph: Graph) -> String {
        let which: String
        if waitingOn.count == inputs.count {
            which = "every input for its next value"
        } else {
            let names = waitingOn.map { i in
                "\(Self.ordinal(i + 1)) input (#\(inputs[i].stage) \(graph[inputs[i].stage]?.operatorName ?? "?"))"
            }
            which = "its " + names.joined(separator: " and its ")
        }
        let counts = inputs.enumerated().map { i, input in
            "\(input.values)\(i == 0 ? (input.values == 1 ? " value" : " values") : "") from #\(input.stage)"
        }
        return "#\(stage) \(operatorName) waits on \(which): " + counts.joined(separator: ", ")
    }

    /// 1st, 2nd, 3rd, 4th.
    static func ordinal(_ n: Int) -> String {
        switch n {
        case 1: return "1st"
        case 2: return "2nd"
        case 3: return "3rd"
        default: return "\(n)th"
        }
    }
}
