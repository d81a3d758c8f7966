import CNcurses
import Glibc

// MARK: - Restoring the terminal when the process crashes

/// A crash (a Swift trap is SIGILL or SIGTRAP, a bad pointer SIGSEGV) runs no `atexit`
/// hook and no `defer`, and would leave the user's shell raw, without echo, in the
/// alternate screen. These handlers do only async-signal-safe work: put back the
/// terminal modes saved before curses started, write the terminal's own "leave
/// full-screen mode" sequences, then restore the default action and re-raise, so the
/// crash is still reported as a crash.
let crashSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

/// Terminal modes from before curses, and the bytes that leave curses' screen mode.
/// Written once before the handlers are installed; only read afterwards.
nonisolated(unsafe) private var savedModes = termios()
nonisolated(unsafe) private var hasSavedModes = false
nonisolated(unsafe) private var leaveSequence = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
nonisolated(unsafe) private var leaveSequenceLength = 0

/// Records the terminal's modes; call before `newterm`.
func saveTerminalModes() {
    hasSavedModes = tcgetattr(0, &savedModes) == 0
}

/// Installs the crash handlers; call after `newterm`, when terminfo is loaded.
func installCrashHandlers() {
    var bytes: [UInt8] = []
    for capability in ["rmcup", "cnorm", "sgr0"] {
        // tigetstr returns nil for absent capabilities and (char *)-1 for non-strings.
        if let value = tigetstr(capability), Int(bitPattern: value) != -1 {
            bytes.append(contentsOf: Array(String(cString: value).utf8))
        }
    }
    bytes.append(UInt8(ascii: "\r"))
    bytes.append(UInt8(ascii: "\n"))
    leaveSequenceLength = min(bytes.count, 256)
    for (i, b) in bytes.prefix(256).enumerated() { leaveSequence[i] = b }

    for signal in crashSignals {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            if hasSavedModes { tcsetattr(0, TCSANOW, &savedModes) }
            _ = write(1, leaveSequence, leaveSequenceLength)
            Glibc.signal(signal, SIG_DFL)
            raise(signal)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // the handler itself puts back SIG_DFL before re-raising
        sigaction(signal, &action, nil)
    }
}

/// Puts back the default action for the crash signals (after a normal restore).
func removeCrashHandlers() {
    for signal in crashSignals { Glibc.signal(signal, SIG_DFL) }
}
