import ArgumentParser
import Dispatch
import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeModel

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a running program's pipelines to a file, for `pipescope replay`.",
        discussion: """
            Records until the program exits, Ctrl-C, or --seconds pass. The file is readable \
            at every moment: if the program crashes, the recording replays up to its last \
            complete batch of events. Exits 1 if the connection fails (something unreadable \
            from the program, or a network error) or the disk fails (full, read-only); the \
            file still holds everything before it. A program can also record itself: PIPESCOPE_RECORD=FILE.
            With --perfetto, the trace is also written as the recording goes (as \
            `pipescope export` writes it: Perfetto's format, or JSON for a .json name).
            """)

    @Argument(help: "The program's pid, its name (as `pipescope list` shows it), its socket path, or tcp://host:port.")
    var target: String

    @Option(help: "The program's PIPESCOPE_TOKEN, for tcp:// targets (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @Option(name: .shortAndLong, help: "The recording file to write.")
    var output: String

    // Unconditional: `--seconds -1` is a value to refuse with a reason, not a missing one.
    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds (more than 0).", valueName: "seconds"))
    var seconds: Double?

    @Option(help: ArgumentHelp("Also write the trace as the recording goes (Perfetto's format; JSON for a .json name).",
                               valueName: "trace.perfetto-trace"))
    var perfetto: String?

    func validate() throws {
        if let seconds, !(seconds > 0 && seconds.isFinite) {
            throw ValidationError("--seconds must be a positive number of seconds (got \(plainNumber(seconds))); "
                                  + "for example --seconds 10, or leave it out to record until the program exits or Ctrl-C")
        }
    }

    func run() throws {
        let session = InspectorSession.open(target: target, command: "pipescope record", token: token)
        defer { session.connection.close() }
        let recorder: ProbeRecorder
        do {
            recorder = try ProbeRecorder(path: output, session: session)
        } catch {
            fail("\(error)")
        }
        defer { recorder.close() }
        // --perfetto: the trace is written as the recording goes, from the same messages.
        var trace: TraceExportSession?
        if let perfetto {
            do {
                trace = try TraceExportSession(path: perfetto, options: ExportOptions(linter: Linter()))
                for message in session.openingMessages { try trace?.consume(message) }
            } catch {
                fail("\(error)")
            }
        }
        var traceError: Error?

        let stop = StopFlag()
        let deadline = seconds.map { Date().addingTimeInterval($0) }
        // How the recording ended, said after "recorded N events from … to FILE".
        var ending: String?
        var failed = false
        loop: while true {
            if let signal = stop.signal {
                ending = signal == SIGINT ? "until Ctrl-C (SIGINT) stopped it" : "until SIGTERM stopped it"
                break
            }
            if let failure = recorder.failure {
                // A full disk, an I/O error: the file keeps what reached it.
                failed = true
                ending = "before the recording stopped: \(failure.reason). The file replays up to its last complete batch"
                break
            }
            if let deadline, Date() >= deadline, let seconds {
                ending = "in the \(plainNumber(seconds)) s of --seconds"
                break
            }
            guard let message = session.connection.next(timeout: 0.2) else { continue }
            switch message {
            case .disconnected(let text):
                if let failure = session.connection.failure {
                    // Something unreadable, a refusal, a network error: the file holds
                    // everything before it, and the exit status says it did not end well.
                    failed = true
                    ending = "before the connection failed (the recording holds everything before it): \(failure)"
                } else {
                    ending = "until \(text)"  // "the program closed the connection (it exited, …)"
                }
                break loop
            default:
                if recorder.record(message), let exporting = trace {
                    do {
                        try exporting.consume(message)
                    } catch {
                        traceError = error
                        trace = nil
                    }
                }
            }
        }
        recorder.close(reason: "pipescope record recorded \(ending ?? "until it stopped")")
        if let failure = recorder.failure, !failed {
            failed = true
            ending = (ending ?? "") + "; but the recording stopped early: \(failure.reason)"
        }
        // Events that reached the file: all of them, unless the disk failed.
        let written = recorder.failure?.events ?? recorder.eventsRecorded
        var said = "pipescope: recorded \(counted(written, "event")) from \(session.welcome.processName) "
            + "(pid \(session.welcome.pid)) to \(output) \(ending ?? "")"
        if !said.hasSuffix(".") { said += "." }
        FileHandle.standardError.write(Data((said + "\n").utf8))
        if let perfetto {
            do {
                if let traceError { throw traceError }
                if let trace, TraceExportRun.finished(try trace.finish(stop: .complete, source: output), recording: output,
                                                      to: perfetto, started: nil).failed {
                    throw ExitCode(1)
                }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                TraceExportRun.report("\(error)")
                throw ExitCode(1)
            }
        }
        if failed { throw ExitCode(1) }
    }
}

/// Set by SIGINT or SIGTERM, so that a recording ends cleanly with a complete file.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        for signal in [SIGINT, SIGTERM] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { [weak self] in self?.raise(signal) }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal that asked to stop, if one did.
    var signal: Int32? { lock.lock(); defer { lock.unlock() }; return received }

    private func raise(_ signal: Int32) { lock.lock(); received = received ?? signal; lock.unlock() }
}
