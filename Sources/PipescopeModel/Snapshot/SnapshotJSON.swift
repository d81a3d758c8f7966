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
        /// Values newer than ``lastValue`` that were not described (sampled); omitted at 0.
        var undescribedSince: Int
        var cause: String?
        var error: String?
        var sharedWith: [NodeID]
        var orphaned: Bool
        var feeds: [NodeID]
        /// The CancellableBag holding this root, by name.
        var owner: String?
        var location: LocationJSON?
        var frames: [LocationJSON]
        var locationFrom: NodeID?
        /// Where its own code is, and (an inner publisher) what built it.
        var code: LocationJSON?
        var builtBy: BuiltByJSON?
        /// Which publisher it was subscribed to (nil: its type gives none), and the other
        /// stages subscribed to that one publisher (the repeated-work lint's evidence).
        var publisher: UInt64?
        var samePublisher: [NodeID]
        var subjectSource: Bool
        /// The event an inner publisher was made for, with its words when known.
        var madeFor: MadeForJSON?
        var wait: WaitJSON?
        /// Its operator's own time per value received; a root's sink's time.
        var time: TimeJSON?
        var sinkTime: TimeJSON?

        init(_ n: NodeSummary, in graph: Graph, wait: WaitJSON? = nil) {
            self.wait = wait
            id = n.id
            parent = n.parent
            `operator` = n.operatorName
            publisherType = n.publisherType
            subscriber = n.subscriber
            status = n.status.rawValue
            demand = DemandJSON(requested: n.requested, outstanding: n.outstanding)
            values = n.values
            lastValue = n.lastValue
            undescribedSince = n.undescribedSince
            cause = n.cause?.rawValue
            error = n.error
            orphaned = n.orphaned
            feeds = n.feeds
            owner = graph.owner(of: n.id)?.name
            let placed = graph.location(of: n.id)
            location = placed.map { LocationJSON($0.location) }
            frames = placed?.frames.map(LocationJSON.init) ?? []
            locationFrom = placed?.from
            code = n.code.map(LocationJSON.init)
            builtBy = graph.builtBy(of: n.id).map(BuiltByJSON.init)
            publisher = n.publisher == 0 ? nil : n.publisher
            // The first few: a subject that a pile-up subscribed 10,000 times would
            // otherwise list 10,000 ids in each of 10,000 stages.
            samePublisher = Array(graph.samePublisher(as: n.id).prefix(SnapshotJSON.samePublisherLimit))
            subjectSource = n.subjectSource
            madeFor = n.madeFor == 0 ? nil : MadeForJSON(event: n.madeFor, words: graph.madeForWords(of: n.id))
            // The whole group that passes one subscription object, without this stage.
            let owner = n.subscriptionOwner ?? n.id
            sharedWith = ([owner] + (graph[owner]?.sharers ?? [])).filter { $0 != n.id }.sorted()
            time = n.times.flatMap { TimeJSON($0.own) }
            sinkTime = n.times.flatMap { TimeJSON($0.sink) }
        }

        enum CodingKeys: String, CodingKey {
            case id, parent, `operator`, publisherType, subscriber, status, demand, values, lastValue, undescribedSince
            case cause, error, sharedWith, orphaned, feeds, owner, location, frames, locationFrom, wait
            case time, sinkTime, code, publisher, samePublisher, subjectSource, madeFor
            case builtBy = "built_by"
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
            if undescribedSince > 0 { try c.encode(undescribedSince, forKey: .undescribedSince) }
            try c.encode(cause, forKey: .cause)
            try c.encode(error, forKey: .error)
            try c.encode(sharedWith, forKey: .sharedWith)
            try c.encode(orphaned, forKey: .orphaned)
            try c.encode(feeds, forKey: .feeds)
            try c.encode(owner, forKey: .owner)
            try c.encode(location, forKey: .location)
            try c.encode(frames, forKey: .frames)
            try c.encode(locationFrom, forKey: .locationFrom)
            try c.encode(code, forKey: .code)
            try c.encode(builtBy, forKey: .builtBy)
            try c.encode(publisher, forKey: .publisher)  // null when unknown, not omitted
            try c.encode(samePublisher, forKey: .samePublisher)
            try c.encode(subjectSource, forKey: .subjectSource)
            try c.encode(madeFor, forKey: .madeFor)
            try c.encode(wait, forKey: .wait)  // null while flowing or ended, not omitted
            try c.encode(time, forKey: .time)
            if parent == nil { try c.encode(sinkTime, forKey: .sinkTime) }
        }
    }

    /// Nanoseconds per value: `{"count": N, "p50": N, "p99": N, "max": N}`; nil before
    /// the first.
    struct TimeJSON: Encodable {
        var count: Int
        var p50: Int64
        var p99: Int64
        var max: Int64

        init?(_ h: TimeHistogram) {
            guard h.count > 0 else { return nil }
            (count, p50, p99, max) = (h.count, h.p50, h.p99, h.max)
        }
    }

    /// `{"reason": "upstream", "seconds": 41.2, "at": 3}`: a stage's ``Wait`` (on a
    /// root, its whole pipeline's), seconds to the millisecond.
    struct WaitJSON: Encodable, Equatable {
        var reason: String
        var seconds: Double
        var at: NodeID
        /// Which input of a `zip` on the way it waits on; absent when none is.
        var combiner: CombinerJSON?

        /// Stage `stage`'s wait; with the graph, the combiner it waits through.
        init(_ wait: Wait, now: Int64, of stage: NodeID? = nil, in graph: Graph? = nil) {
            reason = wait.reason.rawValue
            seconds = Double(wait.nanos(at: now) / 1_000_000) / 1000
            at = wait.at
            if let stage, let graph { combiner = wait.combiner(of: stage, in: graph).map(CombinerJSON.init) }
        }
    }

    /// `{"stage": 7, "operator": "Zip", "waitsOn": [2], "inputs": [{"stage": 5, "values": 2},
    /// {"stage": 9, "values": 0}]}`: `waitsOn` numbers the inputs from 1, in `inputs`' order.
    struct CombinerJSON: Encodable, Equatable {
        struct Input: Encodable, Equatable {
            var stage: NodeID
            var values: Int
        }
        var stage: NodeID
        var `operator`: String
        var waitsOn: [Int]
        var inputs: [Input]

        init(_ c: CombinerWait) {
            stage = c.stage
            `operator` = c.operatorName
            waitsOn = c.waitingOn.map { $0 + 1 }
            inputs = c.inputs.map { Input(stage: $0.stage, values: $0.values) }
        }
    }

    /// `{"file": …, "line": …, "function": …}`, plus `image` when there is no file and
    /// `offset` (hex) when there is no function either.
    struct LocationJSON: Encodable {
        var location: SourceLocation

        init(_ location: SourceLocation) {
            self.location = location
        }

        enum CodingKeys: String, CodingKey { case file, line, function, image, offset }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(location.file, forKey: .file)
            try c.encode(location.line, forKey: .line)
            try c.encode(location.function, forKey: .function)
            if location.file == nil { try c.encode(location.image, forKey: .image) }
            if location.function == nil, let offset = location.offset {
                try c.encode("0x" + String(offset, radix: 16), forKey: .offset)
            }
        }
    }

    /// `{"event": 41, "value": "s"}`: the event an inner publisher was made for (the
    /// upstream value a `flatMap` made it for, the failure a `catch` did), `value` its
    /// words, null when not known (not described, or no longer kept).
    struct MadeForJSON: Encodable, Equatable {
        var event: EventID
        var value: String?

        init(event: EventID, words: EventValue) {
            self.event = event
            value = words.isEmpty ? nil : words.text
        }

        enum CodingKeys: String, CodingKey { case event, value }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(event, forKey: .event)
            try c.encode(value, forKey: .value)  // null, not omitted
        }
    }

    /// `{"file", "line", "function", "transform"}`: the function that built an inner
    /// publisher; `transform` true when that is not known and this is the closure that
    /// returned it (``StageBuilder/isTransform``).
    struct BuiltByJSON: Encodable {
        var builder: StageBuilder

        init(_ builder: StageBuilder) {
            self.builder = builder
        }

        enum CodingKeys: String, CodingKey { case transform }

        func encode(to encoder: Encoder) throws {
            try LocationJSON(builder.location).encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(builder.isTransform, forKey: .transform)
        }
    }

    struct DemandJSON: Encodable {
        var requested: Demand
        var outstanding: Demand

        enum CodingKeys: String, CodingKey { case requested, outstanding }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try encode(requested, .requested, &c)
            try encode(outstanding, .outstanding, &c)
        }

        private func encode(_ d: Demand, _ key: CodingKeys, _ c: inout KeyedEncodingContainer<CodingKeys>) throws {
            switch d {
            case .unlimited: try c.encode("unlimited", forKey: key)
            case .count(let n): try c.encode(n, forKey: key)
            }
        }
    }
}
