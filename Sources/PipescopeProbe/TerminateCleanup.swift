import Glibc

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
/// The handler does only async-signal-safe work (`unlink`, `signal`, `raise`) on a path
/// copied into C memory beforehand.
enum TerminateCleanup {
    /// The socket to remove, as a C string. Written before the handler is installed and
    /// by ``forget()``; only read by the handler.
    nonisolated(unsafe) private static var socketPath: UnsafeMutablePointer<CChar>?

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
        if let path = TerminateCleanup.socketPath { unlink(path) }
        Glibc.signal(signal, SIG_DFL)
        raise(signal)  // blocked while this handler runs: delivered, by default, as it returns
    }

    /// Whether SIGTERM's action is this handler (Pipescope started again after a stop).
    private static func isOurs(_ action: sigaction) -> Bool {
        guard let installed = action.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(installed, to: UnsafeRawPointer.self) == unsafeBitCast(handler, to: UnsafeRawPointer.self)
    }
}
