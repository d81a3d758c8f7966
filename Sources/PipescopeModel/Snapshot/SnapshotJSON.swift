import Foundation
import PipescopeGraph

/// The JSON document printed by `pipescope snapshot --json`.
///
/// ```json
/// {"dropped":0,"nodes":[{"id":1,"parent":null,"operator":"Map","publisherType":"Map<…>",
///   "subscriber":"Sink","status":"active","demand":{"requested":"unlimited"},
///   "values":3,"lastValue":"42"}]}
/// ```
/// `dropped` counts the events the probe lost (its buffer was full);
/// `droppedByPipeline` (absent when it says of none) lists whose they were, most first:
/// `[{"root": 1, "events": 1200}]`, root 0 for stages the probe did not know yet. It is
/// counted from the batches read: a program's snapshot carries only the total, so
/// `pipescope snapshot` of a running program lists it only for what it lost since then.
/// Nodes are in id order (creation order). `parent` is the downstream stage, or null
/// for a root. `lints` lists the warnings: `lint` (its name), `node`, `message`.
/// `demand.requested` and `demand.outstanding` are numbers or the string
/// "unlimited". `cause` says who cancelled a cancelled stage; `error` is a failure's
/// text; `sharedWith` lists the other stages that pass the same subscription object
/// along; `orphaned` is true when an upstream was cancelled from outside; `feeds`
/// lists further stages this one reaches through a subject (share, multicast); `owner`
/// names the CancellableBag holding a root (null when none). `lastValue` is the last value
/// described: values are sampled (cheap types always, others at most one per stage per
/// 25 ms), and `undescribedSince` (absent when 0) counts the newer ones that were not.
///
/// `wait` says where the stage waits (``Waits``): null while it flows or once it has
/// ended, else `{"reason": "upstream" | "demand" | "subscription", "seconds": 41.2,
/// "at": 3}`, `at` being the stage the wait is attributed to; on a root it is the whole
/// pipeline's verdict. A wait on upstream through a `zip` adds `"combiner": {"stage": 7,
/// "operator": "Zip", "waitsOn": [2], "inputs": [{"stage": 5, "values": 2}, {"stage": 9,
/// "values": 0}]}`: the input(s) it waits on, numbered from 1, and what each sent it.
///
/// `location` is where the program made the stage, `{"file": "/src/App/Feed.swift",
/// "line": 88, "function": "Feed.start()"}`: its own (a root's `sink` call, or the line
/// that sent the value an inner publisher was made for) or, for a stage that recorded
/// none, its pipeline's; `locationFrom` is the stage that recorded it (the stage itself
/// or one downstream of it). `frames` are the program's callers of that location,
/// nearest first, in the same form. Without debug information `file` and `line` are
/// null and `image` names the binary; without symbols `function` is null too and
/// `offset` says where in the image. All three are null (and `frames` empty) when no
/// location is known.
///
/// `code` is where the stage's own code is, in the same form (the closure of its `map`,
/// `filter`, `flatMap`, `handleEvents`, `Deferred`, or a root's `sink` when its operator
/// runs none); null when it runs none of the program's code or that is unknown (a
/// `Future` keeps no closure). `built_by`, for an inner publisher, is the function that
/// built it, `{"file", "line", "function", "transform": false}`, or, when that is not
/// known, the closure that returned it (`"transform": true`, the `flatMap`'s); null for
/// other stages. Each lint's `at` is the line to change, in the same form: the stage's
/// `code` (or `built_by`) when its own code is the mistake (`stalled`: a source that
/// never sends), else where it was subscribed; null when neither is known.
///
/// `publisher` identifies the publisher the stage was subscribed to: one number for every
/// stage subscribed to one publisher (one `Future`, copies of one `AnyPublisher` or
/// `Deferred`), null when its type gives none (most operators); `samePublisher` lists the
/// other stages subscribed to that publisher while this one lived (the repeated-work
/// lint's evidence). `subjectSource` is true when that publisher is a subject or erases
/// one. `madeFor`, for an inner publisher, is the event it was made for, `{"event": 41,
/// "value": "s"}`, `value` null when its words are not known; null for other stages.
///
/// `time` is how long the stage's own operator took per value it received, in
/// nanoseconds, without the stages downstream that it called: `{"count": N, "p50": N,
/// "p99": N, "max": N}` (percentiles within 12%, count and max exact); null for a source
/// (it receives no values) and before the first value. A root also has `sinkTime`, the
/// same for its subscriber's own code (a `sink` closure).
///
/// `pipelines` are the pipelines table's rows, one object per pipeline, built as the
/// table builds them and in its default order (RATE descending, ties by id), keyed by
/// each ``TableColumn``'s ``TableColumn/jsonKey`` with its ``TableColumn/json`` value:
/// `{"warnings": 0, "id": 1, "name": "Just → Map → Sink", "location": "Feed.swift:88",
/// "status": "active", "stages": 3, "rate": 0, "values": 2, "createdNanos": …,
/// "lastEventNanos": …}`. A snapshot has no event history: `rate` is 0 (so the order is
/// by id), LAST MINUTE's sparkline has no key, and `lastEventNanos` is the newest time
/// the graph itself holds (a value, an end, a request, the making of a stage).
public enum SnapshotJSON {
    /// The most stages a node's `samePublisher` lists (the oldest).
    static let samePublisherLimit = 16

