/// How a recording ends, as its reader found it: the one answer `pipescope replay`,
/// `export` and `record --perfetto` give, and the exporter writes as a trace's last instant.
///
/// A recording whose writer closed it ends with its end mark (``complete``). Without one, the
/// file ends between two messages (``unfinished``) or in the middle of one
/// (``truncated(bytes:afterMessages:atByte:)``): its writer stopped (killed, crashed, a full
/// disk), or the file is a copy cut short (`head -c`, an interrupted transfer); the bytes
/// alone cannot tell which, so the words name both. A frame that cannot be read ends it too
/// (``damaged(reason:afterMessages:atByte:)``); or its writer is still at work
/// (``beingWritten(afterMessages:atByte:)``: a writer holds the file's lock, see
/// `RecordingReader.beingWritten`). Every case but the first keeps the messages before it.
///
/// ```swift
/// let end = RecordingEnd(damage: nil, truncatedBytes: 934, closed: false, messages: 41, byte: 1_220_456)
/// end.note(path: "crash.pipescope", events: 41_203, lastEventAt: "12:03:11.402", doing: "Replaying")
/// // "crash.pipescope: the recording ends after 41203 events at 12:03:11.402, inside a batch: the last
/// //  934 bytes, after byte 1220456, are an incomplete batch (its program stopped while writing it, or
/// //  the file is a copy cut short). Replaying those events; if it is a copy, copy the whole file again."
/// ```
public enum RecordingEnd: Equatable, Sendable, CustomStringConvertible {
    /// The writer closed the recording (its end mark).
    case complete
    /// The file ends after a whole message, but without the end mark: the writer
    /// stopped without closing it (killed, crashed, or its disk full), or it is a copy cut
    /// short between two messages.
    case unfinished(afterMessages: Int, atByte: Int)
    /// The file ends in the middle of a frame: the program stopped while writing it, or
    /// the file is a copy cut short.
    case truncated(bytes: Int, afterMessages: Int, atByte: Int)
    /// A frame could not be read; nothing after it can be.
    case damaged(reason: String, afterMessages: Int, atByte: Int)
    /// A writer still held the file when it was read: what was written so far (up to the
    /// last whole message) is all there is yet.
    case beingWritten(afterMessages: Int, atByte: Int)

    /// What a reader found when it stopped: the damage where it stopped reading (if any),
    /// the bytes cut off after the last whole message, whether it read the end mark, and
    /// the messages and bytes read up to there, and whether a writer held the file
    /// (``RecordingReader``'s `beingWritten`): then a missing end mark or a cut frame is
    /// where the writer has got to.
    public init(damage: String?, truncatedBytes: Int, closed: Bool, messages: Int, byte: Int,
                beingWritten: Bool = false) {
        if let damage {
            self = .damaged(reason: damage, afterMessages: messages, atByte: byte)
        } else if beingWritten, !closed {
            self = .beingWritten(afterMessages: messages, atByte: byte)
        } else if truncatedBytes > 0 {
            self = .truncated(bytes: truncatedBytes, afterMessages: messages, atByte: byte)
        } else if !closed {
            self = .unfinished(afterMessages: messages, atByte: byte)
        } else {
            self = .complete
        }
    }

    /// The exporter's words, which a trace's last instant carries.
    public var description: String {
        switch self {
        case .complete:
            return "the recording is complete"
        case .unfinished(let messages, let offset):
            return "the recording ends without its end mark, between two messages (its program stopped without closing it, "
                + "or the file is a copy cut short): exported its \(messages) complete messages, up to byte \(offset)"
        case .truncated(let bytes, let messages, let offset):
            return "the recording ends in the middle of a message (its program stopped while writing it, or the file is "
                + "a copy cut short): exported its \(messages) complete messages, up to byte \(offset); the last \(bytes) bytes were cut off"
        case .damaged(let reason, let messages, let offset):
            return "the recording is damaged after \(messages) messages (at byte \(offset)): \(reason). "
                + "Exported everything before the damage"
        case .beingWritten(let messages, let offset):
            return "the recording was still being written: exported its \(messages) messages written so far, up to byte \(offset)"
        }
    }

    /// Ends that mean less was read than was recorded.
    public var isDamaged: Bool {
        if case .damaged = self { return true }
        return false
    }

    /// Bytes cut off after the last whole message (0 unless ``truncated(bytes:afterMessages:atByte:)``).
    public var truncatedBytes: Int {
        if case .truncated(let bytes, _, _) = self { return bytes }
        return 0
    }

    /// What was wrong with the frame where reading stopped, for a damaged recording.
    public var damage: String? {
        if case .damaged(let reason, _, _) = self { return reason }
        return nil
    }

