import Foundation
import PipescopeTestSupport

// Writes the recordings the benchmarks measure (Benchmarks/replay-history.sh,
// Benchmarks/export-sizes.sh): a program of its own, not a test, so the test suite runs
// no generator (they were tests that skipped unless asked) and a benchmark needs no
// `swift test` filter to make its data. It shares the test support's generators (the
// recording format's writer is Swift), so the tests and the benchmarks read the same shapes.
//
//     swift run bench-recording busy /tmp/busy.pipescope 10000000
//     swift run bench-recording export /tmp/big.pipescope 1000000

let usage = """
    usage: bench-recording busy|export FILE [EVENTS]
      busy    the replay benchmark's recording (BusyRecording; 10000000 events by default)
      export  the export benchmark's recording (ExportBenchRecording; 1000000 events by default)
    """

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2 || arguments.count == 3, let kind = arguments.first, ["busy", "export"].contains(kind) else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
let path = arguments[arguments.startIndex + 1]
var events = kind == "busy" ? 10_000_000 : 1_000_000
if arguments.count == 3 {
    guard let n = Int(arguments[arguments.startIndex + 2]), n > 0 else {
        FileHandle.standardError.write(Data("bench-recording: EVENTS must be a positive number, not \(arguments.last!)\n\(usage)\n".utf8))
        exit(2)
    }
    events = n
}
do {
    let written = kind == "busy" ? try BusyRecording.write(to: path, events: events)
        : try ExportBenchRecording.write(to: path, events: events)
    print("wrote \(written) events to \(path)")
} catch {
    FileHandle.standardError.write(Data("bench-recording: cannot write \(path): \(error)\n".utf8))
    exit(1)
}
