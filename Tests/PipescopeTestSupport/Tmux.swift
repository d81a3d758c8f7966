import Foundation
import Glibc  // posix_spawnp, waitpid: see `tmux(_:)` for why not `Process`

/// Why a tmux session could not be started.
public struct TmuxError: Error, CustomStringConvertible {
    public let description: String
}

/// Drives a program inside a private, detached tmux server, for end-to-end tests of
/// what only a real terminal shows: keys, resizing, and restoring the terminal.
///
/// Each session runs on its own tmux server, on a private socket file (`tmux -S`, removed
/// by ``kill()``) and with no configuration file, so tests never touch the user's tmux. Poll with ``waitFor(text:timeout:)``
/// rather than sleeping a fixed time.
///
/// ```swift
/// let tmux = try TmuxSession(command: "\(binary) demo", width: 100, height: 30)
/// defer { tmux.kill() }
/// XCTAssertNotNil(tmux.waitFor(text: "Pipelines", timeout: 10))
/// tmux.sendKeys("Down", "Enter")
/// tmux.sendKeys("q")
/// XCTAssertTrue(tmux.waitUntilExited(timeout: 5))
/// ```
public final class TmuxSession {
    /// The tmux session name.
    public let name: String
    /// The private server socket's path.
    public let socketPath: String
    /// The last screen `capture()` read while the pane was alive.
    public private(set) var lastScreen = ""

    /// Starts `command` (run by `sh -c`) in a new detached `width` × `height` session.
    ///
    /// `environment` is added to the pane's environment; `TERM` inside the pane is
    /// `tmux-256color` unless given here.
    /// - Throws: ``TmuxError`` when tmux is missing or the session cannot start.
    public init(
        command: String, width: Int, height: Int,
        environment: [String: String] = [:], name: String = TmuxSession.uniqueName()
    ) throws {
        self.name = name
        let directory = FileManager.default.temporaryDirectory.path
        // Unix socket paths are limited to about 100 bytes.
        let base = directory.utf8.count + name.utf8.count < 90 ? directory : "/tmp"
        self.socketPath = (base as NSString).appendingPathComponent("\(name).tmux")
        var env = environment
        if env["TERM"] == nil { env["TERM"] = "tmux-256color" }
        // The pane's TERM comes from `default-terminal`, so set it before the session starts.
        var arguments = [
            "set-option", "-g", "default-terminal", env["TERM"]!, ";",
            "new-session", "-d", "-x", String(width), "-y", String(height), "-s", name,
        ]
        for (key, value) in env.sorted(by: { $0.key < $1.key }) {
            arguments += ["-e", "\(key)=\(value)"]
        }
        arguments.append(command)
        let result = tmux(arguments, extraEnvironment: env)
        guard result.status == 0 else {
            throw TmuxError(description: "could not start tmux session \(name) for `\(command)` "
                + "(exit \(result.status)): \(result.error.trimmingCharacters(in: .whitespacesAndNewlines)). "
                + "Is tmux (3.0 or later) installed and on PATH?")
        }
    }

    deinit { kill() }

    /// A fresh session name: process id and random bits.
    public static func uniqueName() -> String {
        "pipescope-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    // MARK: - Driving

    /// Sends keys by tmux name, for example `"q"`, `"Down"`, `"Enter"`, `"C-c"`, `"Escape"`.
    public func sendKeys(_ keys: String...) {
        tmux(["send-keys", "-t", name] + keys)
    }

    /// Types `text` literally (no key-name lookup).
    public func sendLiteral(_ text: String) {
        tmux(["send-keys", "-t", name, "-l", text])
    }

    /// Resizes the window; the program sees SIGWINCH.
    public func resize(width: Int, height: Int) {
        tmux(["resize-window", "-t", name, "-x", String(width), "-y", String(height)])
    }

    // MARK: - Reading back

    /// The visible screen as text, one line per terminal line (trailing spaces trimmed
    /// by tmux). Once the pane has gone, this returns the last screen seen.
    public func capture() -> String {
        let result = tmux(["capture-pane", "-p", "-t", name])
        if result.status == 0 { lastScreen = result.output }
        return lastScreen
    }

    /// Polls the screen until `predicate` holds or `timeout` seconds pass. Returns the
    /// matching screen, or `nil` on timeout (``lastScreen`` then shows what was there).
    @discardableResult
    public func waitFor(_ predicate: (String) -> Bool, timeout: Double, poll: Double = 0.1) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let screen = capture()
            if predicate(screen) { return screen }
            if Date() >= deadline { return nil }
            Thread.sleep(forTimeInterval: poll)
        }
    }

    /// Polls the screen until it contains `text`, or `timeout` seconds pass.
    @discardableResult
    public func waitFor(text: String, timeout: Double) -> String? {
        waitFor({ $0.contains(text) }, timeout: timeout)
    }

    /// True while the program in the pane is still running.
    public var isAlive: Bool {
        let result = tmux(["display-message", "-p", "-t", name, "#{pane_dead}"])
        return result.status == 0 && result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0"
    }

    /// The pid of the pane's process (the command, or the shell running it).
    public var panePID: Int32? {
        let result = tmux(["display-message", "-p", "-t", name, "#{pane_pid}"])
        return Int32(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Polls until the program has exited, or `timeout` seconds pass; true if it exited.
    @discardableResult
    public func waitUntilExited(timeout: Double, poll: Double = 0.05) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isAlive {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: poll)
        }
        return true
    }

    /// Stops the private tmux server and everything in it, and removes its socket.
    /// Safe to call repeatedly.
    public func kill() {
        tmux(["kill-server"])
        try? FileManager.default.removeItem(atPath: socketPath)
    }

    // MARK: - Running tmux

    private struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `tmux -S <socket> -f /dev/null <arguments>` and waits for it.
    ///
    /// This uses `posix_spawn` and `waitpid`, not Foundation's `Process`: `Process` on
    /// Linux notices a child's exit by a socket the child inherits, and the tmux server
    /// that `new-session` forks keeps that socket open, so `waitUntilExit()` never
    /// returns. For the same reason output goes to temporary files, not pipes.
    @discardableResult
    private func tmux(_ arguments: [String], extraEnvironment: [String: String] = [:]) -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "TMUX")  // allow running the tests from inside tmux
        environment.merge(extraEnvironment) { _, new in new }
        let argv = ["tmux", "-S", socketPath, "-f", "/dev/null"] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }

        let directory = FileManager.default.temporaryDirectory
        let outPath = directory.appendingPathComponent("\(name)-\(UUID().uuidString).out").path
        let errPath = directory.appendingPathComponent("\(name)-\(UUID().uuidString).err").path
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var pid = pid_t()
        let spawnError = withCStrings(argv) { cArgv in
            withCStrings(envp) { cEnvp in
                posix_spawnp(&pid, "tmux", &actions, nil, cArgv, cEnvp)
            }
        }
        guard spawnError == 0 else {
            return Result(status: -1, output: "", error: "cannot run tmux: \(String(cString: strerror(spawnError)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
        let exited = status & 0x7F == 0
        let code = exited ? (status >> 8) & 0xFF : -1
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return Result(status: code, output: output, error: errors)
    }
}

/// Calls `body` with a NULL-terminated C array of copies of `strings`.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
