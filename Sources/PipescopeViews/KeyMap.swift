import PipescopeGraph
import PipescopeModel
import TerminalKit

/// One key binding: the keys, what they do, and how help and the hint bar name them.
public struct KeyBinding: Sendable {
    public let keys: [Key]
    /// How the keys are written on screen: "↑ k" (``Theme/text(_:)`` makes it ASCII).
    public let label: String
    public let action: Action
    public let help: String
    /// Shown in the bottom hint bar when set.
    public let hint: String?
}

/// The one table of keys. The app loop looks actions up here, and the help overlay and
/// the hint bar are drawn from it, so they cannot drift apart.
public enum KeyMap {
    public static let bindings: [KeyBinding] = [
        KeyBinding(keys: [.character("t")], label: "t", action: .toggleTable,
                   help: "switch between the pipelines table and the stage tree", hint: nil),
        KeyBinding(keys: [.character("T")], label: "T", action: .toggleTimeline,
                   help: "the timeline screen: lanes across the width, the event log below (T or Esc: back)",
                   hint: nil),
        KeyBinding(keys: [.enter], label: "Enter", action: .openPipeline,
                   help: "open the tree of the selected pipeline only (a ×N row: its oldest live one; Esc: back to the table)",
                   hint: "Enter open"),
        KeyBinding(keys: [.character("<")], label: "<", action: .sortPrevious,
                   help: "table: sort by the previous column (shown while sorted by)", hint: nil),
        KeyBinding(keys: [.character(">")], label: ">", action: .sortNext, help: "table: sort by the next column (shown while sorted by)",
                   hint: "< > sort"),
        KeyBinding(keys: [.character("i")], label: "i", action: .invertSort, help: "table: invert the sort", hint: nil),
        KeyBinding(keys: [.up, .character("k")], label: "↑ k", action: .moveUp,
                   help: "select the row above (help: scroll up)", hint: nil),
        KeyBinding(keys: [.down, .character("j")], label: "↓ j", action: .moveDown,
                   help: "select the row below (help: scroll down)", hint: "↑↓ move"),
        KeyBinding(keys: [.tab], label: "Tab", action: .focusNext,
                   help: "next pane, marked * (the arrows act on it: history in the log and timeline, scroll in "
                       + "Stage)", hint: nil),
        KeyBinding(keys: [.backTab], label: "S-Tab", action: .focusPrevious, help: "previous pane", hint: nil),
        KeyBinding(keys: [.pageUp], label: "PgUp", action: .pageUp, help: "up one page", hint: nil),
        KeyBinding(keys: [.pageDown], label: "PgDn", action: .pageDown, help: "down one page", hint: nil),
        KeyBinding(keys: [.home], label: "Home", action: .home, help: "first row", hint: nil),
        KeyBinding(keys: [.end], label: "End", action: .end, help: "last row", hint: nil),
        KeyBinding(keys: [.left, .character("h")], label: "← h", action: .collapse,
                   help: "fold the stage's upstream or close a group (×N), or go to its downstream; table: close a ×N row",
                   hint: nil),
        KeyBinding(keys: [.right, .character("l")], label: "→ l", action: .expand,
                   help: "unfold, open a group of ended stages alike (×N), or go upstream; table: open a ×N row",
                   hint: nil),
        KeyBinding(keys: [.character(" ")], label: "space", action: .togglePause,
                   help: "pause the program's pipelines, or resume them", hint: "space pause"),
        KeyBinding(keys: [.character("n")], label: "n", action: .step,
                   help: "release one waiting event (type a count first for more: 5n)", hint: "n step"),
        KeyBinding(keys: [.character("N")], label: "N", action: .stepMany, help: "release ten waiting events", hint: nil),
        KeyBinding(keys: [.character("o")], label: "o", action: .choosePending,
                   help: "choose which waiting thread n releases (default: the oldest)", hint: nil),
        KeyBinding(keys: [.character("[")], label: "[", action: .history(-1), help: "back one event in history", hint: nil),
        KeyBinding(keys: [.character("]")], label: "]", action: .history(1), help: "forward one event in history", hint: nil),
        KeyBinding(keys: [.character("{")], label: "{", action: .history(-50), help: "back 50 events", hint: nil),
        KeyBinding(keys: [.character("}")], label: "}", action: .history(50), help: "forward 50 events", hint: nil),
        KeyBinding(keys: [.character("g")], label: "g", action: .historyStart, help: "go to the oldest event kept", hint: nil),
        KeyBinding(keys: [.character("G")], label: "G", action: .historyLive, help: "back to live", hint: nil),
        KeyBinding(keys: [.character("s")], label: "s", action: .save,
                   help: "save everything held of this run as a recording (live or ended)", hint: nil),
        KeyBinding(keys: [.character("r")], label: "r", action: .waitForRestart,
                   help: "after the program ended: wait for it to start again, keeping this run", hint: nil),
        KeyBinding(keys: [.character("+")], label: "+", action: .zoom(2), help: "zoom the timeline in", hint: nil),
        KeyBinding(keys: [.character("-")], label: "-", action: .zoom(-2), help: "zoom the timeline out", hint: nil),
        KeyBinding(keys: [.character("=")], label: "=", action: .fitTimeline, help: "fit all kept history in the timeline", hint: nil),
        KeyBinding(keys: [.character("f")], label: "f", action: .toggleLogFilter,
                   help: "event log: all pipelines' events, the selected pipeline's, the selected stage's (in turn)",
                   hint: nil),
        KeyBinding(keys: [.character("/")], label: "/", action: .startFilter,
                   help: "filter: substring or regex on operator, types, last value, location (n N: next match)", hint: "/ filter"),
        KeyBinding(keys: [.character("x")], label: "x", action: .toggleEnded,
                   help: "hide or show ended stages: whole pipelines and a live one's ended inners", hint: nil),
        KeyBinding(keys: [.character("F")], label: "F", action: .toggleFolding,
                   help: "table: fold pipelines from one place into one row (×N), or show each on its own", hint: nil),
        KeyBinding(keys: [.character("v")], label: "v", action: .toggleWatch,
                   help: "watch the stage: describe every value (default: numbers and strings always, others 1 per \(FlushInterval.text))",
                   hint: nil),
        KeyBinding(keys: [.character("c")], label: "c", action: .cancelSelected,
                   help: "cancel the selected stage, or a table row's root (shows what it reaches first; a ×N row: open it, pick one)",
                   hint: nil),
        KeyBinding(keys: [.character("y")], label: "y", action: .confirm, help: "confirm the cancel", hint: nil),
        KeyBinding(keys: [.character("e")], label: "e", action: .explain,
                   help: "explain: where this value came from (the event selected in the log, else the stage's last value)",
                   hint: nil),
        KeyBinding(keys: [.character("w")], label: "w", action: .toggleLints,
                   help: "list the lifecycle warnings (⚠ in the tree)", hint: "w warnings"),
        KeyBinding(keys: [.character("?")], label: "?", action: .toggleHelp, help: "show or hide this help", hint: "? help"),
        KeyBinding(keys: [.escape], label: "Esc", action: .dismiss,
                   help: "close the help or the warnings, keep the stage, clear the message; one pipeline's tree: back to the table",
                   hint: nil),
        KeyBinding(keys: [.character("q")], label: "q", action: .quit, help: "quit (the program keeps running)", hint: "q quit"),
    ]

