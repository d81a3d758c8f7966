import Foundation
import PipescopeGraph

/// The JSON document printed by `pipescope snapshot --json`.
///
/// ```json
/// {"dropped":0,"nodes":[{"id":1,"parent":null,"operator":"Map","publisherType":"Map<…>",
///   "subscriber":"Sink","status":"active","demand":{"requested":"unlimited"},
///   "values":3,"lastValue":"42"}]}
/// ```
/// Nodes are in id order (creation order). `parent` is the downstream stage, or null
/// for a root. `demand.requested` is a number or the string "unlimited".
public enum SnapshotJSON {
    public static func render(_ graph: Graph) -> String {
        let document = Document(
            dropped: graph.dropped,
            nodes: graph.nodes.keys.sorted().compactMap { graph[$0].map(Node.init) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    struct Document: Encodable {
        var dropped: UInt64
        var nodes: [Node]
    }

    struct Node: Encodable {
        var id: NodeID
        var parent: NodeID?
        var `operator`: String
        var publisherType: String
        var subscriber: String
        var status: String
        var demand: DemandJSON
        var values: Int
        var lastValue: String?

        init(_ n: NodeSummary) {
            id = n.id
            parent = n.parent
            `operator` = n.operatorName
            publisherType = n.publisherType
            subscriber = n.subscriber
            status = n.status.rawValue
            demand = DemandJSON(requested: n.requested)
            values = n.values
            lastValue = n.lastValue
        }

        enum CodingKeys: String, CodingKey {
            case id, parent, `operator`, publisherType, subscriber, status, demand, values, lastValue
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(parent, forKey: .parent)  // null for roots, not omitted
            try c.encode(`operator`, forKey: .operator)
            try c.encode(publisherType, forKey: .publisherType)
            try c.encode(subscriber, forKey: .subscriber)
            try c.encode(status, forKey: .status)
            try c.encode(demand, forKey: .demand)
            try c.encode(values, forKey: .values)
            try c.encode(lastValue, forKey: .lastValue)
        }
    }

    struct DemandJSON: Encodable {
        var requested: Demand

        enum CodingKeys: String, CodingKey { case requested }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            switch requested {
            case .unlimited: try c.encode("unlimited", forKey: .requested)
            case .count(let n): try c.encode(n, forKey: .requested)
            }
        }
    }
}
