import Foundation
import XCTest

/// The import arrows of Package.swift, checked in the sources themselves: SwiftPM lets a
/// target import a module it depends on only indirectly, so a declared dependency list
/// alone would not stop, say, the command line from importing the codec again.
final class ImportArrowsTests: XCTestCase {
    private static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every module each target's Swift files import.
    private func imports(of target: String) throws -> Set<String> {
        let folder = Self.sources.appendingPathComponent(target)
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: folder.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        XCTAssertFalse(files.isEmpty, "no sources in \(target)")
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                      words[..<at].allSatisfy({ $0.hasPrefix("@") }) else { continue }
                found.insert(String(words[at + 1]))
            }
        }
        return found
    }

    private func assertNone(_ target: String, import forbidden: (String) -> Bool, _ why: String,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let bad = try imports(of: target).filter(forbidden)
        XCTAssertTrue(bad.isEmpty, "\(target) imports \(bad.sorted()): \(why)", file: file, line: line)
    }

    func testTheTapImportsNoNetworkingAndNoCodec() throws {
        try assertNone("PipescopeTap", import: { $0.hasPrefix("NIO") || $0 == "PipescopeWire" || $0 == "PipescopeRecording" },
                       "it runs on the program's threads and only records")
        try assertNone("PipescopeTap", import: { ["Pipescope", "PipescopeProbe", "PipescopeLocations"].contains($0) },
                       "the arrows point from the probe to the tap")
        try assertNone("PipescopeLocations", import: { $0.hasPrefix("NIO") || $0.hasPrefix("PipescopeT") },
                       "symbolizing needs neither the network nor the tap")
    }

    func testTheCommandLineImportsNoCodec() throws {
        try assertNone("pipescope", import: { ["PipescopeWire", "PipescopeRecording", "SwiftProtobuf"].contains($0) },
                       "PipescopeClient owns the codec and the recordings; the command line is wiring")
    }

    func testTheCodecImportsNoRecordingAndTouchesNoFile() throws {
        try assertNone("PipescopeWire", import: { $0.hasPrefix("NIO") || ($0.hasPrefix("Pipescope") && $0 != "PipescopeGraph") },
                       "the codec turns messages into bytes and back; PipescopeRecording owns the files")
        // What opens, writes or syncs a file, in any of the ways Foundation and Glibc offer (a
        // method of our own named `write(` is called with a dot, and is not one of them).
        let fileCall = try NSRegularExpression(pattern: #"(?<![.\w])(open|fopen|creat|write|pwrite|fsync|fdatasync|ftruncate|unlink|rename|mkdir)\(|FileManager|FileHandle|(Data|String)\(contentsOf|contentsOfFile:|write\(to(File)?:"#)
        let folder = Self.sources.appendingPathComponent("PipescopeWire")
        let files = FileManager.default.enumerator(atPath: folder.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                if let match = fileCall.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) {
                    XCTFail("PipescopeWire/\(file):\(number + 1) uses \((code as NSString).substring(with: match.range)): "
                            + "files belong to PipescopeRecording")
                }
            }
        }
    }

    func testMetricsAreMadeBesideTheProbeNeverInTheTap() throws {
        try assertNone("PipescopeMetrics", import: {
            ["PipescopeTap", "PipescopeWire", "PipescopeRecording", "PipescopeClient", "Pipescope"].contains($0)
                || $0.hasPrefix("NIO")
        }, "the metrics read the probe's batches and graph; the tap's code stays as it is")
        for target in ["PipescopeTap", "PipescopeProbe", "PipescopeGraph", "PipescopeModel", "PipescopeLocations"] {
            try assertNone(target, import: { ["PipescopeMetrics", "CoreMetrics", "Metrics", "Prometheus"].contains($0) },
                           "the arrow points from the metrics to the probe and the model")
        }
    }

    func testTheDomainAndTheInspectorSideKeepTheirDistance() throws {
        try assertNone("PipescopeGraph", import: { $0.hasPrefix("Pipescope") || $0.hasPrefix("NIO") },
                       "the domain imports nothing of ours")
        try assertNone("PipescopeModel", import: { $0.hasPrefix("Pipescope") && $0 != "PipescopeGraph" },
                       "the model knows the domain only")
        for target in ["PipescopeModel", "PipescopeViews", "PipescopeApp", "PipescopeExport", "TerminalKit"] {
            try assertNone(target, import: {
                $0 == "PipescopeWire" || $0 == "PipescopeRecording" || $0 == "SwiftProtobuf" || $0.hasPrefix("NIO")
                    || $0 == "OpenCombine"
                    || ["Pipescope", "PipescopeTap", "PipescopeProbe", "PipescopeClient"].contains($0)
            }, "the inspector's state, views and exporter see no protobuf, network or tap")
        }
    }
}
