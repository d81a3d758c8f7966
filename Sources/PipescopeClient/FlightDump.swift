import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeWire

/// `pipescope dump`: a flight recorder's kept window as one recording, which `replay` and
/// `export` read like any other.
///
/// The segments of one run (the newest, unless a pid is given) are read newest first,
/// and joined oldest first: the Welcome and the snapshot of the oldest, then every batch
/// of every segment, packed again in one stream. Segments follow each other without a
/// gap (each one's snapshot is the graph after the last batch of the one before), so
/// their later snapshots add nothing and are left out; a gap (a segment deleted while
/// the dump read them, a flush too big for the budget) keeps the snapshot, marked with the
/// events skipped, as an inspector that fell behind gets one. The program may be writing
/// as the dump reads: the newest segment is read up to its last whole flush, and the
/// oldest may vanish first (the dump then starts after it).
///
/// ```swift
/// let directory = try FlightDump.directory(forTarget: "4242")
/// let dump = try FlightDump.write(directory: directory.path, to: "incident.pipescope")
/// print("\(dump.events) events from \(dump.segments) segments")
/// ```
public enum FlightDump {
    /// What a dump wrote.
    public struct Summary: Sendable {
        public var output: String
        public var directory: String
        public var process: String
        public var pid: Int32
        public var segments: Int
        public var events: Int
        public var firstEventNanos: Int64 = 0
        public var lastEventNanos: Int64 = 0
        /// Whether the newest segment ends with its end mark (the program closed it: it
        /// exited); false while the program runs, or when it crashed or was killed.
        public var closed: Bool
        /// Segments of other runs in the directory, not dumped.
        public var otherRuns: [String]
        /// How many of ``otherRuns`` started after the run dumped (runs are named by their
        /// start time, so they sort in time order).
        public var newerRuns = 0
    }

