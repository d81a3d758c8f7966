import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeWire

/// A live program's past from before the inspector attached, as its flight recorder
/// (`PIPESCOPE_FLIGHT`) kept it: the oldest kept segment's snapshot, then every batch up
/// to the event the attach snapshot ends at. An inspector folds these first and then the
/// live batches, so `g` reaches the program's start (or the recorder's oldest event)
/// rather than the moment of attaching.
///
/// The seam is exact: the probe flushes before it cuts an inspector's snapshot, and the
/// flight recorder gets every flush, so the batches up to the snapshot's sequence are
/// the recorder's and every later one is the connection's. Events keep the probe's
/// numbers on both sides, one number per event; a history that does not end exactly at
/// the snapshot's event (the recorder has not written it within the timeout, or lost
/// its segment) is not used at all.
///
/// ```swift
/// let session = try ProbeSession.attach(target: "4242")
/// switch FlightHistory.read(for: session) {
/// case .success(let history): model.fold(history.messages)  // then the live batches
/// case .failure(let why): print(why)  // history starts at attach
/// }
/// ```
public struct FlightHistory: Sendable {
    /// `.snapshot` of the oldest kept moment, then `.batch`es up to the attach
    /// snapshot's sequence (a gap in the segments, one deleted while read, is a
    /// `.snapshot` marked with the events it skips, as ``FlightDump`` writes it).
    public var messages: [Message]
    /// Whether the history starts at the program's start: its recorder's first segment
    /// is still kept.
    public var fromProgramStart: Bool
    /// When the oldest kept moment is: the first kept event's time (0 without events).
    public var oldestNanos: Int64
    /// Events before the attach, all in ``messages``.
    public var events: Int
    /// The flight recorder's directory.
    public var directory: String

    /// Where the history starts, for the status line: "history from the program's start:
    /// 1,200 events before attach, from its flight recorder".
    public var summary: String {
        let count = "\(events) event\(events == 1 ? "" : "s") before attach, from its flight recorder (\(directory))"
        if fromProgramStart { return "history from the program's start: " + count }
        return "history from \(Self.clock(oldestNanos)), the flight recorder's oldest (older ones were "
            + "deleted within its budget or window): " + count
    }

    /// The model's mark of where history begins (the `g` line says it).
    public var origin: HistoryOrigin {
        fromProgramStart ? .programStart : .flightRecorder(oldestNanos: oldestNanos)
    }

    /// Why a flight history is not used: said on the status line, after which history
    /// starts at attach as without a flight recorder.
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The history before `session`'s snapshot, from the flight recorder the program
    /// announced beside its socket; `Unavailable`, saying why, when it has none
    /// (``noRecorder``), it is on another machine, or its events do not reach the
    /// snapshot within `timeout` seconds.
    public static func read(for session: ProbeSession, timeout: Double = 2) -> Result<FlightHistory, Unavailable> {
        guard case .unix(let socket) = session.endpoint else {
            return .failure(Unavailable(description: "history starts at attach: a flight recorder over tcp:// is on the "
                                        + "program's machine (run `pipescope dump DIR` there)"))
        }
        guard let directory = FlightSegments.announced(bySocket: socket) else {
            return .failure(Unavailable(description: noRecorder))
        }
        return read(directory: directory, pid: session.welcome.pid, programStartNanos: session.welcome.startTimeNanos,
                    through: session.snapshot.sequence, timeout: timeout)
    }

    /// What ``read(for:timeout:)`` says of a program without a flight recorder.
    public static let noRecorder = "history starts at attach: the program has no flight recorder (start it with "
        + "PIPESCOPE_FLIGHT=DIR to keep what happens before an inspector attaches)"

