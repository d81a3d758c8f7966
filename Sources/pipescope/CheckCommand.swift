import ArgumentParser
import Foundation
import PipescopeClient
import PipescopeGraph
import PipescopeModel

/// `pipescope check FILE [--json] [-A NAME] [--junit REPORT]`: a recording's findings for
/// CI (``RecordingFindings``): every lint its run raised, each mistake once with its
/// place; the exit status says whether there were any.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a recording for pipeline mistakes (for CI): print each finding with its place, exit 1 if any.",
        discussion: """
            Every lint the recorded run raised, at the moment it was raised (not only on the run's last graph, \
            from which ended stages have been pruned), each mistake once: the same mistake in the same place \
            made by many pipelines is one finding with a count. One line each, `file:line: lint: message`, \
            the line being the one to change. Exit status: 0 with no finding, 1 with findings, 2 when the file \
            cannot be read (not a recording, damaged before anything could be judged) or the --junit report \
            cannot be written. With --json: {"findings": [{"lint", "message", "node", "count", "at"}]}, "at" \
            the line to change ({"file", "line", "function"}, null when unknown) as in snapshot --json.
            """)

    @Argument(help: "A file made by PIPESCOPE_RECORD, `pipescope record` or `pipescope dump`.")
    var file: String

    @Flag(help: "Print the findings as JSON instead of one line each.")
    var json = false

    @Option(name: .customLong("junit"), help: ArgumentHelp(
        "Also write a JUnit XML report to this file (one failed test case per finding, one passed per lint that found nothing).",
        valueName: "report"))
    var junit: String?

    @OptionGroup var lints: LintOptions

    /// The exit statuses, as the help says them.
    enum Status: Int32 {
        case clean = 0, findings = 1, unreadable = 2
    }

    func run() throws {
        let check: RecordingFindings
        do {
            check = try RecordingFindings.read(path: file, linter: lints.linter)
        } catch {
            fail("\(error)",
                 code: Status.unreadable.rawValue)
        }
        let recording = check.recording
        if recording.snapshotsRead == 0 || (recording.end != .complete && recording.stagesSeen == 0) {
            fail(recording.end.nothingToShow(path: file, snapshotRead: recording.snapshotsRead > 0)
                 .replacingOccurrences(of: "No stage can be shown.", with: "Nothing can be checked."),
                 code: Status.unreadable.rawValue)
        }
        let lastEventAt = recording.lastEventNanos > 0 ? Recording.clockTime(recording.lastEventNanos) : nil
        if let note = recording.end.note(path: file, events: recording.eventsRead, lastEventAt: lastEventAt, doing: "Checked") {
            FileHandle.standardError.write(Data("pipescope: \(note)\n".utf8))
        }
        let findings = check.findings
        if let junit {
            let report = FindingsJUnit.render(findings, suite: (file as NSString).lastPathComponent,
                                              ran: lints.linter.rules.map { $0.kind },
                                              timestamp: recording.lastEventNanos > 0 ? recording.lastEventNanos : nil)
            guard FileManager.default.createFile(atPath: junit, contents: Data(report.utf8)) else {
                fail("cannot write the JUnit report to \(junit): " + Self.unwritable(junit), code: Status.unreadable.rawValue)
            }
        }
        print(json ? FindingsJSON.render(findings) : Self.text(findings, file: file))
        if !findings.isEmpty { throw ExitCode(Status.findings.rawValue) }
        if case .damaged = recording.end {
            // Judged up to the damage only: no finding there is not a clean run.
            fail("\(file) was checked only up to its damage, with no finding there; the rest cannot be read. "
                 + "Record the run again to check all of it.", code: Status.unreadable.rawValue)
        }
    }

    /// Why `path` cannot be written, and what to do.
    static func unwritable(_ path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            return "there is no directory \(directory); create it first, or give --junit a path in one that exists."
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "it is a directory; give --junit a file's path, such as \(path)/pipescope.xml."
        }
        return "\(directory) cannot be written by this user; give --junit a path in a directory you can write."
    }

    /// One line per finding, then how many.
    static func text(_ findings: [Finding], file: String) -> String {
        guard !findings.isEmpty else { return "\(file): no findings." }
        let stages = findings.reduce(0) { $0 + $1.count }
        let summary = "\(file): \(findings.count) finding\(findings.count == 1 ? "" : "s")"
            + (stages > findings.count ? " (on \(stages) stages)" : "") + "."
        return (findings.map(\.line) + [summary]).joined(separator: "\n")
    }
}
