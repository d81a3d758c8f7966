import ArgumentParser
import PipescopeGraph
import PipescopeModel

/// `-A NAME`: turn a lint off, as tokio-console allows; `--stall-after SECONDS`: how long
/// without progress makes a wait (``Waits``); `--slow-after MS`: how long a stage's own
/// code may take per value (the `slow-stage` lint).
struct LintOptions: ParsableArguments {
    @Option(name: .customShort("A"), help: ArgumentHelp(
        "Allow (turn off) a lint; repeatable.",
        discussion: "The lints:\n" + LintRules.listing(indent: "", aligned: false),
        valueName: "lint"))
    var allow: [String] = []

    // Unconditional: `--stall-after -1` is a value to refuse with a reason, not a missing one.
    @Option(name: .customLong("stall-after"), parsing: .unconditional, help: ArgumentHelp(
        "Seconds without progress after which a stage or pipeline waits (the WAIT column, the stalled lint).",
        valueName: "seconds"))
    var stallAfter: Double = 2

    @Option(name: .customLong("slow-after"), parsing: .unconditional, help: ArgumentHelp(
        "Milliseconds of a stage's own code per value after which the value is slow (the slow-stage lint; a frame by default).",
        valueName: "ms"))
    var slowAfter: Double = Linter().slowAfter

    func validate() throws {
        do {
            _ = try LintRules.kinds(named: allow)
        } catch {
            throw ValidationError(error.description)
        }
        guard stallAfter >= 0, stallAfter.isFinite else {
            throw ValidationError("--stall-after takes a number of seconds, 0 or more (got \(plainNumber(stallAfter))); for example --stall-after 5")
        }
        guard slowAfter > 0, slowAfter.isFinite else {
            throw ValidationError("--slow-after takes a number of milliseconds, more than 0 (got \(plainNumber(slowAfter))); "
                                  + "for example --slow-after 33 for a frame at 30 Hz")
        }
    }

    var linter: Linter {
        // validate() has refused any name that is no lint.
        var linter = Linter(allowed: (try? LintRules.kinds(named: allow)) ?? [])
        linter.stalledAfter = stallAfter
        linter.slowAfter = slowAfter
        return linter
    }

    /// Where every stage and pipeline of `graph` waits at `now`, with `--stall-after`.
    func waits(_ graph: Graph, now: Int64) -> Waits { Waits(graph, now: now, after: stallAfter) }

    /// The graph with its warnings and waits as `now`, in the JSON or text that
    /// `snapshot` and `replay --json/--print` print. `locationsPending` (a live program's
    /// snapshot only): whether some locations were still being resolved, said in both.
    func report(_ graph: Graph, title: String, now: Int64, json: Bool, locationsPending: Bool? = nil) -> String {
        let waits = waits(graph, now: now)
        let warnings = linter.lints(graph, now: now, waits: waits)
        if json { return SnapshotJSON.render(graph, lints: warnings, waits: waits, locationsPending: locationsPending) }
        var text = SnapshotText.render(graph, title: title, lints: warnings)
        if locationsPending == true { text += "\n" + Self.locationsPendingLine }
        return text
    }

    /// The text snapshot's last line when some locations were still being resolved.
    static let locationsPendingLine = "locations pending: the program is still resolving where some stages were made "
        + "(they have no \"at …\" yet); take the snapshot again in a moment for them"
}
