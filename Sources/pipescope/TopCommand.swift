import ArgumentParser
import CursesBackend
import Foundation
import PipescopeClient
import PipescopeApp
import PipescopeModel
import PipescopeViews
import TerminalKit

/// `pipescope top --prometheus URL`: the fleet's programs as one table, read from
/// Prometheus, and from a row to the debugger (Enter runs `pipescope attach` on it).
struct TopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "top",
        abstract: "A table of the programs Prometheus scrapes Pipescope's metrics from; Enter attaches to one.",
        discussion: """
            One row per Prometheus instance: its pipelines, those waiting, lints fired and events dropped, read every \
            couple of seconds. Enter attaches to a row's program when top can reach its probe: the scrape target's \
            pipescope_probe label (tcp://HOST:PORT, with --token), or a program on this machine listening on the \
            instance's port. See Fleet in the docs for the scrape config.
            """)

    @Option(help: ArgumentHelp("Prometheus' address.", valueName: "http://host:9090"))
    var prometheus: String

    @Option(help: "The programs' PIPESCOPE_TOKEN, for tcp:// probes (default: $PIPESCOPE_TOKEN).")
    var token: String?

    @Option(help: ArgumentHelp("Seconds between reads.", valueName: "seconds"))
    var interval: Double = 2

    func validate() throws {
        guard interval >= 0.2, interval <= 3600 else { throw ValidationError("--interval must be from 0.2 to 3600 seconds") }
    }

    func run() throws {
        let client: PrometheusClient
        do {
            client = try PrometheusClient(url: prometheus)
        } catch {
            fail(error.description)
        }
        InspectorLoop.requireTerminal(withoutTerminal: "For a script, ask Prometheus itself: curl '\(prometheus)/api/v1/query"
            + "?query=sum+by+(instance)+(pipescope_pipelines)'")
        let reader = FleetReader(client: client, interval: interval)
        reader.start()
        defer {
            reader.stop()
            client.shutdown()
        }
        var loop = FleetLoop(state: FleetState(url: prometheus), reader: reader, token: token)
        if let failure = loop.run() { fail(failure) }
    }
}

/// The top screen on the real terminal: reads from the reader each turn, keys into the
/// state, Enter's attach as a child `pipescope attach`, with the terminal handed over.
struct FleetLoop {
    var state: FleetState
    let reader: FleetReader
    let token: String?

    /// How a stretch on the terminal ended.
    enum Turn {
        case quit
        case attach(target: String, instance: String)
    }

    /// Runs until `q` or a signal; a message when the terminal could not be opened.
    mutating func run() -> String? {
        while true {
            let turn: Turn
            do {
                // Released at the end of this block, before the child runs: a CursesTerminal's
                // deinit ends curses, and must not end the one opened after the attach.
                let terminal = try CursesTerminal()
                turn = screen(on: terminal)
                terminal.restore()
            } catch {
                return "\(error)"
            }
            guard case .attach(let target, let instance) = turn else { return nil }
            // The child owns the terminal while it runs, as a shell's job would.
            state.notice = attach(target: target, instance: instance)
            reader.refresh()
        }
    }

    /// The table on `terminal` until a key quits or asks to attach.
    mutating func screen(on terminal: CursesTerminal) -> Turn {
        while !terminal.interrupted {
            if let read = reader.take() { state.apply(read, now: InspectorApp.wallClockNanos()) }
            let size = terminal.size
            state.pageRows = FleetView.pageRows(height: size.height)
            var buffer = ScreenBuffer(width: size.width, height: size.height)
            let theme = Theme(glyphs: terminal.isUnicode ? .unicode : .ascii, colors: terminal.hasColors)
            FleetView.render(state, theme: theme, now: InspectorApp.wallClockNanos(), into: &buffer)
            terminal.draw(buffer)
            guard let key = terminal.readKey(timeoutMs: 200) else { continue }
            if key == .resize || key == .control("l") {
                terminal.invalidate()
                continue
            }
            guard let fleetKey = FleetKeyMap.key(for: key) else { continue }
            switch state.handle(fleetKey) {
            case .quit?: return .quit
            case .refresh?: reader.refresh()
            case .attach(let target, let instance)?: return .attach(target: target, instance: instance)
            case nil: break
            }
        }
        return .quit
    }

    /// Runs `pipescope attach TARGET` and waits for it; what the status line says after.
    /// Its standard error goes to a file, so why it failed is shown here, not lost under
    /// the redrawn table. posix_spawn, not Foundation's Process: Process puts the child in
    /// a process group of its own, which the terminal then stops (SIGTTOU) as a background job.
    func attach(target: String, instance: String) -> String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let arguments = [executable, "attach", target] + (token.map { ["--token", $0] } ?? [])
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("pipescope-top-\(getpid()).err").path
        defer { unlink(errors) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Ctrl-C in the inspector goes to the whole foreground group: top stays (a handler,
        // unlike SIG_IGN, is not inherited by the child's exec).
        let previous = signal(SIGINT, { _ in })
        defer { signal(SIGINT, previous) }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            return "could not start pipescope attach \(target): \(String(cString: strerror(spawned)))"
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        let last = said.split(separator: "\n").last.map { String($0) } ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import: low 7 bits 0, status in the next 8.
        let exited = status & 0x7f == 0
        guard exited, (status >> 8) & 0xff == 0 else {
            let why = last.hasPrefix("pipescope: ") ? String(last.dropFirst("pipescope: ".count)) : last
            let code = exited ? "exit status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
            return "attach \(target) (\(instance)) failed: " + (why.isEmpty ? code : why)
        }
        return "detached from \(instance) (\(target))"
    }
}
