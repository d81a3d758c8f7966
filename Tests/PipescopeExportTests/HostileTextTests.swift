import Foundation
import PipescopeExport
import PipescopeGraph
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Value texts are whatever a program's `description` says: the export must stay valid
/// JSON whatever they hold, and keep them exactly.
final class HostileTextTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    static let hostile: [String] = [
        "\"", "\\", "\"},{\"ph\":\"X\"", "]}", "\\u0000", "/*", "</script>",
        (0..<32).map { String(UnicodeScalar(UInt8($0))) }.joined() + "\u{7F}",
        "line\nbreak\rreturn\ttab\u{8}\u{C}",
        "\u{2028}\u{2029}", "\u{FEFF}bom", "e\u{301}", "👩‍👩‍👧‍👦", "\u{10FFFF}",
        // What a program's text becomes when it holds invalid UTF-8: the tap's String
        // repairs it (U+FFFD), as String(decoding:) does.
        String(decoding: [0xFF, 0xFE, 0xC0, 0x80, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80, 0x61], as: UTF8.self),
        String(repeating: "\"\\\u{1}é😀", count: 2_000),  // 10 kB of escapes
        String(repeating: "x", count: 10_000),
    ]

    /// Every hostile text in values, errors and names comes back exactly, and the file
    /// parses with a strict parser.
    func testHostileTextsSurviveTheJSONExactly() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map\"\n\u{0}", type: "Map<\"T\">\u{2028}", subscriber: "Sink\\", thread: "th\"read\u{1}")
        b.subscription(1)
        b.request(1, .unlimited)
        for text in Self.hostile { b.value(1, text) }
        b.fail(1, Self.hostile[7])
        let path = directory + "/hostile.pipescope"
        try KnownPipelines.writeRecording(to: path, process: "app \"quoted\"\n\u{0}", batches: [b.build()])

        let (trace, result) = try TraceFile.export(path)
        XCTAssertEqual(result.stop, .complete)
        XCTAssertEqual(trace.named("value").count, Self.hostile.count, "the file parses with JSONSerialization")
        // The exact texts, read with JSONDecoder: JSONSerialization drops a U+FEFF that
        // starts a string (the file has it: the bytes EF BB BF are there).
        let data = try XCTUnwrap(FileManager.default.contents(atPath: path + ".json"))
        XCTAssertNotNil(data.range(of: Data([0x22, 0xEF, 0xBB, 0xBF])), "the BOM is in the file, quoted")
        let texts = try JSONDecoder().decode(Values.self, from: data).traceEvents.filter { $0.name == "value" }.compactMap { $0.args?.value }
        XCTAssertEqual(texts.count, Self.hostile.count)
        for (i, (got, sent)) in zip(texts, Self.hostile).enumerated() {
            // Compared as scalars, not as Strings (which compare canonically equivalent
            // texts equal), and without printing 10 kB on failure.
            XCTAssertTrue(Array(got.unicodeScalars) == Array(sent.unicodeScalars),
                          "text \(i) changed: sent \(sent.unicodeScalars.count) scalars \(sent.prefix(20).debugDescription), "
                          + "got \(got.unicodeScalars.count) \(got.prefix(20).debugDescription)")
        }
        XCTAssertTrue(texts[14].contains("\u{FFFD}"), "invalid UTF-8 arrives repaired")
        let slice = try XCTUnwrap(trace.phase("X").first)
        XCTAssertEqual(slice["name"] as? String, "Map\"\n\u{0}")
        XCTAssertEqual(TraceFile.arg(slice, "error") as? String, Self.hostile[7])
        XCTAssertEqual(TraceFile.arg(slice, "thread") as? String, "th\"read\u{1}")
        XCTAssertEqual(TraceFile.arg(trace.named("process_name", ph: "M")[0], "name") as? String, "app \"quoted\"\n\u{0}")
        XCTAssertEqual(TrackLayout(trace).problems, [])
    }

    /// The bytes on disk: no raw control character, every string escaped by the encoder.
    func testTheFileHasNoRawControlCharacters() throws {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", subscriber: "Sink")
        for text in Self.hostile { b.value(1, text) }
        let path = directory + "/raw.pipescope"
        try KnownPipelines.writeRecording(to: path, batches: [b.build()])
        _ = try TraceFile.export(path)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path + ".json"))
        XCTAssertFalse(bytes.dropLast().contains { $0 < 0x20 }, "control characters are escaped")
        XCTAssertNotNil(String(data: bytes, encoding: .utf8), "the file is valid UTF-8")
    }

    /// Invalid UTF-8 in the file itself (a damaged recording: the probe never writes it)
    /// cannot reach the JSON: the export stops at that message, says where, and the
    /// trace of everything before it still parses.
    func testInvalidUTF8OnDiskStopsTheExportThereAndTheTraceStillParses() throws {
        var first = BatchBuilder()
        first.subscribe(1, op: "Map", subscriber: "Sink")
        first.value(1, "fine")
        var second = BatchBuilder(start: first.now)
        second.value(1, "MARKER-TEXT")
        let path = directory + "/invalid.pipescope"
        try KnownPipelines.writeRecording(to: path, batches: [first.build(), second.build()])
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let marker = Data("MARKER-TEXT".utf8)
        let range = try XCTUnwrap(bytes.range(of: marker))
        bytes.replaceSubrange(range, with: [UInt8](repeating: 0xFF, count: marker.count))
        try bytes.write(to: URL(fileURLWithPath: path))

        let (trace, result) = try TraceFile.export(path)
        guard case .damaged(_, let after, _) = result.stop else { return XCTFail("\(result.stop)") }
        XCTAssertEqual(after, 3, "welcome, snapshot and the first batch were read")
        XCTAssertTrue(result.stop.description.contains("damaged after 3 messages"))
        XCTAssertEqual(trace.named("value").count, 1, "the first batch is exported")
        XCTAssertEqual(trace.named("recording ends").count, 1)
        XCTAssertEqual(TraceFile.arg(trace.phase("X")[0], "live_at_end") as? Bool, true)
    }

    private struct Values: Decodable {
        struct Event: Decodable {
            struct Args: Decodable { var value: String? }
            var name: String
            var args: Args?
        }
        var traceEvents: [Event]
    }
}
