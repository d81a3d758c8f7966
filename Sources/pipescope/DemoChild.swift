import Foundation
import PipescopeClient

/// The demo program, run as a child process of the inspector, exactly as a user's
/// program would run: it serves the default socket for its own pid.
final class DemoChild {
    private let process = Process()

    var pid: Int32 { process.processIdentifier }
    var socketPath: String { ProbeDirectory.socketPath(pid: pid) }

    /// Starts `pipescope demo --headless --exit-with-parent` with no terminal I/O.
    init() throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["demo", "--headless", "--exit-with-parent"]
        var environment = ProcessInfo.processInfo.environment
        environment["PIPESCOPE_SOCKET"] = nil
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Nil while the child runs; otherwise how it ended, in words.
    var exitDescription: String? {
        guard !process.isRunning else { return nil }
        let how = process.terminationReason == .uncaughtSignal
            ? "was killed by signal \(process.terminationStatus)"
            : "exited with status \(process.terminationStatus)"
        return "the demo program (pid \(pid)) \(how)"
    }

    /// Waits until the child's socket answers, or fails with a message.
    func waitForSocket(timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let ended = exitDescription { throw DemoError(message: ended + " before it served \(socketPath)") }
            // Not the file's existence: one left by a killed program whose pid the child
            // now has is there before the child replaces it, and nothing listens on it.
            if ProbeDirectory.answers(socketPath) { return }
            usleep(20_000)
        }
        throw DemoError(message: "the demo program did not serve \(socketPath) within \(Int(timeout)) s")
    }

    /// Ends the child: SIGTERM, then SIGKILL if it lingers.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
    }

    struct DemoError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
