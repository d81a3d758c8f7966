import Foundation
import PipescopeWire

/// The segment files of a flight recorder's directory, named so that sorting finds the
/// order: `flight-<run>-<number>.pipescope`, where the run is when the program started
/// (UTC) and its pid, `20261126T170700Z-4242`, and the number counts the run's segments
/// from 1. Each segment is a whole recording (see ``FlightRecorder``).
package enum FlightSegments {
    package struct Segment: Equatable, Sendable {
        package var path: String
        /// `20261126T170700Z-4242`: one program's run.
        package var run: String
        package var number: Int
        package var bytes: Int
        /// The pid in the run's name.
        package var pid: Int32 { Int32(run.split(separator: "-").last ?? "") ?? 0 }
    }

    static let prefix = "flight-"
    static let suffix = ".pipescope"

    /// The run of a program with this pid that started at `startNanos` (since 1970).
    package static func run(pid: Int32, startNanos: Int64) -> String {
        var seconds = time_t(startNanos / 1_000_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                           parts.tm_hour, parts.tm_min, parts.tm_sec)
        return "\(stamp)-\(pid)"
    }

    /// The path of a run's segment `number` in `directory`.
    package static func path(in directory: String, run: String, number: Int) -> String {
        directory + "/" + prefix + run + "-" + String(format: "%08d", number) + suffix
    }

    /// The segments in `directory`, oldest first (by run, then number); other files are
    /// left out. Throws when the directory cannot be listed.
    package static func list(_ directory: String) throws -> [Segment] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        var segments: [Segment] = []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(suffix) {
            let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
            guard let dash = middle.lastIndex(of: "-"), let number = Int(middle[middle.index(after: dash)...]) else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            segments.append(Segment(path: path, run: String(middle[..<dash]), number: number, bytes: Int(info.st_size)))
        }
        return segments.sorted { ($0.run, $0.number) < ($1.run, $1.number) }
    }

    /// Bytes the segments in `directory` take now (0 when it cannot be listed).
    package static func bytes(in directory: String) -> Int {
        ((try? list(directory)) ?? []).reduce(0) { $0 + $1.bytes }
    }

    // MARK: - Finding a live program's directory

    /// The file beside a program's socket that names its flight recorder's directory, so
    /// that `pipescope dump <pid>` finds it (also after the program crashed).
    package static func sidecar(forSocket socket: String) -> String { socket + ".flight" }

    /// Writes (or, with no directory, removes) the sidecar of `socket`. Returns what went
    /// wrong, for the program's standard error, when the sidecar cannot be written: the
    /// flight recorder still records, but `pipescope dump <pid>` then needs the directory.
    package static func announce(_ directory: String?, socket: String) -> String? {
        let path = sidecar(forSocket: socket)
        guard let directory else { unlink(path); return nil }
        let absolute = directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        if FileManager.default.createFile(atPath: path, contents: Data((absolute + "\n").utf8),
                                          attributes: [.posixPermissions: 0o600]) {
            return nil
        }
        return "cannot write \(path), which tells `pipescope dump` where the flight recorder is; "
            + "the flight recorder still records: run `pipescope dump \(absolute) -o FILE`"
    }

    /// The flight recorder directory the program serving (or that served) `socket`
    /// named, if it named one.
    package static func announced(bySocket socket: String) -> String? {
        guard let text = try? String(contentsOfFile: sidecar(forSocket: socket), encoding: .utf8) else { return nil }
        let directory = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return directory.isEmpty ? nil : directory
    }
}
