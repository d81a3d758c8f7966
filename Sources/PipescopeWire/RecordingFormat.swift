import Foundation
import PipescopeGraph

/// A recording: a magic line, then the probe's messages as frames, exactly as an
/// inspector received them (Welcome, Snapshot with the string table, then PackedBatches;
/// version 1 recordings have EventBatches). Reading gives the messages as they are;
/// unpacking their batches needs the stream's string table, so the reader of the
/// messages does it in order (``WireStreamReader``).
///
/// Appending a frame per batch makes a crash lose at most the batch being written. A
/// reader replays every complete frame and reports a truncated tail instead of failing.
///
/// ```swift
/// let file = try RecordingFormat.read(Data(contentsOf: url))
/// var stream = WireStreamReader()
/// for message in file.messages { … try stream.batch(message.packed) … }
/// if file.truncated { print("recording ends mid-frame") }
/// ```
public enum RecordingFormat {
    /// The first bytes of every recording.
    public static let magic: [UInt8] = Array("PIPESCOPE RECORDING 1\n".utf8)

    public struct Contents {
        public var messages: [ServerMessage]
        /// Bytes after the last complete frame: the program stopped while writing.
        public var truncatedBytes: Int
        public var truncated: Bool { truncatedBytes > 0 }
    }

    public enum ReadError: Error, CustomStringConvertible, Equatable {
        case notARecording
        case corrupt(afterMessages: Int, reason: String)

        public var description: String {
            switch self {
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
        guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else {
            throw ReadError.notARecording
        }
        var decoder = FrameDecoder()
        decoder.append(bytes.dropFirst(magic.count))
        var messages: [ServerMessage] = []
        while true {
            let payload: ArraySlice<UInt8>?
            do {
                payload = try decoder.next()
            } catch {
                throw ReadError.corrupt(afterMessages: messages.count, reason: damage(error))
            }
            guard let payload else { break }
            do {
                messages.append(try ServerMessage.decode(payload: payload))
            } catch {
                throw ReadError.corrupt(afterMessages: messages.count, reason: damage(error))
            }
        }
        return Contents(messages: messages, truncatedBytes: decoder.pendingByteCount)
    }
}

/// Appends messages to a recording file as they come.
public final class RecordingWriter {
    private let handle: FileHandle
    public let path: String
    public private(set) var messageCount = 0
    private var stream = WireStreamWriter()

    /// Creates (or truncates) the file and writes the magic line.
    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(RecordingFormat.magic)) else {
            throw WriterError(path: path)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw WriterError(path: path) }
        handle.seekToEndOfFile()
        self.handle = handle
        self.path = path
    }

    /// Appends a message as it is (the Welcome).
    public func append(_ message: ServerMessage) {
        handle.write(Data(message.framed()))
        messageCount += 1
    }

    /// Appends a batch, packed as on the wire.
    public func append(_ batch: EventBatch) {
        append(stream.message(batch))
    }

    /// Appends a snapshot, with the recording's string table.
    public func append(_ snapshot: GraphSnapshot) {
        append(stream.message(snapshot))
    }

    public func close() {
        try? handle.close()
    }

    public struct WriterError: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "cannot write a recording at \(path): \(reason)" }

        /// Why, as far as the file system says: a directory, a missing directory, or
        /// permissions.
        var reason: String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                return "it is a directory; give the path of a file to write, for example \(path)/session.pipescope"
            }
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
                return "the directory \(parent) does not exist; create it, or choose another path"
            }
            return "it is not writable; check the permissions of the file and its directory"
        }
    }
}
