import PipescopeGraph

/// A lifecycle mistake Pipescope recognises, named the way `-A` turns it off.
public enum LintKind: String, CaseIterable, Sendable {
    case unretainedCancellable = "unretained-cancellable"
    case demandViolation = "demand-violation"
    case afterTerminal = "after-terminal"
    case stalled
    case neverCompletes = "never-completes"
    case ownerLeak = "owner-leak"
    case contractViolation = "contract-violation"
}

/// One warning on one stage: what happened and what to do about it.
public struct Lint: Hashable, Sendable {
    public var kind: LintKind
    public var node: NodeID
    public var message: String

    public init(kind: LintKind, node: NodeID, message: String) {
        self.kind = kind
        self.node = node
        self.message = message
    }
}

/// Computes the lints of a graph. Everything comes from the graph the event stream
/// folds into, so a recording gets the same warnings as the live program did.
///
/// `now` (wall-clock nanoseconds) matters for the two time-based lints (`stalled`, which
/// comes from the ``Waits`` verdicts, and `never-completes`); a recording passes the time
/// of its last event.
public struct Linter: Sendable, Equatable {
    /// Seconds without progress that make a stage or pipeline wait (``Waits``), and a
    /// waiting pipeline a `stalled` lint: `--stall-after`.
    public var stalledAfter: Double = 2
    /// A one-shot publisher still active after this long.
    public var neverCompletesAfter: Double = 30
    /// Lints turned off (`-A name`).
    public var allowed: Set<LintKind> = []

    public init(allowed: Set<LintKind> = []) {
        self.allowed = allowed
    }

    /// A pipeline waiting on a subject nobody sends to is waiting for the program's own
    /// input (a button, a search field): idle, not stuck. WAIT says it; it is no warning.
    static func waitsForItsInput(_ wait: Wait, in graph: Graph) -> Bool {
        wait.reason == .upstream && Waits.isProgramInput(wait.at, in: graph)
    }

    /// Publishers that deliver one value or completion and finish.
    static let oneShot: Set<String> = ["Future", "DataTaskPublisher", "Just", "Deferred", "First", "Last"]

    /// The lints of `graph` at `now`; `waits` are the verdicts at `now` when the caller
    /// has them already (computed here with ``stalledAfter`` otherwise).
    public func lints(_ graph: Graph, now: Int64, waits: Waits? = nil) -> [Lint] {
        var found: [Lint] = []
        // The waiting pipelines, by the stage holding each wait, in root order.
        var stalled: [NodeID: [(root: NodeID, wait: Wait)]] = [:]
        if !allowed.contains(.stalled) {
            let waits = waits ?? Waits(graph, now: now, after: stalledAfter)
            for (root, wait) in waits.pipelines.sorted(by: { $0.key < $1.key })
            where !Self.waitsForItsInput(wait, in: graph) {
                stalled[wait.at, default: []].append((root, wait))
            }
        }
        for id in graph.nodes.keys.sorted() {
            guard let n = graph[id] else { continue }
            lint(n, in: graph, now: now, stalled: stalled[n.id] ?? [], into: &found)
        }
        return found
    }

    /// The lints of stage `n` at `now`, appended to `found` in the order ``lints(_:now:waits:)``
    /// lists one stage's; `stalled`: the waiting pipelines whose wait the stage holds.
    func lint(_ n: NodeSummary, in graph: Graph, now: Int64, stalled: [(root: NodeID, wait: Wait)],
              into found: inout [Lint]) {
        func add(_ kind: LintKind, _ node: NodeSummary, _ message: String) {
            if !allowed.contains(kind) { found.append(Lint(kind: kind, node: node.id, message: message)) }
        }
        // A sink whose AnyCancellable nobody kept: released at once, before any value.
        if n.parent == nil, n.owner == nil, n.cause == .owner, n.values == 0,
           let ended = n.endedNanos, ended - n.createdNanos < 50_000_000 {
            add(.unretainedCancellable, n, "cancelled as soon as it was made: its AnyCancellable was not kept. "
                + "Store it (`.store(in: &cancellables)`) for as long as you need the values.")
        }
        if case .count(let requested) = n.requested, n.values > requested {
            add(.demandViolation, n, "\(n.values) values delivered but only \(requested) requested: "
                + "\(n.operatorName) ignores its subscriber's demand. Buffer, or honour request(_:).")
        }
        if n.afterEnd > 0 {
            add(.afterTerminal, n, "\(n.afterEnd) value\(n.afterEnd == 1 ? "" : "s") or completion\(n.afterEnd == 1 ? "" : "s") "
                + "arrived after the stage \(n.status.rawValue): a publisher is sending after its end, "
                + "or a cancel raced a delivery on another thread.")
        }
        // One per waiting pipeline, on the stage that holds its wait (``Waits``).
        for (root, wait) in stalled {
            add(.stalled, n, wait.lintMessage(pipeline: root, in: graph, now: now))
        }
        if n.status == .active, Self.oneShot.contains(n.operatorName),
           Double(now - n.createdNanos) / 1e9 > neverCompletesAfter {
            add(.neverCompletes, n, "a one-shot \(n.operatorName) still active after \(Int(neverCompletesAfter)) s: "
                + "its promise is never fulfilled, or its upstream never finishes.")
        }
        if let owner = n.owner, n.parent == nil, !n.status.isTerminal,
           graph.owners[owner.id]?.releasedNanos != nil {
            add(.ownerLeak, n, "still active after its owner \(owner.name) was released: "
                + "tie it to the owner (store its AnyCancellable in the owner's bag; for a Task, "
                + "`task.eraseToAnyCancellable().store(in: bag)`), or cancel it when the owner goes.")
        }
        for broken in n.contractBroken {
            add(.contractViolation, n, "\(broken). Fix the publisher, or declare the contract it really keeps.")
        }
    }
}
