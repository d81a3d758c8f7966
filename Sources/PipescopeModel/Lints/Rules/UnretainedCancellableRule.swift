import PipescopeGraph

extension LintKind {
    public static let unretainedCancellable = LintKind("unretained-cancellable")
}

/// A sink whose `AnyCancellable` nobody kept: its owner (the released `AnyCancellable`)
/// cancelled it at once, before any value, within 50 ms of its making.
///
/// Kept is not unretained: an `AnyCancellable` stored in a dictionary entry and released
/// when the entry is replaced (`subscriptions[key] = publisher.sink { … }` run again, as
/// Tokamak's `Fiber.bindProperties` does on every update) is released right after the
/// pipeline that replaces it was made, at the same place on the same thread. A dropped one
/// is released before the call that made it returns, so before any later pipeline from
/// its line: `for _ in 0..<3 { _ = subject.sink { _ in } }` releases each before the next.
enum UnretainedCancellableRule: LintRule {
    static let kind = LintKind.unretainedCancellable
    static let summary = "a subscription cancelled as soon as it was made: its AnyCancellable was not kept"
    static let advice = "Store it (`.store(in: &cancellables)`) for as long as you need the values."

    /// The excuse needs the locations: without them a replaced entry reads as dropped.
    static let readsLocations = true

    /// How soon after its making a cancel by its owner means nobody kept it.
    static let within: Int64 = 50_000_000

    static func check(_ n: NodeSummary, in context: LintContext) -> [String] {
        // Before any value: one that a scheduler delivered after the cancel (a `delay`'s,
        // a `receive(on:)`'s, racing it) is counted after the end, and is no value it got.
        guard n.parent == nil, n.ownerID == nil, n.cause == .owner, n.values <= n.afterEnd,
              let ended = n.endedNanos, ended - n.createdNanos < within,
              !isReplaced(n, endedAt: ended, in: context.graph) else { return [] }
        return ["cancelled as soon as it was made: its AnyCancellable was not kept. " + advice]
    }

    /// How many ids after a stage's own the search for its replacement looks at, at most:
    /// its replacement was made in the 50 ms it lived, usually just before its release.
    static let replacementSearch: NodeID = 4096

    /// Whether a later pipeline made at the same place (the same return address, so the
    /// same line) on the same thread was made before this one was released: the entry
    /// that held it was replaced by its successor. Needs both locations; a stage whose
    /// location is unknown (PIPESCOPE_LOCATIONS=0, or not yet symbolized) is not excused.
    static func isReplaced(_ n: NodeSummary, endedAt ended: Int64, in graph: Graph) -> Bool {
        guard let place = n.location else { return false }
        var id = n.id
        let last = n.id &+ replacementSearch
        while id < last {
            id &+= 1
            guard let later = graph[id] else { continue }
            // Ids are given in subscribe order: past the release, no stage is its successor.
            if later.createdNanos >= ended { return false }
            if later.parent == nil, later.thread == n.thread, later.location == place { return true }
        }
        return false
    }
}
