import ArgumentParser
import Foundation
import PipescopeGraph
import PipescopeModel

/// `pipescope explain TARGET [--stage ID] [--json]`: where each active pipeline waits, or
/// one stage's wait and where its last value came from, for scripts and bug reports
/// (``WaitReport``, ``CauseChain``).
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Print where each active pipeline of a running program waits (or where one stage's last value came from), and exit.",
        discussion: """
            One line per active pipeline, the waiting ones first: waits ↑ (demand is outstanding and \
            the named stage upstream sends nothing), held: demand 0 (its subscriber asks for nothing more), \
            no subscription (an upstream never sent one), or flowing. A wait is --stall-after seconds \
            without progress (2 by default). With --json: {"pipelines": [{"root", "name", "wait", "at"}]}, \
            wait being null or {"reason", "seconds", "at"} as in snapshot --json (a wait through a zip adds \
            "combiner": {"stage", "operator", "waitsOn", "inputs": [{"stage", "values"}]}: which input it waits on), \
            and "at" the line to change ({"file", "line", "function"}: the code of a source that never sends, \
            else where it was subscribed). \
            With --stage ID: that stage's wait, and the chain of causes of its last value back to \
            its origin, one hop a line (with --json: {"stage", "value", "chain": [{"stage", \
            "operator", "value", "thread", "time"}], "end", "wait", "at"}, the chain newest first, "at" the \
            line to change: {"file", "line", "function"}; a hop from an inner publisher, such as a flatMap's \
            Future, goes on through the value it was made for and adds "madeFor": {"stage", "event"}). \
            The chain follows the causes the program still keeps (its last 4,096).
            """)

    @Argument(help: "The program's pid, its name (as `pipescope list` shows it), its socket path, or tcp://host:port.")
    var target: String

    @Flag(help: "Print JSON instead of one line per pipeline.")
    var json = false

    // Unconditional: `--stage -1` is an id to refuse, not a missing one.
    @Option(name: .customLong("stage"), parsing: .unconditional,
            help: ArgumentHelp("Explain this stage (an id from `pipescope snapshot`): its wait and where its last value came from.",
                               valueName: "id"))
    var stageArgument: WholeNumberArgument?

    /// `--stage`'s id (``validate()`` refused any other text).
    var stage: UInt64? { stageArgument?.value }

    func validate() throws {
        _ = try stageArgument?.checked("--stage", takes: "a stage id (`pipescope snapshot` lists them)", example: "4")
    }

    @Option(help: "The program's PIPESCOPE_TOKEN, for tcp:// targets (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @OptionGroup var lints: LintOptions

    func run() throws {
        let session = InspectorSession.open(target: target, command: "pipescope explain", token: token)
        defer { session.connection.close() }
        let graph = session.graph
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        let waits = lints.waits(graph, now: now)
        guard let stage else {
            let report = WaitReport(graph, waits: waits, lints: lints.linter.lints(graph, now: now, waits: waits))
            print(json ? report.json : report.text)
            return
        }
        guard graph[stage] != nil else {
            fail("there is no stage #\(stage) in \(target) now (it may have ended and been pruned); "
                 + "`pipescope snapshot \(target)` lists the stages it has")
        }
        var history = History()
        history.reset(to: graph, recent: session.snapshot.recent)
        let chain = CauseChain.lastValue(of: stage, upTo: nil, in: history, graph: graph)
        print(json ? Self.json(stage, chain: chain, wait: waits[stage], graph: graph, now: now)
                   : Self.text(stage, chain: chain, wait: waits[stage], graph: graph, now: now))
    }

    /// `#3 Map (Feed.swift:12): waits 41s for …`, then the chain of its last value, one
    /// hop a line.
    static func text(_ stage: NodeID, chain: CauseChain?, wait: Wait?, graph: Graph, now: Int64) -> String {
        let node = graph[stage]
        let state = wait?.sentence(of: stage, in: graph, now: now)
            ?? (node?.status.isTerminal == true ? node!.status.rawValue : "flowing")
        var lines = ["\(Wait.name(stage, in: graph)): \(state)"]
        guard let chain else {
            lines.append("It has delivered no value the program still keeps a record of.")
            return lines.joined(separator: "\n")
        }
        lines.append("Its last value, and where it came from (newest first):")
        lines.append(CauseChainText.line(chain))
        lines += CauseChainText.lines(chain).map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    /// The chain's JSON (``CauseChainJSON``) with the stage's `wait` added; a stage with
    /// no value kept: `{"stage": ID, "value": null, "chain": [], "end": "no value", …}`.
    static func json(_ stage: NodeID, chain: CauseChain?, wait: Wait?, graph: Graph, now: Int64) -> String {
        var document: [String: Any] = ["stage": stage, "value": NSNull(), "chain": [Any](), "end": "no value"]
        if let chain, let data = CauseChainJSON.render(chain).data(using: .utf8),
           let parsed = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            document = parsed
        }
        document["wait"] = wait.map { w -> [String: Any] in
            var wait: [String: Any] = ["reason": w.reason.rawValue, "seconds": Double(w.nanos(at: now) / 1_000_000) / 1000,
                                       "at": w.at]
            if let zip = w.combiner(of: stage, in: graph) {
                wait["combiner"] = ["stage": zip.stage, "operator": zip.operatorName, "waitsOn": zip.waitingOn.map { $0 + 1 },
                                    "inputs": zip.inputs.map { ["stage": $0.stage, "values": $0.values] as [String: Any] }]
                    as [String: Any]
            }
            return wait
        } ?? NSNull()
        // The line to change: the wait's (its source's code when it does not send), else
        // where the stage was subscribed.
        let at = wait?.lineToChange(in: graph) ?? graph.location(of: stage)?.location
        document["at"] = at.map { l -> [String: Any] in
            ["file": l.file ?? NSNull(), "line": l.line ?? NSNull(), "function": l.function ?? NSNull()]
        } ?? NSNull()
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
