import PipescopeModel
import PipescopeRecording
import PipescopeWire

/// Writes what a probe sends to a recording file, for `pipescope replay` and
/// `pipescope export`: the Welcome as it came and the first Snapshot at once, then every
/// batch and snapshot given to ``record(_:)``, a frame each, so the file is readable at
/// every moment (a crash loses at most the batch being written). ``Recording`` and
/// ``RecordingMessages`` read it back.
///
/// ```swift
/// let session = try ProbeSession.attach(target: "4242")
/// let recorder = try ProbeRecorder(path: "app.pipescope", session: session)
/// defer { recorder.close() }
/// while let message = session.connection.next(timeout: 0.2) { recorder.record(message) }
/// print("recorded \(recorder.eventsRecorded) events")
/// ```
public final class ProbeRecorder {
    private let writer: RecordingWriter
    private var closed = false

    /// The recording's path.
    public var path: String { writer.path }
    /// Events written so far, in all the batches.
    public private(set) var eventsRecorded = 0

    /// Creates (or truncates) the file at `path` and writes the session's Welcome and
    /// Snapshot. Throws an error that names the path and says to check the directory.
    public init(path: String, session: ProbeSession) throws {
        writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome = session.welcome.wire
        writer.append(welcome)
        writer.append(session.snapshot)
    }

    /// Appends `message` if a recording keeps it (a batch or a snapshot); acknowledgements
    /// and the connection's end are not recorded. Returns whether it was written.
    @discardableResult
    public func record(_ message: Message) -> Bool {
        switch message {
        case .batch(let batch):
            writer.append(batch)
            eventsRecorded += batch.events.count
            return true
        case .snapshot(let snapshot):
            writer.append(snapshot)
            return true
        default:
            return false
        }
    }

    /// Why the recording stopped early (a full disk, an I/O error), if it did: nothing
    /// more is written.
    public var failure: RecordingWriter.Failure? { writer.failure }

    /// Closes the file with its end mark, saying why the recording ended. Safe to call
    /// more than once.
    public func close(reason: String = "pipescope record stopped") {
        guard !closed else { return }
        closed = true
        writer.close(reason: reason)
    }
}
