import Foundation
import PipescopeGraph
import PipescopeWire

/// A recording: a magic line, then the probe's messages as frames, exactly as an
/// inspector received them (Welcome, Snapshot with the string table, then PackedBatches;
/// version 1 recordings have EventBatches), then an end mark when the writer closed it.
/// Reading gives the messages as they are; unpacking their batches needs the stream's
/// string table, so the reader of the messages does it in order (``WireStreamReader``).
///
/// How a recording survives its writer being killed at any moment:
/// - Every flush of the probe reaches the file as one `write` of whole frames, so a kill
///   loses at most the flush being written, and leaves it recognisably cut: a frame
///   shorter than its length header says (``RecordingReader/truncatedBytes``).
/// - A writer that closes the file appends the **end mark**, a frame that no protocol
///   message can be (its first byte is 0, which no protobuf field tag is) with why the
///   recording ended. A file without one was not closed: its writer was killed, crashed,
///   or its disk filled (``RecordingReader/endReason``).
/// - A power loss can leave the blocks the system had not written yet as zeros: a tail
///   of zeros is read as a cut, not as damage.
///
/// ```swift
/// let file = try RecordingFormat.read(Data(contentsOf: url))
/// var stream = WireStreamReader()
/// for message in file.messages { … try stream.batch(message.packed) … }
/// if file.truncated { print("recording ends mid-frame") }
/// if file.endReason == nil { print("the writer stopped without closing it") }
/// ```
public enum RecordingFormat {
    /// The first bytes of every recording.
    public static let magic: [UInt8] = Array("PIPESCOPE RECORDING 1\n".utf8)

    public struct Contents {
        public var messages: [ServerMessage]
        /// Bytes after the last complete frame: the program stopped while writing, or a copy cut short.
        public var truncatedBytes: Int
        public var truncated: Bool { truncatedBytes > 0 }
        /// Why the writer closed the recording, from its end mark; nil when it has none.
        public var endReason: String?
    }

    /// The end mark's first bytes: a zero (no protobuf message starts with field 0),
    /// then a line that says what it is. Why the recording ended follows, in UTF-8.
    public static let endMarkPrefix: [UInt8] = [0] + Array("PIPESCOPE END\n".utf8)

    /// The end mark as a frame, saying why the recording ended ("the program exited").
    public static func endMark(reason: String) -> [UInt8] {
        Framing.frame(endMarkPrefix + Array(reason.utf8.prefix(1024)))
    }

    /// The reason in `payload` if it is an end mark.
    public static func endReason<Bytes: Collection>(of payload: Bytes) -> String? where Bytes.Element == UInt8 {
        guard payload.first == 0, payload.count >= endMarkPrefix.count,
              payload.prefix(endMarkPrefix.count).elementsEqual(endMarkPrefix) else { return nil }
        return String(decoding: payload.dropFirst(endMarkPrefix.count), as: UTF8.self)
    }

    public enum ReadError: Error, CustomStringConvertible, Equatable {
        case notARecording
        /// Not a byte: a writer killed as it created the file, before its first line.
        case empty
        case corrupt(afterMessages: Int, reason: String)

        public var description: String {
            switch self {
            case .empty:
                return "this file is empty, not a Pipescope recording (a recording killed as it started leaves one). "
                    + "Make one with `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE."
            case .notARecording:
                return "this file is not a Pipescope recording (it does not start with the line PIPESCOPE RECORDING 1). "
                    + "Make one with `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE."
            case .corrupt(let n, let reason):
                return "the recording is damaged after \(n) messages: \(reason)"
            }
        }
    }

    /// What is wrong with a recording's frame, in a recording's words: a ``FrameError``'s
    /// ``FrameError/fault`` (its description blames a peer, and a file is not one).
    public static func damage(_ error: Error) -> String {
        (error as? FrameError)?.fault ?? "\(error)"
    }

    /// Reads a whole recording. A damaged frame in the middle is an error; an
    /// incomplete frame at the end is not (see ``Contents/truncatedBytes``).
    public static func read<Bytes: Collection>(_ bytes: Bytes) throws -> Contents where Bytes.Element == UInt8 {
        var reader = try RecordingReader(bytes: Array(bytes))
        var messages: [ServerMessage] = []
        while let message = try reader.next() { messages.append(message) }
        return Contents(messages: messages, truncatedBytes: reader.truncatedBytes, endReason: reader.endReason)
    }
}
