/// Why the terminal could not be opened, worded for the person at the keyboard.
///
/// ```swift
/// do { terminal = try CursesTerminal() }
/// catch let error as TerminalError { print(error); exit(1) }
/// ```
public enum TerminalError: Error, CustomStringConvertible {
    /// Standard input or output is not a terminal (piped, redirected, or run by a script).
    case notATerminal
    /// `TERM` is not set, or names a terminal type that has no terminfo entry.
    case unknownTerminal(String?)

    public var description: String {
        switch self {
        case .notATerminal:
            // Printed after "pipescope: ", and followed by what the command can do instead.
            return "the inspector needs an interactive terminal, but standard input or output is "
                + "not a terminal (piped or redirected)."
        case .unknownTerminal(nil):
            return "the TERM environment variable is not set, so pipescope cannot tell what "
                + "the terminal understands. Set it, for example `TERM=xterm-256color pipescope …`."
        case .unknownTerminal(let term?):
            return "this system has no terminfo entry for TERM=\"\(term)\", so pipescope cannot "
                + "drive the terminal. Try `TERM=xterm-256color pipescope …`, or install the "
                + "terminfo entry (on Debian: the ncurses-term package)."
        }
    }
}
