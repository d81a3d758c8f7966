import Foundation
import PipescopeGraph

/// The JSON document printed by `pipescope explain TARGET --stage ID --json`: the chain
/// of the stage's last value (or any event's chain).
///
/// ```json
/// {"stage": 1, "value": "46", "end": "origin", "chain": [
///   {"stage": 1, "operator": "Filter", "kind": "value", "value": "46", "thread": "main", "time": 1704196800002000000},
///   {"stage": 2, "operator": "Map", "kind": "value", "value": "46", "thread": "main", "time": 1704196800001000000},
///   {"stage": 3, "operator": "PassthroughSubject", "kind": "value", "value": "23", "thread": "main",
///    "time": 1704196800000000000}]}
/// ```
/// `stage` and `value` are the event asked about's (the stage's last value; `value` is
/// null for a completion or cancel). `chain` is newest first and starts with that event
/// itself; each hop has its `stage` id, its `operator`, its `value` as text (null for a
/// completion, failure or cancel; "" for a value the probe did not describe), its
/// `thread` ("" when unknown) and `time`: the hop's wall-clock time in nanoseconds since
/// 1970 (UTC). Besides those keys, each hop says its `kind` ("value",
/// "finished", "failed", "cancelled"), a gathering stage's hop (collect, reduce) lists
/// `gathered`, the inputs it gathered oldest first (`{"stage", "value", "thread",
/// "time"}`), with `gatheredAll` false when earlier ones are older than the history kept;
/// a hop that recorded no cause but came from an inner publisher (a flatMap's `Future`
/// answering later, on another thread) has `madeFor`: `{"stage", "event"}`, the inner
/// stage and the event being delivered when it subscribed, which is the next hop;
/// and `end` says how the chain ends: "origin" (the oldest hop caused itself), "earlier
/// than the history kept" (its cause is no longer kept; `earlierID` numbers it),
/// "not recorded" (events without causes) or "no cause" (a kind that records none).
public enum CauseChainJSON {
    public static func render(_ chain: CauseChain) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Document(chain))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The `end` key's words.
    public static func endName(_ end: CauseChainEnd) -> String {
        switch end {
        case .origin: return "origin"
        case .earlierThanHistory, .tooFarBack: return "earlier than the history kept"
        case .notRecorded: return "not recorded"
        case .kindHasNoCause: return "no cause"
        }
    }

    struct Document: Encodable {
        var chain: CauseChain

        init(_ chain: CauseChain) { self.chain = chain }

        enum Keys: String, CodingKey { case stage, value, chain, end, earlierID }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(chain.hops.first?.stage ?? 0, forKey: .stage)
            try c.encode(chain.hops.first?.value, forKey: .value)
            try c.encode(chain.hops.map(Hop.init), forKey: .chain)
            try c.encode(CauseChainJSON.endName(chain.end), forKey: .end)
            if case .earlierThanHistory(let id) = chain.end { try c.encode(id, forKey: .earlierID) }
        }
    }

    struct Hop: Encodable {
        var hop: CauseHop

        enum Keys: String, CodingKey { case stage, `operator`, kind, value, thread, time, gathered, gatheredAll, madeFor }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(hop.stage, forKey: .stage)
            try c.encode(hop.operatorName, forKey: .operator)
            try c.encode("\(hop.kind)", forKey: .kind)
            try c.encode(hop.value, forKey: .value)
            try c.encode(hop.thread, forKey: .thread)
            try c.encode(hop.time, forKey: .time)
            if let gathered = hop.gathered {
                try c.encode(gathered.map(Input.init), forKey: .gathered)
                try c.encode(hop.gatheredAll, forKey: .gatheredAll)
            }
            if let made = hop.madeFor { try c.encode(MadeFor(made), forKey: .madeFor) }
        }
    }

    struct MadeFor: Encodable {
        var stage: NodeID
        var event: EventID

        init(_ made: CauseHop.MadeFor) {
            stage = made.stage
            event = made.event
        }
    }

    struct Input: Encodable {
        var stage: NodeID
        var value: String
        var thread: String
        var time: Int64

        init(_ input: GatheredInput) {
            stage = input.stage
            value = input.value
            thread = input.thread
            time = input.time
        }
    }
}
