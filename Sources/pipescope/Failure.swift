import ArgumentParser
import Foundation

/// Prints a message for a person on standard error and exits non-zero, with no stack
/// trace. Every user-facing failure of the CLI ends here.
func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("pipescope: \(message)\n".utf8))
    exit(code)
}

/// Flushes standard output (a prompt without a newline would otherwise sit in the buffer).
func fflushStandardOutput() {
    fflush(nil)
}
