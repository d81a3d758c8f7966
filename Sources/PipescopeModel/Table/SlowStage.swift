import PipescopeGraph

/// The costliest code in a pipeline: whose it is and its p50 per value.
public struct SlowStage: Hashable, Sendable {
    /// The stage whose operator it is (for a sink, the root).
    public var node: NodeID
    /// The operator, or the sink's description ("Sink").
    public var name: String
    public var p50: Int64

    public init(node: NodeID, name: String, p50: Int64) {
        self.node = node
        self.name = name
        self.p50 = p50
    }

    /// The slower of the two, by p50.
    static func slower(_ a: SlowStage?, _ b: SlowStage?) -> SlowStage? {
        guard let a else { return b }
        guard let b else { return a }
        return b.p50 > a.p50 ? b : a
    }

    /// A stage's own operator and (a root's) sink, whichever costs more.
    static func of(_ node: NodeSummary) -> SlowStage? {
        guard let times = node.times else { return nil }
        let own = times.own.count > 0 ? SlowStage(node: node.id, name: operatorName(of: node), p50: times.own.p50) : nil
        let sink = times.sink.count > 0 ? SlowStage(node: node.id, name: node.subscriber, p50: times.sink.p50) : nil
        return slower(own, sink)
    }

    /// What the stage is, from its type (`Map<…>`: "Map"): a labelled stage ("profile
    /// avatar") is named by its operator, not by the label, which names the pipeline the
    /// TIME column sits in.
    static func operatorName(of node: NodeSummary) -> String {
        let base = node.publisherType.prefix { $0 != "<" }
        guard let last = base.split(separator: ".").last, !last.isEmpty else { return node.operatorName }
        return String(last)
    }
}
