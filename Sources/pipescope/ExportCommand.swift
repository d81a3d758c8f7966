import ArgumentParser
import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeModel

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a recording as a trace for Perfetto (ui.perfetto.dev) or chrome://tracing.",
        discussion: """
            Writes Perfetto's own trace format (protobuf), or the Chrome trace event format \
            (JSON) for a .json output or --format json. Open it in Perfetto (ui.perfetto.dev, \
            "Open trace file"; it also runs offline) or in chrome://tracing ("Load"). Each \
            pipeline is a track, each stage a slice from subscribe to its end, values, \
            requests, completions, cancels and lints are instants, and arrows go from a \
            cancelling stage to each stage its cancel reached. The recording is read once, \
            in constant memory; a recording cut short (a crashed program) is exported up to \
            the cut.
            """)

    @Argument(help: "A file made by `pipescope record` or PIPESCOPE_RECORD.")
    var file: String

    @Option(name: .shortAndLong, help: "The trace to write (.perfetto-trace, or .json for JSON); - for standard output.")
    var output: String

    @Option(help: ArgumentHelp(
        "The trace's format: perfetto (Perfetto's own protobuf trace: a track per stage, arrows from causes, demand "
            + "counters) or json (chrome://tracing). Default: json for a .json output, perfetto for any other "
            + "(.perfetto-trace, .pftrace).",
        valueName: "perfetto|json"))
    var format: TraceFormat?

    @OptionGroup var lints: LintOptions

    func run() throws {
        let outcome = TraceExportRun.export(recording: file, to: output, format: format, linter: lints.linter)
        if outcome.failed { throw ExitCode(1) }
    }
}

/// An export from the command line, shared by `export` and `record --perfetto`: errors
/// and the summary for a person on standard error.
enum TraceExportRun {
    struct Outcome {
        /// Nothing was written, or the recording was damaged before its end.
        var failed: Bool
    }

    static func export(recording path: String, to output: String, format: TraceFormat? = nil, linter: Linter) -> Outcome {
        let started = Date()
        var recording: RecordingMessages
        do {
            recording = try RecordingMessages(path: path)
        } catch {
            report("\(error)")  // it names the file
            return Outcome(failed: true)
        }
        let result: RecordingExport.Result
        do {
            result = try RecordingExport.run(&recording, to: output, source: path, format: format,
                                             options: ExportOptions(linter: linter))
        } catch {
            report("\(error)")
            return Outcome(failed: true)
        }
        return finished(result, recording: path, to: output, started: started)
    }

    /// Says what an export wrote (and where a recording cut short stopped). `started`:
    /// when the export began, for its time; nil for a trace written as a recording went
    /// (`record --perfetto`), whose time was the recording's.
    static func finished(_ result: RecordingExport.Result, recording path: String, to output: String, started: Date?) -> Outcome {
        let summary = result.summary
        let anyStage = summary.stages + summary.endedBeforeRecording > 0
        guard result.snapshots > 0, result.stop == .complete || anyStage else {
            // A trace with no stage in it would read as a program that made no pipeline.
            if output != "-" { try? FileManager.default.removeItem(atPath: output) }
            report(result.stop.nothingToShow(path: path, snapshotRead: result.snapshots > 0)
                + (output != "-" ? " Nothing was written to \(output)." : ""))
            return Outcome(failed: true)
        }
        let target = output == "-" ? "standard output" : output
        let took = started.map { " in " + String(format: "%.1f s", Date().timeIntervalSince($0)) } ?? ""
        var lines = [
            "exported \(counted(summary.events, "event")) (\(counted(summary.stages, "stage")) in "
                + "\(counted(summary.pipelines, "pipeline")), " + String(format: "%.1f s of recording", summary.seconds)
                + ") from \(path) to \(target): " + "\(result.outputBytes / 1024) KiB" + took + ".",
        ]
        if summary.endedBeforeRecording > 0 {
            lines.append("\(counted(summary.endedBeforeRecording, "stage")) had ended before the recording started "
                         + "and \(summary.endedBeforeRecording == 1 ? "is" : "are") not drawn.")
        }
        let lastEventAt = summary.lastEventNanos > 0 ? Recording.clockTime(summary.lastEventNanos) : nil
        if let note = result.stop.note(path: path, events: summary.events, lastEventAt: lastEventAt, doing: "Exported") {
            lines.append(note)
        }
        if output != "-", result.format == .json {
            lines.append("Open it at ui.perfetto.dev (Open trace file) or in chrome://tracing (Load).")
        } else if output != "-" {
            lines.append("Open it at ui.perfetto.dev (Open trace file): Perfetto's own format, a track per stage.")
        }
        report(lines.joined(separator: "\n"))
        return Outcome(failed: result.stop.isDamaged)
    }

    static func report(_ text: String) {
        FileHandle.standardError.write(Data("pipescope: \(text)\n".utf8))
    }
}

extension RecordingMessages: MessageSource {}

extension TraceFormat: ExpressibleByArgument {}
