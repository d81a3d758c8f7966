import Foundation

/// What is at a path, in the words a message uses: "a socket", "a directory", "a
/// regular file", "a device or a pipe"; nil when nothing is there (or it cannot be seen).
///
/// ```swift
/// FileKind.of("/etc/passwd")   // "a regular file"
/// ```
enum FileKind {
    static func of(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return describe(mode: info.st_mode)
    }

    static func describe(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        case S_IFREG: return "a regular file"
        default: return "a device or a pipe"
        }
    }
}
