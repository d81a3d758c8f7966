import Foundation
import PipescopeGraph

/// What `pipescope explain` prints: the verdict of every active pipeline (its root not
/// ended), one line each, the waiting ones first (longest wait first), then the flowing
/// ones by id.
///
/// ```
/// #12 Future → Map → Sink  waits ↑ #13 Future (main.swift:41) 41s
/// #20 PassthroughSubject → Sink  held: demand 0 12s by Sink (last request .max(1))
/// #31 Timer → Sink  flowing
/// ```
/// As JSON: `{"pipelines": [{"root": 12, "name": "Future → Map → Sink", "wait":
/// {"reason": "upstream", "seconds": 41.2, "at": 13}, "at": {"file": …, "line": 40, "function": …}}, …],
/// "pileUps": […]}`, `wait` null while flowing; a wait through a `zip` adds `"combiner"`
/// (``SnapshotJSON``'s `CombinerJSON`); the pipeline's `at` is the line to change
/// (``Wait/lineToChange(in:)``), null while flowing or when unknown.
///
/// A pipeline the probe lost events of says so at the end of its line (`⚠ 1200 events
/// dropped …`), and in JSON as `"dropped": 1200` (absent when none).
///
/// Places whose pipelines pile up (the `pile-up` lints: a verdict on many pipelines, not
/// on one) come first, one line each, `⚠ pile-up at #5: 215 live pipelines made at …`;
/// in JSON `"pileUps": [{"root": 5, "message": "…"}]`.
public struct WaitReport: Sendable {
    public struct Entry: Sendable, Equatable {
        public var root: NodeID
        public var name: String
        public var wait: Wait?
    }

    /// The active pipelines, in the order printed.
    public let entries: [Entry]
    /// The `pile-up` lints, printed before the pipelines.
    public let pileUps: [Lint]
    private let graph: Graph
    private let now: Int64

    /// The report on `graph` with its `waits`; `lints`: the graph's lints at the same
    /// moment (only the `pile-up` ones are reported).
    public init(_ graph: Graph, waits: Waits, lints: [Lint] = []) {
        self.graph = graph
        now = waits.now
        pileUps = lints.filter { $0.kind == .pileUp }
        let active = graph.roots.filter { graph[$0].map { !$0.status.isTerminal } ?? false }
        entries = active.map { Entry(root: $0, name: PipelineName(root: $0, in: graph).text, wait: waits.pipeline($0)) }
            .sorted { a, b in
                switch (a.wait, b.wait) {
                case let (x?, y?): return x.sinceNanos != y.sinceNanos ? x.sinceNanos < y.sinceNanos : a.root < b.root
                case (_?, nil): return true
                case (nil, _?): return false
                case (nil, nil): return a.root < b.root
                }
            }
    }

    /// One line per pipeline; "no active pipelines" when there are none.
    public var text: String {
        let piles = pileUps.map { "⚠ pile-up at #\($0.node): \($0.message)" }
        guard !entries.isEmpty else { return (piles + ["no active pipelines"]).joined(separator: "\n") }
        return (piles + entries.map { "#\($0.root) \($0.name)  " + verdict($0) + dropped($0.root) })
            .joined(separator: "\n")
    }

    /// `  ⚠ 1200 events dropped …` when the probe lost events of pipeline `root`.
    func dropped(_ root: NodeID) -> String {
        guard let n = graph.droppedByPipeline[root], n > 0 else { return "" }
        return "  ⚠ \(n) event\(n == 1 ? "" : "s") dropped (the probe's buffer was full): what is shown of it misses them"
    }

    /// The verdict in words: `waits ↑ #13 Future (main.swift:41) 41s`, `held: demand 0
    /// 12s by Sink (last request .max(1))`, `no subscription 3s from #4 Silent`, `flowing`.
    func verdict(_ entry: Entry) -> String {
        guard let wait = entry.wait else { return "flowing" }
        let age = CellText.age(wait.nanos(at: now))
        let zip = wait.combiner(of: entry.root, in: graph).map { "; " + $0.text(in: graph) } ?? ""
        switch wait.reason {
        case .upstream:
            return "waits ↑ \(Wait.name(wait.at, in: graph)) \(age)" + zip
        case .demand:
            let request = wait.lastRequest.map { "last request \(Wait.call($0))" } ?? "never requested"
            return "held: demand 0 \(age) by \(Wait.subscriber(of: entry.root, in: graph)) (\(request))"
        case .subscription:
            return "no subscription \(age) from \(Wait.name(wait.at, in: graph))" + zip
        }
    }

    /// `{"pipelines": [{"root": ID, "name": TEXT, "wait": null or {"reason", "seconds", "at"}}]}`.
    public var json: String {
        struct Document: Encodable {
            var pipelines: [Pipeline]
            var pileUps: [PileUp]
        }
        struct PileUp: Encodable {
            var root: NodeID
            var message: String
        }
        struct Pipeline: Encodable {
            var root: NodeID
            var name: String
            var wait: SnapshotJSON.WaitJSON?
            var at: SnapshotJSON.LocationJSON?
            /// Events the probe lost of it; absent when none.
            var dropped: UInt64?
            enum CodingKeys: String, CodingKey { case root, name, wait, at, dropped }
            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(root, forKey: .root)
                try c.encode(name, forKey: .name)
                try c.encode(wait, forKey: .wait)  // null, not omitted
                try c.encode(at, forKey: .at)
                try c.encodeIfPresent(dropped, forKey: .dropped)
            }
        }
        let document = Document(pipelines: entries.map { entry in
            Pipeline(root: entry.root, name: entry.name,
                     wait: entry.wait.map { SnapshotJSON.WaitJSON($0, now: now, of: entry.root, in: graph) },
                     at: entry.wait?.lineToChange(in: graph).map(SnapshotJSON.LocationJSON.init),
                     dropped: graph.droppedByPipeline[entry.root])
        }, pileUps: pileUps.map { PileUp(root: $0.node, message: $0.message) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
