import ArgumentParser
import Foundation
import PipescopeClient

struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Open the inspector on a running program that called Pipescope.start().")

    @Argument(help: "The program's pid, its name (as `pipescope list` shows it; with --wait, one yet to start), its socket path, or tcp://host:port. Without it: the only running program, or a choice.")
    var target: String?

    @Flag(help: "Look but never change: cancel (and pause) are refused.")
    var readonly = false

    @Option(help: "The program's PIPESCOPE_TOKEN, for tcp:// targets (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @Flag(help: ArgumentHelp(
        "Wait for the program to start, and whenever it ends, for its next run.",
        discussion: "The target may then be a program's name: pipescope attach --wait my-app. Each run is its own section of history."))
    var wait = false

    @Flag(name: .customLong("from-attach"), help: ArgumentHelp(
        "Start history at attach, even when the program has a flight recorder.",
        discussion: "By default, a program started with PIPESCOPE_FLIGHT=DIR on this machine is attached with the past its flight recorder kept: g goes back to the program's start, or to the recorder's oldest event when older ones were deleted within its budget or window. The status line says which."))
    var fromAttach = false

    @OptionGroup var lints: LintOptions

    @Option(name: .customLong("dump-on"), help: ArgumentHelp(
        "Dump the program's flight recorder (PIPESCOPE_FLIGHT) when one of these lints first fires, or on `cancel` from the inspector.",
        discussion: "Comma-separated, from: \(DumpTrigger.choices.joined(separator: ", ")).",
        valueName: "stalled,owner-leak,cancel"))
    var dumpOn: String?

    @Option(name: .customLong("dump-dir"), help: ArgumentHelp("Where --dump-on writes its dumps (default: the current directory).",
                                                              valueName: "dir"))
    var dumpDirectory: String?

    func validate() throws {
        if let dumpOn, let problem = DumpTrigger.parse(dumpOn).problem { throw ValidationError(problem) }
        if dumpDirectory != nil, dumpOn == nil { throw ValidationError("--dump-dir goes with --dump-on") }
        if wait, target == nil {
            throw ValidationError("--wait needs the program's name (or pid, or socket): pipescope attach --wait my-app. "
                + "`pipescope list` shows the running ones.")
        }
    }

    /// What to run instead when there is no terminal.
    private var withoutTerminal: String {
        "For output a script can read: `pipescope snapshot \(target ?? "<pid>") --json`, or without --json for a tree."
    }

    func run() throws {
        let chosen: String
        if wait, let target, Self.isProgramName(target) {
            InspectorLoop.requireTerminal(withoutTerminal: withoutTerminal)  // before waiting for nothing
            chosen = Self.waitForProgram(named: target)
        } else if wait, let target, let pid = Int32(target), pid > 0,
                  !ProbeDirectory.answers(ProbeDirectory.socketPath(pid: pid)) {
            // A pid names one run: the next run of a program gets another, so there is nothing to wait for.
            fail("--wait waits for a program by its name, and no program with pid \(pid) is running (a program's next "
                + "run gets a new pid). Give its name: pipescope attach --wait NAME (`pipescope list` shows the names "
                + "of the running ones).")
        } else {
            chosen = target ?? Self.chooseProgram()
        }
        // Before attaching: a --dump-on that cannot find the program's flight recorder says so at once.
        var dumps: DumpTrigger?
        if let dumpOn {
            do {
                let flight = try FlightDump.directory(forTarget: chosen)
                let into = dumpDirectory ?? FileManager.default.currentDirectoryPath
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: into, isDirectory: &isDirectory), isDirectory.boolValue,
                      access(into, W_OK) == 0 else {
                    fail("--dump-dir \(into) is not a writable directory; create it, or choose another")
                }
                dumps = DumpTrigger(triggers: DumpTrigger.parse(dumpOn).names, directory: flight.path, dumpDirectory: into)
            } catch {
                fail("--dump-on: \(error)")
            }
        }
        let session = InspectorSession.open(target: chosen, command: "pipescope attach",
                                             readOnly: readonly, token: token)
        let name = session.welcome.processName
        let link = LiveLink(session: session, reconnects: true, waitingFor: wait ? name : nil)
        // Before the first live batch is polled: the recorder's past ends where the live stream begins.
        let opening = fromAttach ? nil : FlightHistory.openingMessages(for: session)
        var loop = InspectorLoop(session: session, link: link, targetName: name, dumps: dumps, opening: opening)
        loop.linter = lints.linter
        loop.app.waitsForRestart = wait
        loop.app.save = { SavedRun.saveAnswer($0) }
        loop.withoutTerminal = withoutTerminal
        let outcome = loop.run()
        link.close()
        if case .failed(let message) = outcome { fail(message) }
    }
}

extension AttachCommand {
    /// A target that is neither a pid, a path, nor a TCP address: a program's name.
    static func isProgramName(_ target: String) -> Bool {
        !target.allSatisfy(\.isNumber) && !target.contains("/") && !target.hasPrefix("tcp:")
    }

    /// The socket of the newest running program named `name`, once there is one (polled
    /// five times a second; Ctrl-C stops waiting).
    static func waitForProgram(named name: String) -> String {
        var said = false
        while true {
            let scan = ProbeDirectory.scan()
            if let entry = scan.entries.filter({ $0.processName == name })
                .max(by: { $0.startTimeNanos < $1.startTimeNanos }) {
                return entry.path
            }
            if !said {
                said = true
                let running = scan.entries.map(\.processName)
                let others = running.isEmpty ? "none is running" : "running now: " + running.joined(separator: ", ")
                FileHandle.standardError.write(Data(
                    "waiting for a program named \(name) to start (looking in \(scan.directory); \(others)). Ctrl-C stops.\n".utf8))
            }
            usleep(200_000)
        }
    }

    /// The socket of the only running program, or the one the user picks from a list.
    static func chooseProgram() -> String {
        let scan = ProbeDirectory.scan()
        switch scan.entries.count {
        case 0:
            fail("no instrumented programs are running (looked in \(scan.directory)). "
                + "Start one that calls Pipescope.start(), or give a pid or socket path.")
        case 1:
            return scan.entries[0].path
        default:
            let table = ListCommand.table(scan.entries, numbered: true)
            guard isatty(0) == 1 else {
                fail("several programs are running; say which one:\n\(table)")
            }
            print(table)
            guard let n = askNumber(in: 1...scan.entries.count) else {
                fail("no program chosen (standard input ended). Give a pid or socket path: pipescope attach PID")
            }
            return scan.entries[n - 1].path
        }
    }

    /// Asks for a number in `range` until one comes; an answer out of range, or not a
    /// number, says what would do and asks again; nil when standard input ends.
    static func askNumber(in range: ClosedRange<Int>) -> Int? {
        var prompt = "Attach to which one? [\(range.lowerBound)-\(range.upperBound)] "
        while true {
            print(prompt, terminator: "")
            fflushStandardOutput()
            guard let line = readLine() else { return nil }
            let answer = line.trimmingCharacters(in: .whitespaces)
            if let n = Int(answer), range.contains(n) { return n }
            prompt = "\(answer.isEmpty ? "Nothing typed" : "\"\(answer)\" is not one of them"): "
                + "type a number from \(range.lowerBound) to \(range.upperBound) (Ctrl-D: none). "
                + "Attach to which one? [\(range.lowerBound)-\(range.upperBound)] "
        }
    }
}