    /// The sentence for standard error when what a recording holds before it stops has no
    /// stage to show: it ends inside its first snapshot (a recording starts with one, the
    /// program's whole graph), or that snapshot had no stage and the cut comes before any
    /// batch that makes one. What the file holds, why, and what to do; `replay` and
    /// `export` then exit non-zero rather than show or write an empty program. (A complete
    /// recording of a program that made no pipeline is no such case.)
    ///
    /// ```swift
    /// RecordingEnd.truncated(bytes: 1_946, afterMessages: 1, atByte: 54).nothingToShow(path: "cut.pipescope", snapshotRead: false)
    /// // "cut.pipescope ends inside its first snapshot (the program's graph, which a recording
    /// //  starts with): 1946 bytes of it, after byte 54, and nothing after. No stage can be shown. …"
    /// ```
    public func nothingToShow(path: String, snapshotRead: Bool) -> String {
        let nothing = "No stage can be shown."
        let copy = "A copy cut short (an interrupted transfer, `head -c`)? Copy the whole file again. "
            + "A program killed while writing it? Record it again."
        if snapshotRead {
            let stops: String
            switch self {
            case .complete: return "\(path) holds no stage: the program made no pipeline while it was recorded."
            case .unfinished(_, let byte): stops = "after byte \(byte), without its end mark"
            case .truncated(let bytes, _, let byte): stops = "inside a batch: the last \(bytes) bytes, after byte \(byte)"
            case .damaged(let reason, _, let byte):
                return "\(path) holds no stage: its first snapshot had none (no pipeline yet when recording began), "
                    + "and it is damaged at byte \(byte), \(reason), before any batch that makes one. \(nothing)"
            case .beingWritten(_, let byte):
                return "\(path) is still being written and holds no stage yet (\(byte) bytes so far): its first snapshot "
                    + "had none and no pipeline has been made since. Run the command again in a moment."
            }
            return "\(path) holds no stage: its first snapshot had none (no pipeline yet when recording began), and it "
                + "ends \(stops), before any batch that makes one. \(nothing) \(copy)"
        }
        switch self {
        case .complete:
            return "\(path) holds no snapshot: its writer closed it before writing one. \(nothing)"
        case .unfinished(_, let byte):
            return "\(path) ends after byte \(byte), before its first snapshot (the program's graph, which a recording "
                + "starts with). \(nothing) \(copy)"
        case .truncated(let bytes, _, let byte):
            return "\(path) ends inside its first snapshot (the program's graph, which a recording starts with): "
                + "\(bytes) byte\(bytes == 1 ? "" : "s") of it, after byte \(byte), and nothing after. \(nothing) \(copy)"
        case .damaged(let reason, _, let byte):
            return "\(path) is damaged before its first snapshot is whole: at byte \(byte), \(reason). \(nothing)"
        case .beingWritten(_, let byte):
            return "\(path) is still being written and its first snapshot is not whole yet (\(byte) bytes so far). "
                + "\(nothing) Run the command again in a moment."
        }
    }

    /// The sentence for standard error, the same from every command: how far the recording
    /// reaches (`events`, the last at `lastEventAt`), why it stops there, and what the command
    /// `doing` ("Replaying", "Exported") does with it. Nil for a complete recording.
    public func note(path: String, events: Int, lastEventAt: String?, doing: String) -> String? {
        let after = "after \(events) event\(events == 1 ? "" : "s")" + (lastEventAt.map { " at \($0)" } ?? "")
        let copyAgain = "; if it is a copy, copy the whole file again."
        switch self {
        case .complete:
            return nil
        case .unfinished(_, let byte):
            return "\(path): the recording ends \(after), without its end mark (none after byte \(byte)): its program "
                + "stopped without closing it (killed or crashed, or its disk filled), or the file is a copy cut short. "
                + "\(doing) those events\(copyAgain)"
        case .truncated(let bytes, _, let byte):
            return "\(path): the recording ends \(after), inside a batch: the last \(bytes) byte\(bytes == 1 ? "" : "s"), "
                + "after byte \(byte), \(bytes == 1 ? "is" : "are") an incomplete batch (its program stopped while writing "
                + "it, or the file is a copy cut short). \(doing) those events\(copyAgain)"
        case .damaged(let reason, _, let byte):
            return "\(path) is a damaged recording: at byte \(byte), \(after), \(reason). "
                + "Nothing after that can be read. \(doing) everything before it."
        case .beingWritten:
            return "\(path) is still being written (the program recording it still runs): so far it ends \(after). "
                + "\(doing) those events; run the command again for newer ones, or after the program ends for all of them."
        }
    }

    /// The sentence for a recording that was followed while its writer wrote it (`replay
    /// --follow`), once that writer let go of the file: here a missing end mark is known to
    /// be the writer stopping, not a copy cut short. Nil while it is still being written.
    ///
    /// ```swift
    /// RecordingEnd.complete.followed(path: "app.pipescope", events: 386, lastEventAt: "22:51:46.168")
    /// // "app.pipescope: its writer closed it after 386 events, the last at 22:51:46.168: all of it is shown."
    /// ```
    public func followed(path: String, events: Int, lastEventAt: String?) -> String? {
        let after = "after \(events) event\(events == 1 ? "" : "s")" + (lastEventAt.map { ", the last at \($0)" } ?? "")
        let why = "without closing it (the program was killed or crashed, or its disk filled)"
        switch self {
        case .complete:
            return "\(path): its writer closed it \(after): all of it is shown."
        case .unfinished:
            return "\(path): its writer stopped \(after), \(why). All of it is shown."
        case .truncated(let bytes, _, _):
            return "\(path): its writer stopped \(after), \(why), in the middle of a batch (\(bytes) "
                + "byte\(bytes == 1 ? "" : "s") of it written). Everything before that batch is shown."
        case .damaged:
            return note(path: path, events: events, lastEventAt: lastEventAt, doing: "Showing")
        case .beingWritten:
            return nil
        }
    }
}
