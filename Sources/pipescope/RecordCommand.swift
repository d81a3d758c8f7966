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
            from the program, or a network error); the file still holds everything before it. \
            A program can also record itself: PIPESCOPE_RECORD=FILE.
            With --perfetto, the trace is also written as the recording goes (as \
            `pipescope export` writes it: Perfetto's format, or JSON for a .json name).
            """)

    @Argument(help: "The program's pid, its socket path, or tcp://host:port.")
    var target: String

    @Option(help: "The program's PIPESCOPE_TOKEN, for tcp:// targets (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @Option(name: .shortAndLong, help: "The recording file to write.")
    var output: String

    @Option(help: "Stop after this many seconds.")
    var seconds: Double?

    @Option(help: ArgumentHelp("Also write the trace as the recording goes (Perfetto's format; JSON for a .json name).",
                               valueName: "trace.perfetto-trace"))
    var perfetto: String?

    func run() throws {
        let session = InspectorSession.open(target: target, token: token)
        defer { session.connection.close() }
        let recorder: ProbeRecorder
        do {
            recorder = try ProbeRecorder(path: output, session: session)
        } catch {
            fail("\(error)")
        }
        defer { recorder.close() }
        // --perfetto: the trace is written as the recording goes, from the same messages.
        let started = Date()
        var trace: TraceExportSession?
        if let perfetto {
            do {
                trace = try TraceExportSession(path: perfetto, options: TraceExporter.Options(linter: Linter()))
                for message in session.openingMessages { try trace?.consume(message) }
            } catch {
                fail("\(error)")
            }
        }
        var traceError: Error?

        let stop = StopFlag()
        let deadline = seconds.map { Date().addingTimeInterval($0) }
        var ending = "stopped"
        var failed = false
        loop: while !stop.isSet {
            if let deadline, Date() >= deadline { break }
            guard let message = session.connection.next(timeout: 0.2) else { continue }
            switch message {
            case .disconnected(let text):
                if let failure = session.connection.failure {
                    // Something unreadable, a refusal, a network error: the file holds
                    // everything before it, and the exit status says it did not end well.
                    failed = true
                    ending = "the connection failed: \(failure); the recording holds everything before it"
                } else {
                    ending = "the program went away (\(text))"
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
        FileHandle.standardError.write(Data(
            "pipescope: recorded \(recorder.eventsRecorded) events from \(session.welcome.processName) (pid \(session.welcome.pid)) to \(output); \(ending)\n".utf8))
        if let perfetto {
            recorder.close()
            do {
                if let traceError { throw traceError }
                if let trace, TraceExportRun.finished(try trace.finish(stop: .complete, source: output), recording: output,
                                                      to: perfetto, started: started).failed {
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
    private var set = false
    private var sources: [DispatchSourceSignal] = []

    init() {
        for signal in [SIGINT, SIGTERM] {
            Glibc.signal(signal, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { [weak self] in self?.raise() }
            source.resume()
            sources.append(source)
        }
    }

    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return set }

    private func raise() { lock.lock(); set = true; lock.unlock() }
}
