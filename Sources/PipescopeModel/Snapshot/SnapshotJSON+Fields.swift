import PipescopeGraph

/// The small objects a stage's JSON is made of: its time per value, its wait (and the
/// combiner it passes through), where it was made, what it was made for, what built it,
/// and its demand.
extension SnapshotJSON {
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