    /// What quitting does besides closing the inspector, which the help says on `q`'s line.
    public enum Quitting: Sendable {
        /// Attached to a program that runs on without the inspector (`pipescope attach`).
        case programKeepsRunning
        /// The inspector started the program and stops it (plain `pipescope`: the demo).
        case programStops
        /// A recording is shown: there is no program.
        case recording

        /// What quitting does in `state`'s session.
        public init(_ state: AppState) {
            if state.session.isReplay {
                self = .recording
            } else {
                self = state.quitStopsProgram ? .programStops : .programKeepsRunning
            }
        }
    }

    /// What `binding` does, as the help says it: its ``KeyBinding/help``, but for `q`
    /// the truth about the program when the inspector quits.
    public static func help(of binding: KeyBinding, quitting: Quitting) -> String {
        guard binding.action == .quit else { return binding.help }
        switch quitting {
        case .programKeepsRunning: return binding.help
        case .programStops: return "quit, and stop the demo program that pipescope started"
        case .recording: return "quit"
        }
    }

    private static let table: [Key: Action] = {
        var t: [Key: Action] = [:]
        for b in bindings { for k in b.keys { t[k] = b.action } }
        for d in 0...9 { t[.character(Character(String(d)))] = .digit(d) }
        return t
    }()

    public static func action(for key: Key) -> Action? { table[key] }

    /// The action for `key` in the layer that has the keyboard: text while the filter is
    /// typed, the table otherwise. The reducer then decides what the layer does with it.
    /// While a cancel waits for its confirmation, a key bound to nothing keeps the stage
    /// as every other key but `y` and `q` does (``Action/dismiss``), so "any other key
    /// keeps it" is true of every key.
    public static func action(for key: Key, in layer: KeyLayer) -> Action? {
        switch layer {
        case .filtering: return filterAction(for: key)
        case .confirmingCancel: return action(for: key) ?? .dismiss
        case .browsing, .help, .warnings, .explaining: return action(for: key)
        }
    }

    /// The keys that edit the filter while it is typed; every other character is text.
    public static let filterBindings: [KeyBinding] = [
        KeyBinding(keys: [.backspace, .delete], label: "Backspace", action: .filterBackspace,
                   help: "delete the last character", hint: nil),
        KeyBinding(keys: [.enter], label: "Enter", action: .filterAccept, help: "keep the filter", hint: "Enter keep"),
        KeyBinding(keys: [.escape], label: "Esc", action: .dismiss, help: "clear the filter", hint: "Esc clear"),
    ]

