import PipescopeGraph

/// What the user asked for, independent of which key asked. The keymap (in
/// PipescopeViews) binds keys to these; the reducer only ever sees actions.
public enum Action: Hashable, Sendable {
    case moveUp, moveDown, pageUp, pageDown, home, end
    case collapse, expand
    case toggleHelp
    /// Show or hide the list of warnings.
    case toggleLints
    /// Show where the selected event, or the selected stage's last value, came from.
    case explain
    case dismiss
    case quit
    /// Ask to cancel the selected stage (a confirmation comes first).
    case cancelSelected
    /// Confirm what is being asked (the cancel).
    case confirm
    /// Pause the program's pipelines, or resume them.
    case togglePause
    /// Release one waiting event (or the typed count).
    case step
    /// Release ten waiting events (or the typed count).
    case stepMany
    /// A digit typed before `n`: how many events to step.
    case digit(Int)
    /// Choose the next waiting event for `n` to release (several threads wait).
    case choosePending
    /// Move the history cursor by this many events (negative: back in time).
    case history(Int)
    /// Save everything the inspector holds of the run on screen as a recording.
    case save
    /// After the program ended: wait for it to start again and attach to the new run.
    case waitForRestart
    /// Go to the oldest kept event.
    case historyStart
    /// Follow live events again.
    case historyLive
    /// Zoom the timeline in (positive: divide the scale) or out (negative: multiply).
    case zoom(Int)
    /// Fit all of the kept history into the timeline.
    case fitTimeline
    /// The event log shows only the selected stage's events, or all.
    case toggleLogFilter
    /// Start typing a filter (`/`).
    case startFilter
    /// Move the focus to the next or previous pane.
    case focusNext, focusPrevious
    /// Hide or show pipelines that have ended.
    case toggleEnded
    /// The pipelines table: fold the pipelines from one place into one row (`×N`), or
    /// show each on its own (``PlaceFolds``).
    case toggleFolding
    /// Describe every value of the selected stage (or stop): by default only scalars
    /// and one value per stage per flush window get text.
    case toggleWatch
    /// Switch between the pipelines table and the stage tree.
    case toggleTable
    /// Open the timeline screen, or go back to the tree from it.
    case toggleTimeline
    /// Open the selected pipeline's tree, only that pipeline (Enter on a table row).
    case openPipeline
    /// Sort the pipelines table by the next (`>`) or previous (`<`) column.
    case sortNext, sortPrevious
    /// Invert the pipelines table's sort.
    case invertSort
    /// Typing the filter: a character, backspace, accept, or clear.
    case filterType(Character)
    case filterBackspace
    case filterAccept
}

/// Every input the app reacts to, applied by ``reduce(_:_:)``.
public enum Message: Sendable {
    case action(Action)
    /// The program said who it is; read-only when it (or this inspector) refuses commands
    /// that change it.
    case attached(process: String, pid: Int32, readOnly: Bool = false)
    /// A recording is being shown instead of a live program.
    case replaying(file: String, process: String, pid: Int32)
    /// The program answered a command (`command` is its id, 0 when not one of ours).
    case acknowledged(command: UInt64 = 0, ok: Bool, text: String)
    /// The whole graph (on attach, or after the inspector fell behind).
    case snapshot(GraphSnapshot)
    case batch(EventBatch)
    case disconnected(String)
    /// Something for the person to read on the status line: a replay's note of where its
    /// recording ends (cut short, still being written), which standard error alone would
    /// show only after the inspector quits.
    case notice(Notice)
    /// Where the history just folded begins: sent after the messages of a past the
    /// program's flight recorder kept (``HistoryOrigin``), before the live ones.
    case historyOrigin(HistoryOrigin)
    /// Wall-clock time, sent by the app loop a few times a second.
    case tick(nanos: Int64)
    /// How far a replay has read its recording (it is read while shown): `bytes` of
    /// `of`; the status line says "reading …" until they are equal.
    case reading(bytes: Int, of: Int)
    /// A replay follows its recording while its writer writes it (`replay --follow`): true
    /// when it starts following, false once the writer let go (closed the file, or died).
    case following(Bool)
    /// The terminal's size and what its layout gives each part (the views know the
    /// layout: `ScreenView.resized(width:height:)` makes this message).
    case resize(Geometry)
    /// How many lines the Stage pane's text has at its width (the app measures it after
    /// each key with the views' layout), so scrolling it stops at its last line.
    case detailLines(Int)
    /// How many rows the warnings list shows whole from its first (the app measures it
    /// with the views' layout after each key), so a page moves by what was shown.
    case warningsShown(Int)

    /// A resize with the sizes given by hand (tests of the model alone, which has no
    /// layout); the help then scrolls by the height less its box.
    public static func resize(width: Int, height: Int, treePageSize: Int, tablePageSize: Int = 10,
                              tableWidth: Int = 78) -> Message {
        .resize(Geometry(width: width, height: height, treePage: treePageSize, tablePage: tablePageSize,
                         tableWidth: tableWidth, helpPage: max(1, height - 6)))
    }
}

/// What the app loop must do after a message.
public enum Effect: Equatable, Sendable {
    case quit
    /// Ask the program to cancel this stage's subscription.
    case cancelNode(NodeID)
    case pause
    case resume
    case step(Int)
    /// Release one particular waiting event.
    case release(ticket: UInt64)
    /// Describe every value of these stages (none: back to the default policy).
    case watch([NodeID])
    /// Write the run on screen (its history from the oldest event kept) as a recording;
    /// the app answers with an `.acknowledged` message naming the file.
    case save
    /// Wait for a program of this name to start and attach to it (a new run).
    case waitForRestart(String)
}
