import Foundation

/// The package's built executables, found next to the running test bundle.
public enum Programs {
    /// The build products directory (where `swift build` put `pipescope`).
    public static var productsDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    public static var pipescope: String { productsDirectory.appendingPathComponent("pipescope").path }
    public static var example: String { productsDirectory.appendingPathComponent("pipescope-example").path }

    public struct Output {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs a short-lived program to completion, with a deadline after which it is killed.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Double = 30) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

extension Programs {
    /// Runs the example with `environment` added to this process's, for a run that ends by
    /// itself (`EXAMPLE_SEND_LIMIT=N` with `EXAMPLE_EXIT=1`), polling until it exits; at
    /// the deadline it is terminated. Returns its exit status (0: it exited by itself).
    public static func runExampleToExit(environment: [String: String], timeout: Double = 60) throws -> Int32 {
        let program = Process()
        program.executableURL = URL(fileURLWithPath: example)
        program.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        program.standardInput = FileHandle.nullDevice
        program.standardOutput = FileHandle.nullDevice
        program.standardError = FileHandle.nullDevice
        try program.run()
        let deadline = Date().addingTimeInterval(timeout)
        while program.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if program.isRunning { program.terminate() }
        program.waitUntilExit()
        return program.terminationStatus
    }
}

/// The example program (`pipescope-example`) running as a separate process: a program
/// that links Pipescope and calls `Pipescope.start()`, as a user's would.
public final class ExampleProgram {
    public let process = Process()
    /// The socket it serves.
    public let socketPath: String

    /// Starts it serving `socketPath` (or its default path for its pid when nil), and
    /// waits until the socket exists. `standardError`: a file that gets what it says there
    /// (by default nothing is kept).
    public init(socketPath: String?, environment extra: [String: String] = [:], timeout: Double = 20,
                standardError: String? = nil) throws {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        environment["PIPESCOPE_SOCKET"] = socketPath
        process.executableURL = URL(fileURLWithPath: Programs.example)
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        if let standardError {
            guard FileManager.default.createFile(atPath: standardError, contents: nil),
                  let handle = FileHandle(forWritingAtPath: standardError) else {
                throw ProgramError(message: "cannot write \(standardError)")
            }
            process.standardError = handle
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        self.socketPath = socketPath ?? Self.defaultPath(pid: process.processIdentifier, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: self.socketPath) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw ProgramError(message: "pipescope-example did not serve \(self.socketPath) in \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    public var pid: Int32 { process.processIdentifier }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    static func defaultPath(pid: Int32, environment env: [String: String]) -> String {
        if let runtime = env["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/pipescope/\(pid).sock" }
        return "/tmp/pipescope-\(getuid())/\(pid).sock"
    }
}

public struct ProgramError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A fresh private directory for sockets, removed by the caller.
public func makeTemporaryDirectory() -> String {
    let path = "/tmp/pipescope-e2e-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    mkdir(path, 0o700)
    return path
}

/// Leaves a Unix socket file at `path` that nobody listens on, as a crashed program does.
public func makeStaleSocket(at path: String) {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = b }
    }
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

extension Programs {
    /// Starts `pipescope record TARGET -o FILE` (standard error discarded); the caller
    /// stops it (SIGINT ends the recording with its end mark, `terminate()` too).
    public static func startRecording(_ target: String, to file: String) throws -> Process {
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: pipescope)
        recorder.arguments = ["record", target, "-o", file]
        recorder.standardError = FileHandle.nullDevice
        try recorder.run()
        return recorder
    }
}