    /// The flight recorder directory for `target`: the directory itself, or the one the
    /// program with this pid or socket named (beside its socket), when it still can be
    /// found. `note` says how it was found, for a target that is not the directory.
    public static func directory(forTarget target: String) throws -> (path: String, note: String?) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory.boolValue {
            return (target, nil)
        }
        if target.hasPrefix("tcp://") {
            throw Failure("a flight recorder keeps its segments on the program's machine; run `pipescope dump DIR` "
                          + "there, with the directory of its PIPESCOPE_FLIGHT")
        }
        let socket: String
        if let pid = Int32(target), pid > 0 {
            socket = ProbeDirectory.socketPath(pid: pid)
        } else if let what = FileKind.of(target) {
            guard what == "a socket" else {
                throw Failure("\(target) is \(what), not a program's socket or a flight recorder's directory; give the "
                              + "program's pid, its socket path, or the directory of its PIPESCOPE_FLIGHT")
            }
            socket = target
        } else {
            throw Failure("\(target) is not a directory, a pid or a socket; give the program's pid, its socket path, "
                          + "or the directory of its PIPESCOPE_FLIGHT")
        }
        guard let directory = FlightSegments.announced(bySocket: socket) else {
            throw Failure("the program of \(socket) has no flight recorder that Pipescope knows of; start it with "
                          + "PIPESCOPE_FLIGHT=DIR (or Pipescope.start(flightRecorder:)), or give the DIR itself")
        }
        return (directory, "the flight recorder of \(target) is in \(directory)")
    }

    /// Joins the kept segments of `directory` (the newest run, or the newest of `pid`'s)
    /// into a recording at `output`. Throws a ``Failure`` that says what to do when there
    /// is nothing to dump or `output` cannot be written.
    public static func write(directory: String, to output: String, pid: Int32? = nil) throws -> Summary {
        let all: [FlightSegments.Segment]
        do {
            all = try FlightSegments.list(directory)
        } catch {
            throw Failure("cannot read the flight recorder directory \(directory): "
                          + (FileManager.default.fileExists(atPath: directory) ? "it is not a readable directory"
                             : "it does not exist") + "; give the DIR of the program's PIPESCOPE_FLIGHT")
        }
        let candidates = pid.map { pid in all.filter { $0.pid == pid } } ?? all
        guard let run = candidates.last?.run else {
            let pids = Array(Set(all.map(\.pid))).sorted()
            if let pid, !pids.isEmpty {
                throw Failure("\(directory) holds no flight recorder segments of pid \(pid); it holds runs of "
                              + "\(pids.count == 1 ? "pid" : "pids") \(pids.map(String.init).joined(separator: ", ")): "
                              + "give one of them with --pid, or leave --pid out for the newest run")
            }
            let whose = pid.map { " of pid \($0)" } ?? ""
            throw Failure("\(directory) holds no flight recorder segments\(whose) (flight-*.pipescope): "
                          + "nothing was recorded there yet; is PIPESCOPE_FLIGHT set to it?")
        }
        let parts = read(all.filter { $0.run == run })
        guard let first = parts.first, let welcome = first.welcome else {
            throw Failure("the segments of \(run) in \(directory) could not be read (none starts as a recording does)")
        }
        let writer: RecordingWriter
        do {
            writer = try RecordingWriter(path: output)
        } catch {
            throw Failure("\(error)")
        }
        var summary = Summary(output: output, directory: directory, process: welcome.welcome.processName,
                              pid: welcome.welcome.pid, segments: parts.count, events: 0, closed: parts.last?.closed ?? false,
                              otherRuns: Array(Set(all.map(\.run)).subtracting([run])).sorted(),
                              newerRuns: Set(all.map(\.run)).filter { $0 > run }.count)
        writer.append(welcome)
        // A damaged segment ends the join: what came before it is dumped.
        try? join(parts) { message in
            switch message {
            case .snapshot(let snapshot, _):
                writer.append(snapshot)
            case .batch(let batch):
                writer.append(batch)
                summary.events += batch.events.count
                if let time = batch.events.first?.time, summary.firstEventNanos == 0 { summary.firstEventNanos = time }
                if let time = batch.events.last?.time { summary.lastEventNanos = max(summary.lastEventNanos, time) }
            }
            return true
        }
        writer.close(reason: "pipescope dump joined \(parts.count) flight recorder segment\(parts.count == 1 ? "" : "s") "
                     + "of \(directory)")
        if let failure = writer.failure { throw Failure("\(failure)") }
        return summary
    }

    /// One segment's messages as they are in the file.
    struct Part {
        /// The segment's number in its run (1: the run's first, which starts at the
        /// program's start).
        var number = 0
        var welcome: ServerMessage?
        var snapshot = WireSnapshot()
        var batches: [WirePackedBatch] = []
        var closed = false
    }

    /// The readable segments among `segments` (one run, oldest first), read newest first
    /// and returned oldest first: a segment gone (deleted as the program went on) ends
    /// the reading, as every older one is gone too. A newest segment that is still empty
    /// (just opened) is passed over.
    static func read(_ segments: [FlightSegments.Segment]) -> [Part] {
        var parts: [Part] = []
        for (index, segment) in segments.enumerated().reversed() {
            guard let data = FileManager.default.contents(atPath: segment.path) else { break }
            guard var reader = try? RecordingReader(bytes: Array(data)) else {
                if index == segments.count - 1 { continue }
                break
            }
            var part = Part(number: segment.number)
            var sawSnapshot = false
            while let message = try? reader.next() {
                switch message.body {
                case .welcome?: part.welcome = message
                case .snapshot(let snapshot)?: part.snapshot = snapshot; sawSnapshot = true
                case .packed(let packed)?: part.batches.append(packed)
                default: continue
                }
            }
            part.closed = reader.endReason != nil
            guard part.welcome != nil, sawSnapshot else {
                if index == segments.count - 1 { continue }
                break
            }
            parts.append(part)
        }
        return parts.reversed()
    }

    /// A message of one run's segments joined into one recording (``join(_:_:)``).
    enum Joined {
        /// A part's snapshot: the first part's (`first`), or a later one's after a gap, its
        /// ``GraphSnapshot/skippedEvents`` set to the events the gap lost.
        case snapshot(GraphSnapshot, first: Bool)
        case batch(EventBatch)
    }

    /// Walks `parts` (one run, oldest first) as one recording, the messages `dump` writes
    /// and attach's history folds: the first part's snapshot, then every part's batches;
    /// a later part's snapshot only where a segment went missing before it (each one's
    /// snapshot is otherwise the graph after the batches before it, and adds nothing).
    /// `visit` returns false to stop; the first message that cannot be decoded throws.
    static func join(_ parts: [Part], _ visit: (Joined) throws -> Bool) throws {
        var last: UInt64?
        for part in parts {
            var stream = WireStreamReader()
            var snapshot = try stream.snapshot(part.snapshot)
            if let known = last {
                if snapshot.sequence > known {
                    snapshot.skippedEvents = snapshot.sequence - known
                    guard try visit(.snapshot(snapshot, first: false)) else { return }
                }
            } else {
                guard try visit(.snapshot(snapshot, first: true)) else { return }
            }
            last = max(last ?? 0, snapshot.sequence)
            for packed in part.batches {
                let batch = try stream.batch(packed)
                guard try visit(.batch(batch)) else { return }
                last = max(last ?? 0, batch.trailer.sequence)
            }
        }
    }

    /// Why there is no dump, in words that say what to do.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
