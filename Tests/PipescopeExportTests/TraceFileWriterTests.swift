import Foundation
import PipescopeExport
import PipescopeTestSupport
import XCTest

final class TraceFileWriterTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// Chunks encoded on several threads come out in the order they were written.
    func testChunksEncodedTogetherKeepTheirOrder() throws {
        let path = directory + "/order.json"
        let writer = try TraceFileWriter(path: path, chunkSize: 7, parallelChunks: 4)
        for i in 0..<2_001 {
            try writer.write(TraceEvent(.instant, name: "value", pid: 1, tid: 1, ts: Double(i), scope: .thread,
                                        args: ["n": .int(Int64(i))]))
        }
        try writer.finish(otherData: ["note": "\"quoted\""])
        XCTAssertEqual(writer.eventCount, 2_001)
        let trace = try TraceFile(data: XCTUnwrap(FileManager.default.contents(atPath: path)))
        XCTAssertEqual(trace.events.compactMap { TraceFile.arg($0, "n") as? Int }, Array(0..<2_001))
        XCTAssertEqual((trace.document["otherData"] as? [String: Any])?["note"] as? String, "\"quoted\"")
    }

    func testAnEmptyTraceIsStillATrace() throws {
        let path = directory + "/empty.json"
        let writer = try TraceFileWriter(path: path)
        try writer.finish()
        let trace = try TraceFile(data: XCTUnwrap(FileManager.default.contents(atPath: path)))
        XCTAssertTrue(trace.events.isEmpty)
    }

    /// The same recording gives the same bytes (keys sorted, nothing from the clock).
    func testTheSameRecordingExportsToTheSameBytes() throws {
        let path = directory + "/known.pipescope"
        try KnownPipelines.write(to: path)
        _ = try TraceFile.export(path)
        let first = try XCTUnwrap(FileManager.default.contents(atPath: path + ".json"))
        _ = try TraceFile.export(path)
        XCTAssertEqual(FileManager.default.contents(atPath: path + ".json"), first)
    }
}
