import PipescopeGraph

extension LintKind {
    public static let zipUnpaired = LintKind("zip-unpaired")
}

/// A `zip` whose one input keeps sending while another is silent: zip sends only whole
/// pairs (one value of each input), so every new value of the busy input waits for a new
/// one of the quiet input, and downstream keeps the last pair. The classic case zips an
/// address with a weight that rarely changes (a `CurrentValueSubject`) where each address
/// should have been combined with the latest weight (`combineLatest`); another zips
/// payments with confirmations nobody sends.
///
/// Judged on the zip while its pipeline waits through it on the program's own input (a
/// subject nobody sends to: the `stalled` lint is quiet there, so without this lint
/// nothing would be said; a quiet input that is stuck, a `Future` never fulfilled, is the
/// `stalled` lint's). At least ``unmatched`` values of one input have no partner, and
/// that input sent its last after the zip's last pair (before any pair: more than
/// ``spread`` after the zip was subscribed): it kept sending while the other was silent.
/// Quiet for a zip that pairs a list with events to come (`taps.zip(items.publisher)`:
/// the list arrived at subscribe, and each tap takes the next), and for a zip behind by a
/// value or two.
enum ZipUnpairedRule: LintRule {
    static let kind = LintKind.zipUnpaired
    static let summary = "a zip holding values of one input that kept sending while another input was silent"
    static let advice = "zip sends only whole pairs, one value of each input: to combine each value with the "
        + "other input's latest, use combineLatest (OpenCombine 0.14 has none: map the busy input and read the "
        + "other's CurrentValueSubject.value), or make the quiet input send as often."
    static let readsWaits = true
    /// Values of one input without a partner that make a warning: fewer is a zip a value
    /// or two behind, which the next values of the other input catch up.
    static let unmatched = 3
    /// Before any pair, how long after the zip's subscribe the busy input must have sent
    /// its last: values sent at subscribe (a list) wait for the other input by design.
    static let spread: Int64 = 100_000_000

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        let graph = context.graph
        guard !n.status.isTerminal, let zip = CombinerWait.of(n.id, in: graph),
              zip.waitingOn.count < zip.inputs.count, waitsOnInput(through: n.id, in: context),
              let busy = zip.inputs.max(by: { $0.values < $1.values }) else { return [] }
        let quiet = zip.inputs[zip.waitingOn[0]]
        let held = busy.values - quiet.values
        guard held >= unmatched, let last = graph[busy.stage]?.lastValueNanos,
              last > (n.lastValueNanos ?? n.createdNanos &+ spread) else { return [] }
        let busyInput = "\(CombinerWait.ordinal((zip.inputs.firstIndex(of: busy) ?? 0) + 1)) input"
        let quietInput = "\(CombinerWait.ordinal(zip.waitingOn[0] + 1)) input"
        let name = { (input: CombinerWait.Input) in "#\(input.stage) \(graph[input.stage]?.operatorName ?? "?")" }
        let head = "holds \(held) values of its \(busyInput) (\(name(busy)))"
        if quiet.values == 0 {
            return [head + " and none of its \(quietInput) (\(name(quiet))), which has sent nothing: zip sends only "
                    + "whole pairs, so nothing goes on until #\(quiet.stage) sends. Make it send, or do not zip what "
                    + "should go on without it."]
        }
        return [head + " that its \(quietInput) (\(name(quiet))) has not matched: it sent \(quiet.values) "
                + (quiet.values == 1 ? "value" : "values") + " while #\(busy.stage) sent \(busy.values). " + advice]
    }

    /// A zip's pipeline waits on a value that only the program can send: the wait passes
    /// through this zip and is held by a subject nobody sends to (``StalledRule`` leaves
    /// those out).
    private static func waitsOnInput(through zip: NodeID, in context: LintContext) -> Bool {
        guard let root = AppState.pipeline(of: zip, in: context.graph), let wait = context.waits.pipeline(root),
              StalledRule.waitsForItsInput(wait, in: context.graph) else { return false }
        return CombinerWait.on(path: wait.at, upTo: root, in: context.graph)?.stage == zip
    }

    /// The pipeline starts to wait with no event: judge the zip again when the verdicts
    /// fall due, while its inputs are uneven.
    static func due(_ n: NodeSummary, in context: LintContext) -> Int64 {
        guard !n.status.isTerminal, let zip = CombinerWait.of(n.id, in: context.graph),
              zip.waitingOn.count < zip.inputs.count else { return .max }
        return context.waitsDue
    }
}