    ///
    /// `locationsPending` (given by `pipescope snapshot`, left out by `replay --json`): true
    /// when the program was still resolving where some stages were made, so that their
    /// `location` is null for now rather than unknown.
    public static func render(_ graph: Graph, lints: [Lint] = [], waits: Waits = Waits(),
                              locationsPending: Bool? = nil) -> String {
        let document = Document(
            dropped: graph.dropped,
            droppedByPipeline: graph.droppedByPipeline.isEmpty ? nil
                : graph.droppedByPipeline.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                    .map { DropJSON(root: $0.key, events: $0.value) },
            locationsPending: locationsPending,
            nodes: graph.nodes.keys.sorted().compactMap { id in
                graph[id].map { Node($0, in: graph, wait: waits[id].map { WaitJSON($0, now: waits.now, of: id, in: graph) }) }
            },
            lints: lints.map { lint in
                LintJSON(lint: lint.kind.rawValue, node: lint.node, message: lint.message,
                         at: graph.lineToChange(lint.node, ownCode: lint.pointsAtCode).map(LocationJSON.init))
            },
            pipelines: AppState.Table.rows(of: graph, lints: lints, waits: waits).map { PipelineJSON(row: $0) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    struct Document: Encodable {
        var dropped: UInt64
        /// `dropped` by the pipeline that lost them, most first (root 0: a stage the probe
        /// did not know yet); absent when the batches read said of none.
        var droppedByPipeline: [DropJSON]?
        /// Absent when the source does not say (a recording).
        var locationsPending: Bool?
        var nodes: [Node]
        var lints: [LintJSON]
        var pipelines: [PipelineJSON]
    }

    /// The events one pipeline lost: `{"root": 1, "events": 1200}`.
    struct DropJSON: Encodable {
        var root: NodeID
        var events: UInt64
    }

    /// A table row, keyed by its columns' JSON keys.
    struct PipelineJSON: Encodable {
        var fields: [String: TableColumn.JSONValue]

        init(row: PipelineRow, columns: [TableColumn] = TableColumn.allCases) {
            fields = [:]
            for column in columns {
                if let key = column.jsonKey { fields[key] = column.json(row) }
            }
        }

        func encode(to encoder: Encoder) throws {
            try fields.encode(to: encoder)
        }
    }

    struct LintJSON: Encodable {
        var lint: String
        var node: NodeID
        var message: String
        /// The line to change (``Graph/lineToChange(_:ownCode:)``); null when unknown.
        var at: LocationJSON?

        enum CodingKeys: String, CodingKey { case lint, node, message, at }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(lint, forKey: .lint)
            try c.encode(node, forKey: .node)
            try c.encode(message, forKey: .message)
            try c.encode(at, forKey: .at)  // null, not omitted
        }
    }
}
