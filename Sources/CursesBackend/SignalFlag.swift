import Glibc
import Synchronization

// MARK: - Async-signal-safe shutdown request

/// Set by the signal handler; read by `CursesTerminal.interrupted`. A lock-free atomic
/// is async-signal-safe, unlike anything that allocates or takes a lock.
let interruptRequested = Atomic<Bool>(false)

/// True while a curses screen is open, so the `atexit` hook knows whether to restore.
let cursesActive = Atomic<Bool>(false)

/// True once the `atexit` hook is registered (it is registered once per process).
let atexitRegistered = Atomic<Bool>(false)

/// The signals that ask Pipescope to quit.
let shutdownSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

/// Installs handlers that only record the request. A second signal while the first is
/// still unhandled restores the default action and re-raises it, so a stuck program can
/// still be stopped. `SA_RESTART` is left off, so a blocked read returns with `EINTR`.
func installShutdownHandlers() {
    _ = interruptRequested.load(ordering: .relaxed)  // initialise the global before any signal
    for signal in shutdownSignals {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            if interruptRequested.exchange(true, ordering: .relaxed) {
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(signal, &action, nil)
    }
}

/// Puts back the default action for the shutdown signals.
func removeShutdownHandlers() {
    for signal in shutdownSignals { Glibc.signal(signal, SIG_DFL) }
}
