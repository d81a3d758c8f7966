import Foundation
import PipescopeClient
import PipescopeGraph
@testable import PipescopeModel
import PipescopeViews
import TerminalKit
import XCTest

/// The prefix oracle (#42): what the inspector shows with its history cursor on event k
/// is what it shows replaying the same recording cut right after event k, at its live end
/// (``PrefixCut``).
///
/// Both are loaded the way `pipescope replay` loads a recording (every message reduced,
/// then the terminal's size, then a tick); the cursor then jumps from the whole
/// recording's end to event k, with no tick after it (a key shows its moment at once).
/// Both are then shown the same way: the table (every column, the sparkline's width),
/// the tree's four panes (tree, timeline lanes, a random stage's detail, the event log),
/// the warnings list, a random pipeline alone (its tree, lanes and events); and their
/// models: the graph stage by stage, the lints, the waits, the waits report, the table's
/// rows, the tree's rows. The tick comes ten minutes after the recording's last event,
/// as when a recording is replayed later: nothing shown may read that clock. The
/// timeline screen (`T`) draws the same lanes as the tree's pane and is left out, for
/// the run's time.
///
/// Only what must differ is masked:
/// - the status line's mode (`HISTORY k/N` for `REPLAY`; runs of spaces then count as one);
/// - the hint line (the history's line, for the keys);
/// - on the tree row of the cursor's stage, its label column: `◆ here` takes the room of
///   the name's tail and of the marks after it (`TimerPubl… ◆ here`), so the label's words
///   must each be one of the other's, or the start of one; the columns after it the same;
/// - the timeline's ruler inside its pane: `▼` at the cursor, which labels keep clear of
///   (checked to be there, in the rightmost column: the window ends at the cursor's moment).
/// The tree is scrolled to its top (or as little below as shows the selection) before
/// each screen: how far it was scrolled depends on the keys before, not on the moment.
///
/// Samples: every event of the two small fixtures, the rest of 1,000 at random in a
/// 25-second recording of the demo's stories (Fixtures/demo-stories.pipescope, 2,320
/// events), seeded: `PIPESCOPE_ORACLE_SEED=N` repeats a run, and a failure prints its
/// seed and the first differing line of each moment (both screens whole for the first).
final class PrefixOracleTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let width = 160
    static let height = 40
    /// The terminal's size, as the app tells the reducer (laid out once: the help's
    /// layout is a part of it).
    static let resize = ScreenView.resized(width: width, height: height)
    /// Samples in all, across the recordings.
    static let samples = 1_000

    func testEveryMomentShowsWhatTheRecordingCutThereShows() throws {
        let seed = ProcessInfo.processInfo.environment["PIPESCOPE_ORACLE_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        var random = SplitMix(seed: seed)
        let names = ["demo-v1.pipescope", "demo-v3.pipescope", "demo-stories.pipescope"]
        let recordings = try names.map { try Recording.read(path: Self.fixtures.appendingPathComponent($0).path) }
        let counts = recordings.map { PrefixCut.eventCount($0.messages) }
        // Every event of the small fixtures; the rest at random in the demo's recording.
        var plan: [[Int]] = []
        var left = Self.samples
        for (i, count) in counts.enumerated() {
            let last = i == counts.count - 1
            let ks = last ? (0..<left).map { _ in Int(random.next() % UInt64(count)) + 1 }
                : Array(1...count)
            plan.append(ks.sorted())
            left -= ks.count
        }
        // Two workers (the machine's cores), each on contiguous runs of a recording's moments.
        let jobs = plan.enumerated().flatMap { i, ks in
            [(i, Array(ks.prefix(ks.count / 2))), (i, Array(ks.dropFirst(ks.count / 2)))]
        }
        let inputs = recordings.map { (messages: $0.messages, process: $0.process, last: $0.lastEventNanos) }
        let results = Results()
        let started = Date()
        DispatchQueue.concurrentPerform(iterations: jobs.count) { j in
            let (i, ks) = jobs[j]
            let found = Self.check(inputs[i].messages, process: inputs[i].process, lastEventNanos: inputs[i].last,
                                   name: names[i], at: ks, seed: seed &+ UInt64(j) << 32)
            results.add(found.failures, checked: found.checked)
        }
        let (failures, checked) = results.all
        let seconds = Date().timeIntervalSince(started)
        print("prefix oracle: \(checked) moments of \(names.count) recordings in \(String(format: "%.1f", seconds)) s, "
              + "\(failures.count) differ (seed \(seed))")
        XCTAssertEqual(checked, Self.samples)
        XCTAssertTrue(failures.isEmpty, "seed \(seed) (PIPESCOPE_ORACLE_SEED=\(seed) repeats it): "
                      + "\(failures.count) moments differ; the first:\n" + failures.prefix(5).joined(separator: "\n\n"))
    }

    /// What the workers found.
    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var failures: [String] = []
        private var checked = 0

        func add(_ found: [String], checked count: Int) {
            lock.lock()
            defer { lock.unlock() }
            failures += found
            checked += count
        }

        var all: ([String], Int) {
            lock.lock()
            defer { lock.unlock() }
            return (failures, checked)
        }
    }

    /// Checks each event in `ks` (ascending) of a recording's `messages`; the differences
    /// found, and how many moments were checked. The stage and pipeline each moment shows
    /// are drawn from `seed`.
    private static func check(_ messages: [Message], process: String, lastEventNanos: Int64, name: String, at ks: [Int],
                              seed: UInt64) -> (failures: [String], checked: Int) {
        var random = SplitMix(seed: seed)
        var checked = 0
        let tick = lastEventNanos + 600_000_000_000
        let total = PrefixCut.eventCount(messages)
        // The whole recording, folded once: every moment is a cursor jump from its end.
        let whole = loaded(messages, process: process, tick: tick)
        // The cut replays share their whole batches: the state after the batches before
        // event k's is kept and advanced as k grows (the same messages reduced in the
        // same order as a replay from scratch: a state is a value).
        var prefix = AppState(targetName: process)
        var prefixEnd = 0
        var failures: [String] = []
        for k in ks {
            guard let (before, last) = PrefixCut.split(messages, after: k) else {
                failures.append("\(name): no event \(k)")
                continue
            }
            for message in messages[prefixEnd..<before.count] { _ = reduce(&prefix, message) }
            prefixEnd = before.count
            var cut = prefix
            _ = reduce(&cut, .batch(last))
            _ = reduce(&cut, Self.resize)
            _ = reduce(&cut, .tick(nanos: tick))

            var past = whole
            _ = reduce(&past, .action(.history(k - total)))
            checked += 1

            let graph = cut.cursor.graph
            let stages = graph.nodes.keys.sorted()
            let stage = stages.isEmpty ? nil : stages[Int(random.next() % UInt64(stages.count))]
            let roots = graph.roots.sorted()
            let root = roots.isEmpty ? nil : roots[Int(random.next() % UInt64(roots.count))]
            let event = past.cursor.position.flatMap { past.cursor.log.event(at: $0) }
            let title = "\(name) event \(k) of \(total) (number \(event?.id ?? 0), stage #\(stage ?? 0), pipeline #\(root ?? 0))"
            if let difference = difference(past: past, cut: cut, stage: stage, root: root, k: k, total: total,
                                                whole: failures.count < 2) {
                failures.append(title + ": " + difference)
                print("prefix oracle: differs: " + title + ": " + difference.split(separator: "\n").prefix(3).joined(separator: "\n"))
            }
        }
        return (failures, checked)
    }

    /// A replay of `messages`, as `pipescope replay` opens it: every message, the
    /// terminal's size, a tick.
    static func loaded(_ messages: [Message], process: String, tick: Int64) -> AppState {
        var state = AppState(targetName: process)
        for message in messages { _ = reduce(&state, message) }
        _ = reduce(&state, resize)
        _ = reduce(&state, .tick(nanos: tick))
        return state
    }

    /// The first thing the two show differently, in words; nil when they show the same.
    /// `whole`: with both screens whole when they differ.
    static func difference(past: AppState, cut: AppState, stage: NodeID?, root: NodeID?, k: Int, total: Int,
                           whole: Bool) -> String? {
        func screens(_ what: String, _ past: AppState, _ cut: AppState) -> String? {
            Self.screens(what, past, cut, whole: whole)
        }
        var past = past, cut = cut
        if k < total, past.cursor.position != k { return "the cursor is at \(past.cursor.position.map(String.init) ?? "live"), not \(k)" }
        func models<T: Equatable>(_ what: String, _ a: T, _ b: T) -> String? {
            a == b ? nil : "\(what) differ:\n  at the cursor: \(a)\n  cut there:     \(b)"
        }
        // The graph on screen, stage by stage.
        let (then, end) = (past.cursor.graph, cut.cursor.graph)
        if let d = models("the stages", then.nodes.keys.sorted(), end.nodes.keys.sorted()) { return d }
        for id in then.nodes.keys.sorted() where then[id] != end[id] {
            return "#\(id) differs:\n  at the cursor: \(then[id].map { "\($0)" } ?? "")\n  cut there:     \(end[id].map { "\($0)" } ?? "")"
        }
        if let d = models("the lints", past.warnings.lints, cut.warnings.lints) { return d }
        if let d = models("the waits", past.warnings.waits, cut.warnings.waits) { return d }
        let reports = [past, cut].map { WaitReport($0.cursor.graph, waits: $0.warnings.waits, lints: $0.warnings.lints).text }
        if let d = models("the waits reports", reports[0], reports[1]) { return d }
        // The table (the first screen).
        if let d = screens("the table", past, cut) { return d }
        if let d = models("the table's rows", Array(past.table.rows), Array(cut.table.rows)) { return d }
        // The tree's four panes, with a stage selected (its detail).
        press(&past, .toggleTable)
        press(&cut, .toggleTable)
        if let d = models("the tree's rows", past.tree.rows, cut.tree.rows) { return d }
        if let stage {
            select(stage, &past)
            select(stage, &cut)
        }
        if let d = screens("the tree with #\(stage ?? 0) selected", past, cut) { return d }
        // The warnings list, alone (the tree under it is compared above; its `◆ here` can
        // be half hidden by the list).
        press(&past, .toggleLints)
        press(&cut, .toggleLints)
        let lists = [past, cut].map { state in
            var buffer = ScreenBuffer(width: width, height: height)
            LintsOverlay.render(state, theme: .plainUnicode, area: Rect(x: 0, y: 1, width: width, height: height - 2),
                                into: &buffer)
            return buffer.lines()
        }
        if let d = models("the warnings lists", lists[0], lists[1]) { return d }
        press(&past, .dismiss)
        press(&cut, .dismiss)
        // One pipeline alone: its tree, its timeline, its events.
        if let root {
            scope(root, &past)
            scope(root, &cut)
            if let d = models("pipeline #\(root)'s tree rows", past.tree.rows, cut.tree.rows) { return d }
            if let d = screens("pipeline #\(root) alone", past, cut) { return d }
            scope(nil, &past)
            scope(nil, &cut)
        }
        return nil
    }

    private static func press(_ state: inout AppState, _ action: Action) {
        _ = reduce(&state, .action(action))
    }

    /// Selects `stage` in the tree, as the arrows would.
    private static func select(_ stage: NodeID, _ state: inout AppState) {
        state.tree.selection = stage
        _ = reduce(&state, resize)
        top(&state)
    }

    /// Scrolls the tree to its top, or as little below it as shows the selection: where
    /// it was scrolled before depends on the keys that came before, not on the moment.
    private static func top(_ state: inout AppState) {
        state.tree.offset = 0
    }

    /// Shows pipeline `root` alone (nil: every pipeline), as Enter on its table row would.
    private static func scope(_ root: NodeID?, _ state: inout AppState) {
        state.tree.scope = root
        _ = reduce(&state, resize)
        top(&state)
    }

    /// The first line the two screens differ on, masked as the type's documentation says.
    static func screens(_ what: String, _ past: AppState, _ cut: AppState, whole: Bool) -> String? {
        var a = render(past), b = render(cut)
        // The mode: HISTORY k/N at the cursor, REPLAY at the cut's end.
        a[0] = a[0].replacingOccurrences(of: #"HISTORY [0-9]+/[0-9]+"#, with: "REPLAY", options: .regularExpression)
        a[0] = collapsed(a[0])
        b[0] = collapsed(b[0])
        // The hints: the history's line at the cursor, the keys at the end.
        a[a.count - 1] = ""
        b[b.count - 1] = ""
        var marked = false
        for i in a.indices {
            if a[i].contains("◆"), a[i].contains(" ◆ here"),
               let header = a[..<i].lastIndex(where: { $0.contains("STAGE") && $0.contains("STATUS") }),
               let status = a[header].range(of: "STATUS").map({ a[header].distance(from: a[header].startIndex, to: $0.lowerBound) }) {
                // The mark takes the room of the name's tail and of the marks after it
                // (`TimerPubl… ◆ here`): the label's words must be the other's, or the start
                // of one; the columns after it, the same.
                let (label, rest) = (Array(a[i]).prefix(status), Array(a[i]).dropFirst(status))
                let (otherLabel, otherRest) = (Array(b[i]).prefix(status), Array(b[i]).dropFirst(status))
                let words = String(label).replacingOccurrences(of: " ◆ here", with: "").split(separator: " ")
                let other = String(otherLabel).split(separator: " ")
                let fits = words.allSatisfy { word in
                    other.contains { $0 == word || (word.hasSuffix("…") && $0.hasPrefix(word.dropLast())) }
                }
                if fits, String(rest) == String(otherRest) { a[i] = b[i] }
            }
            // The ruler: ▼ at the cursor, between the timeline pane's borders.
            if past.page != .table, past.cursor.position != nil, let mark = a[i].firstIndex(of: "▼") {
                let from = a[i][..<mark].lastIndex(of: "│").map { a[i].distance(from: a[i].startIndex, to: $0) } ?? 0
                let after = a[i][mark...].firstIndex(of: "│").map { a[i].distance(from: a[i].startIndex, to: $0) }
                    ?? a[i].count
                if after != a[i].count, a[i][a[i].index(before: a[i].index(a[i].startIndex, offsetBy: after))] != "▼" {
                    return "\(what): the cursor's ▼ is not in the ruler's rightmost column:\n  \(a[i])"
                }
                marked = true
                a[i] = masked(a[i], from: from, to: after)
                b[i] = masked(b[i], from: from, to: after)
            }
        }
        if past.page != .table, past.cursor.position != nil, !marked {
            return "\(what): no ▼ marks the cursor on the timeline"
        }
        for i in a.indices where a[i] != b[i] {
            let screens = "\n--- at the cursor ---\n\(render(past).joined(separator: "\n"))\n--- cut there ---\n\(render(cut).joined(separator: "\n"))"
            return "\(what), line \(i):\n  at the cursor: \(a[i])\n  cut there:     \(b[i])" + (whole ? screens : "")
        }
        return nil
    }

    static func render(_ state: AppState) -> [String] {
        var buffer = ScreenBuffer(width: width, height: height)
        ScreenView.render(state, theme: .plainUnicode, into: &buffer)
        return buffer.lines()
    }

    private static func collapsed(_ line: String) -> String {
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    private static func masked(_ line: String, from: Int, to: Int) -> String {
        let chars = Array(line)
        let padded = chars + [Character](repeating: " ", count: max(0, to - chars.count))
        return String(padded[..<from]) + "[ruler]" + String(padded[to...])
    }
}

/// A small seeded generator (SplitMix64), so a run can be repeated from its seed.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