    /// The history of the run of `pid` started at `programStartNanos` in `directory`,
    /// up to and including event `sequence`; read again (the recorder writes on its own
    /// thread, a moment after the flush) until it reaches that event or `timeout` passes.
    public static func read(directory: String, pid: Int32, programStartNanos: Int64, through sequence: UInt64,
                            timeout: Double = 2) -> Result<FlightHistory, Unavailable> {
        let run = FlightSegments.run(pid: pid, startNanos: programStartNanos)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let segments = ((try? FlightSegments.list(directory)) ?? []).filter { $0.run == run }
            let joined = join(FlightDump.read(segments), through: sequence, directory: directory)
            switch joined {
            case .success, .failure(.unavailable):
                return joined.mapError(\.unavailable)
            case .failure(.notYet(let why)):
                guard Date() < deadline else { return .failure(Unavailable(description: why)) }
                usleep(10_000)
            }
        }
    }

    private enum JoinFailure: Error {
        /// The recorder may still write what is missing.
        case notYet(String)
        case unavailable(Unavailable)

        var unavailable: Unavailable {
            switch self {
            case .notYet(let why): Unavailable(description: why)
            case .unavailable(let u): u
            }
        }
    }

    /// The parts' snapshot and batches up to event `through`, or why they do not meet it.
    private static func join(_ parts: [FlightDump.Part], through: UInt64,
                             directory: String) -> Result<FlightHistory, JoinFailure> {
        let prefix = "history starts at attach: "
        guard let first = parts.first else {
            return .failure(.notYet(prefix + "the flight recorder in \(directory) has no segment of this run"))
        }
        var history = FlightHistory(messages: [], fromProgramStart: false, oldestNanos: 0, events: 0,
                                    directory: directory)
        var last: UInt64?
        var failure: JoinFailure?
        do {
            // Up to the attach's event exactly: the live stream goes on from the next.
            try FlightDump.join(parts) { message in
                switch message {
                case .snapshot(let snapshot, let isFirst):
                    if isFirst {
                        guard snapshot.sequence <= through else {
                            failure = .unavailable(Unavailable(description: prefix + "the flight recorder's oldest "
                                + "kept segment starts after the attach (event \(snapshot.sequence) > \(through))"))
                            return false
                        }
                        // The run's first segment, from before any event: the program's start.
                        history.fromProgramStart = first.number == 1 && snapshot.sequence == 0
                    }
                    // A later one follows a segment gone missing: its events are skipped.
                    history.messages.append(.snapshot(snapshot))
                    last = max(last ?? 0, snapshot.sequence)
                case .batch(let batch):
                    let sequence = batch.trailer.sequence
                    guard sequence <= through else {
                        // A flush that straddles the attach: the seam would not be exact.
                        failure = .unavailable(Unavailable(description: prefix + "the flight recorder's batch "
                            + "ending at event \(sequence) passes the attach at event \(through)"))
                        return false
                    }
                    history.messages.append(.batch(batch))
                    history.events += batch.events.count
                    if history.oldestNanos == 0, let time = batch.events.first?.time { history.oldestNanos = time }
                    last = max(last ?? 0, sequence)
                }
                return last != through
            }
        } catch {
            return .failure(.unavailable(Unavailable(description: prefix + "a flight recorder segment in "
                                                      + "\(directory) could not be read (\(error))")))
        }
        if let failure { return .failure(failure) }
        guard last == through else {
            return .failure(.notYet(prefix + "the flight recorder in \(directory) has not written events up to the "
                                    + "attach (event \(through)) yet; it holds up to event \(last ?? 0)"))
        }
        return .success(history)
    }

    /// Local wall-clock time to the second, as the status line gives times: 10:02:11.
    static func clock(_ nanos: Int64) -> String {
        var seconds = time_t(nanos / 1_000_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return String(format: "%02d:%02d:%02d", parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}

extension FlightHistory {
    /// What an inspector attached by `session` starts from: with the program's past from
    /// its flight recorder in place of the attach snapshot (then where it starts, on the
    /// status line and for `g`), or the session's own opening, with the reason on the
    /// status line when a recorder exists but its past could not be joined. A program
    /// without a flight recorder opens as always, silently.
    ///
    /// ```swift
    /// let session = try ProbeSession.attach(target: "4242")
    /// let app = InspectorApp(targetName: "app", initial: FlightHistory.openingMessages(for: session), …)
    /// ```
    public static func openingMessages(for session: ProbeSession, timeout: Double = 2) -> [Message] {
        switch read(for: session, timeout: timeout) {
        case .success(let history):
            return [session.welcome.attached] + history.messages
                + [.historyOrigin(history.origin), .notice(Notice(text: history.summary, isError: false))]
        case .failure(let why) where why.description == noRecorder:
            return session.openingMessages
        case .failure(let why):
            return session.openingMessages + [.notice(Notice(text: why.description, isError: true))]
        }
    }
}
