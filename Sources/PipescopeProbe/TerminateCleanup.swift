import Foundation
import Glibc
import PipescopeTap

// MARK: - Removing the socket when the program is terminated

/// A program ended by SIGTERM (`kill`, a service manager, `Process.terminate()`) runs no
/// `atexit` hook, and its socket would stay behind for `pipescope list` to clean up. When
/// the program has not chosen what SIGTERM does (its action is still the default),
/// Pipescope installs a handler that removes the socket, puts the default action back
/// and raises SIGTERM again, so the program still ends as it would have, killed by
/// SIGTERM, with that exit status.
///
/// A program that has its own handler, or ignores SIGTERM, keeps it: Pipescope never
/// takes a program's signal. One that installs its own later simply replaces this one
/// (its `exit` then removes the socket through `atexit`).
///
/// A program that records itself (`PIPESCOPE_RECORD`, the flight recorder) must also end
/// its recording properly: a last flush and the end mark, or replay calls it "killed or
/// crashed". That is not async-signal-safe work, so the handler only wakes a thread of
/// Pipescope's (one byte down a pipe, ``finishFirst(_:)``), which finishes the recording
/// (bounded: a few seconds at most, ``ProbeServer/finishRecording(reason:timeout:symbols:)``),
/// removes the socket and raises SIGTERM again. The handler puts the default action back
/// first, so a second SIGTERM ends the program at once whatever the thread is doing.
///
/// The handler does only async-signal-safe work (`unlink`, `signal`, `raise`, `write`) on
/// a path copied into C memory beforehand.
enum TerminateCleanup {
    /// The socket to remove, as a C string. Written before the handler is installed and
    /// by ``forget()``; only read by the handler.
    nonisolated(unsafe) private static var socketPath: UnsafeMutablePointer<CChar>?
    /// The pipe's write end that wakes the finishing thread; -1 while nothing must be
    /// finished first. Written under ``finisher``'s lock, read by the handler.
    nonisolated(unsafe) private static var wakeFD: Int32 = -1
    /// What to finish before the program ends (the recording), and the pipe's read end.
    private static let finisher = LockedBox<(finish: (@Sendable () -> Void)?, readFD: Int32)>((nil, -1))

    /// Makes SIGTERM run `finish` (on a thread of Pipescope's) before the program ends, as
    /// long as the handler is Pipescope's (``install(removing:)``); nil: end at once.
    static func finishFirst(_ finish: (@Sendable () -> Void)?) {
        finisher.withLockedValue { state in
            state.finish = finish
            guard finish != nil else {
                wakeFD = -1
                return
            }
            guard state.readFD < 0 else {
                if wakeFD < 0 { wakeFD = pipeWriteEnd }
                return
            }
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { return }  // no pipe: SIGTERM ends at once, as before
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            state.readFD = fds[0]
            pipeWriteEnd = fds[1]
            wakeFD = fds[1]
            let readFD = fds[0]
            let thread = Thread { waitAndFinish(readFD) }
            thread.name = "pipescope SIGTERM"
            thread.start()
        }
    }

    /// The pipe's write end, kept while ``wakeFD`` is -1 (nothing to finish for now).
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    /// Waits for the handler's byte, finishes, removes the socket and ends the program by
    /// SIGTERM, as it would have ended.
    private static func waitAndFinish(_ readFD: Int32) {
        var byte: UInt8 = 0
        while read(readFD, &byte, 1) != 1 {
            if errno != EINTR { return }
        }
        finisher.withLockedValue { $0.finish }?()
        if let path = socketPath { unlink(path) }
        Glibc.signal(SIGTERM, SIG_DFL)
        raise(SIGTERM)
    }

    /// Installs the handler for `path` unless the program already decided what SIGTERM
    /// does. Returns whether it did.
    @discardableResult
    static func install(removing path: String) -> Bool {
        var current = sigaction()
        guard sigaction(SIGTERM, nil, &current) == 0, current.sa_flags & SA_SIGINFO == 0,
              current.__sigaction_handler.sa_handler == nil || isOurs(current) else {
            return false  // SIG_IGN, or the program's own handler
        }
        socketPath = strdup(path)  // the previous one, if any, is kept: a signal may be reading it
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // the handler puts back SIG_DFL itself before raising again
        return sigaction(SIGTERM, &action, nil) == 0
    }

    /// The socket at `path` is gone (Pipescope stopped): the handler removes nothing more.
    static func forget(_ path: String) {
        if let current = socketPath, String(cString: current) == path { socketPath = nil }
    }

    private static let handler: @convention(c) (Int32) -> Void = { signal in
        Glibc.signal(signal, SIG_DFL)  // a second SIGTERM ends the program at once
        var byte: UInt8 = 1
        let wake = TerminateCleanup.wakeFD
        if wake >= 0, write(wake, &byte, 1) == 1 { return }  // the thread finishes, then raises it again
        if let path = TerminateCleanup.socketPath { unlink(path) }
        raise(signal)  // blocked while this handler runs: delivered, by default, as it returns
    }

    /// Whether SIGTERM's action is this handler (Pipescope started again after a stop).
    private static func isOurs(_ action: sigaction) -> Bool {
        guard let installed = action.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(installed, to: UnsafeRawPointer.self) == unsafeBitCast(handler, to: UnsafeRawPointer.self)
    }
}
