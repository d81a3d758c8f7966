import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeRecording
import PipescopeWire

/// What an inspector holds of one run of a program, written as a recording (the `s`
/// key): how a live session, or one whose program has ended, becomes a file after the
/// fact. `pipescope replay` and `pipescope export` read it as any other recording.
///
/// The file holds a Welcome naming the program, the graph as it was before the oldest
/// event the inspector kept, then every kept event in order, in batches of consecutive
/// event numbers (so causes still link), and an end mark that says it was saved.
///
/// ```swift
/// let saved = try SavedRun.write(state, to: SavedRun.defaultPath(for: state))
/// print("saved \(saved.events) events to \(saved.path)")   // under SavedRun.directory()
/// ```
public enum SavedRun {
    public struct Summary: Equatable, Sendable {
        public var path: String
        public var events: Int
    }

    /// Events in one batch of the file (a batch is a frame; a reader takes it whole).
    static let batchLimit = 4_096

    /// Writes the run on screen in `state` (an earlier run when one is shown) to `path`.
    /// Throws ``RecordingWriter/WriterError`` when the file cannot be made, and
    /// ``RecordingWriter/Failure`` when writing it failed (a full disk).
    public static func write(_ state: AppState, to path: String) throws -> Summary {
        let log = state.cursor.log
        let writer = try RecordingWriter(path: path)
        var message = ServerMessage()
        var welcome = WireWelcome()
        welcome.protocolVersion = ProtocolVersion.current
        let run = state.runs.viewing.map { state.runs.earlier[$0] }
        welcome.processName = run?.name ?? state.session.targetName
        welcome.pid = run?.pid ?? state.session.pid ?? 0
        welcome.startTimeNs = log.event(at: log.start + 1)?.time ?? 0
        message.welcome = welcome
        writer.append(message)

        var snapshot = log.graph(at: log.start).snapshot()
        snapshot.recent = log.earlier
        writer.append(snapshot)

        let dropped = state.cursor.liveGraph.dropped
        var batch = EventBatch()
        var count = 0
        func flush() {
            guard !batch.events.isEmpty else { return }
            let last = batch.events.last?.id ?? 0
            // Numbers travel as the last one's, counted back: only a run of consecutive
            // numbers (or none at all) can share a batch.
            batch.trailer.sequence = last
            batch.trailer.dropped = dropped
            writer.append(batch)
            batch = EventBatch()
        }
        if log.end > log.start {
            for position in (log.start + 1)...log.end {
                guard let event = log.event(at: position) else { continue }
                if let previous = batch.events.last,
                   batch.events.count >= batchLimit || !follows(previous.id, event.id) {
                    flush()
                }
                if event.kind == .subscribe, let info = log.info(of: event.node) {
                    batch.nodes.append(info)
                }
                batch.events.append(event)
                count += 1
            }
        }
        flush()
        let ended = (run?.endedAt ?? state.session.endedAt).map { ", after the program ended at \(Recording.clockTime($0))" }
        writer.close(reason: "saved by the inspector\(ended ?? "")")
        if let failure = writer.failure { throw failure }
        return Summary(path: path, events: count)
    }

    /// Whether an event numbered `next` can follow one numbered `previous` in a batch.
    private static func follows(_ previous: EventID, _ next: EventID) -> Bool {
        previous == 0 ? next == 0 : next == previous + 1
    }

    /// Where `s` saves: `$PIPESCOPE_SAVE_DIR`, else `$XDG_STATE_HOME/pipescope/saved`,
    /// else `~/.local/state/pipescope/saved` (the XDG state directory: a saved run is
    /// state the user made, not a file for whatever directory the inspector ran in, a
    /// checkout that `git status` would then show).
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let chosen = environment["PIPESCOPE_SAVE_DIR"], !chosen.isEmpty { return chosen }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/pipescope/saved" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/pipescope/saved"
    }

    /// `NAME-YYYYMMDD-HHMMSS.pipescope` in ``directory(environment:)``, for the run on screen.
    public static func defaultPath(for state: AppState, now: Date = Date(),
                                   environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let run = state.runs.viewing.map { state.runs.earlier[$0] }
        let name = (run?.name ?? state.session.targetName)
            .map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        var seconds = time_t(now.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&seconds, &parts)
        let stamp = String(format: "%04d%02d%02d-%02d%02d%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                           parts.tm_hour, parts.tm_min, parts.tm_sec)
        let runPart = run != nil ? "-run\(state.runs.shown)" : ""
        return directory(environment: environment) + "/\(String(name))\(runPart)-\(stamp).pipescope"
    }

    /// What the `s` key answers: the file and what it holds, or why it could not be
    /// written. The file is never overwritten: a second save in the same second gets
    /// a numbered name.
    public static func saveAnswer(_ state: AppState,
                                  environment: [String: String] = ProcessInfo.processInfo.environment) -> (ok: Bool, text: String) {
        let base = String(defaultPath(for: state, environment: environment).dropLast(".pipescope".count))
        let folder = (base as NSString).deletingLastPathComponent
        if let problem = makeDirectory(folder) {
            return (false, "not saved: cannot make the directory \(folder) (\(problem)); "
                + "set PIPESCOPE_SAVE_DIR to a directory you can write")
        }
        var path = base + ".pipescope"
        var n = 2
        while FileManager.default.fileExists(atPath: path) {
            path = base + "-\(n).pipescope"
            n += 1
        }
        do {
            let saved = try write(state, to: path)
            let events = saved.events == 1 ? "1 event" : "\(saved.events) events"
            return (true, "saved \(events) to \(shown(saved.path, environment: environment)) (replay or export reads it)")
        } catch {
            return (false, "not saved: \(error)")
        }
    }

    /// Makes `path` and the directories above it (private to the user: saved runs hold
    /// what the program's values said); nil when it is there, else what went wrong.
    static func makeDirectory(_ path: String) -> String? {
        var built = path.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o700) != 0, errno != EEXIST { return String(cString: strerror(errno)) }
        }
        var info = stat()
        guard stat(built, &info) == 0 else { return String(cString: strerror(errno)) }
        return info.st_mode & S_IFMT == S_IFDIR ? nil : "it is not a directory"
    }

    /// `path` with the home directory written `~`, so the status line has room for it.
    static func shown(_ path: String, environment: [String: String]) -> String {
        guard let home = environment["HOME"], home.count > 1, path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }
}