    private static let filterTable: [Key: Action] = {
        var t: [Key: Action] = [:]
        for b in filterBindings { for k in b.keys { t[k] = b.action } }
        return t
    }()

    /// While the filter is being typed, keys are text.
    public static func filterAction(for key: Key) -> Action? {
        if let action = filterTable[key] { return action }
        if case .character(let c) = key { return .filterType(c) }
        return nil
    }

    /// The hint bar's entries on the tree, in table order.
    public static var hints: [String] {
        bindings.filter { !tableOnly.contains($0.action) }.compactMap(\.hint)
    }

    /// Bindings that act only on the pipelines table (their hints are the table's).
    static let tableOnly: Set<Action> = [.openPipeline, .sortNext, .sortPrevious, .invertSort]

    /// The hint bar on the pipelines table: moving, opening, sorting, the tree, help, quit.
    public static var tableHints: [String] {
        ["↑↓ move", ownHint(.openPipeline, or: "open"), ownHint(.sortNext, or: "sort"), hint(.invertSort, does: "invert"),
         hint(.toggleTable, does: "tree"), ownHint(.toggleHelp, or: "help"), ownHint(.quit, or: "quit")]
    }

    /// The hint bar for a pane of the tree screen: what the arrows do there, then the keys
    /// that work everywhere (at most 7 in all; the tree pane adds the way to the table).
    public static func hints(for pane: Pane) -> [String] {
        let everywhere = hints.filter { !$0.hasPrefix("↑↓") }
        switch pane {
        case .tree: return hints + [hint(.toggleTable, does: "table")]
        case .timeline: return ["←→ cursor", "+ - zoom", "G live"] + everywhere.prefix(4)
        case .events: return ["↑↓ history", "f which events"] + everywhere.prefix(5)
        case .detail: return ["↑↓ PgUp PgDn scroll", "Tab next pane"] + everywhere.prefix(4)
        }
    }

    // MARK: - Hints for the hint bar's other lines

    /// How the first key bound to `action` is written ("c"); a digit is itself.
    public static func label(for action: Action) -> String? {
        if case .digit(let d) = action { return String(d) }
        return (bindings + filterBindings).first { $0.action == action }?.label
    }

    /// The keys bound to `actions` and what they do, as the hint bar writes it:
    /// `hint(.history(-1), .history(1), does: "step")` is "[ ] step".
    public static func hint(_ actions: Action..., does what: String) -> String {
        (actions.compactMap { label(for: $0) } + [what]).joined(separator: " ")
    }

    /// The binding's own hint for `action` ("? help"), or its label and `fallback`.
    static func ownHint(_ action: Action, or fallback: String) -> String {
        bindings.first { $0.action == action }?.hint ?? hint(action, does: fallback)
    }

    /// While looking at the past: stepping through it and back to live.
    public static var historyHints: [String] {
        [hint(.history(-1), .history(1), does: "step"), hint(.history(-50), .history(50), does: "50"),
         hint(.historyLive, does: "live")]
    }

    /// After the program ended: what still works, and what to do next (`r` only while
    /// not already waiting for the next run).
    public static func endedHints(waiting: Bool) -> [String] {
        [hint(.history(-1), .history(1), .historyStart, does: "history"), hint(.save, does: "save")]
            + (waiting ? [] : [hint(.waitForRestart, does: "wait for restart")]) + [hint(.quit, does: "quit")]
    }

    /// While paused: stepping and resuming (``chooseHint`` when several threads wait).
    public static var pausedHints: [String] { [hint(.step, does: "step"), hint(.togglePause, does: "resume")] }
    public static var chooseHint: String { hint(.choosePending, does: "choose") }

    /// While the filter is typed.
    public static var filterHints: [String] { filterBindings.compactMap(\.hint) }

    /// The keys that act in `layer`, for the hint bar: over the help or the warnings, what
    /// closes, what switches to the other, and quit; over a confirmation, what confirms.
    public static func hints(for layer: KeyLayer) -> [String] {
        let quit = ownHint(.quit, or: "quit")
        switch layer {
        case .help:
            return [hint(.toggleHelp, does: "or " + (label(for: .dismiss) ?? "Esc") + " close"),
                    ownHint(.toggleLints, or: "warnings"), quit]
        case .warnings:
            return [hint(.toggleLints, does: "or " + (label(for: .dismiss) ?? "Esc") + " close"),
                    ownHint(.toggleHelp, or: "help"), quit]
        case .confirmingCancel:
            // Every key but these closes the confirmation and keeps the stage (unbound
            // keys too: ``action(for:in:)``).
            return [hint(.confirm, does: "cancels it"), hint(.quit, does: "quits"), "any other key keeps it"]
        case .explaining:
            return [hint(.explain, does: "or " + (label(for: .dismiss) ?? "Esc") + " close"), "↑↓ scroll", quit]
        case .filtering:
            return filterHints
        case .browsing:
            return hints
        }
    }
}
