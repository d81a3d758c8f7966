import Foundation
import PipescopeGraph
@testable import PipescopeRecording
import PipescopeTestSupport
@testable import PipescopeWire
import XCTest

/// The flight recorder's segments: the budget is never exceeded, however long it runs,
/// the oldest go first, the window deletes closed segments but never the one being
/// written, every segment replays on its own, and settings that cannot work are said.
final class FlightRecorderTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() + "/flight" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }

    private let second: Int64 = 1_000_000_000

    /// Bytes of every file in the directory, whatever it is.
    private func directoryBytes() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.reduce(0) { total, name in
            var info = stat()
            return total + (stat(directory + "/" + name, &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    private func welcome() -> ServerMessage {
        var message = ServerMessage()
        message.welcome.protocolVersion = ProtocolVersion.current
        message.welcome.pid = 4242
        message.welcome.processName = "counter"
        return message
    }

    /// A program that sends 1, 2, 3, … through one stage, `perFlush` values a flush.
    private struct Counter {
        var graph = Graph()
        var sent = 0
        var sequence: UInt64 = 0
        var now: Int64

        mutating func flush(_ perFlush: Int, step: Int64) -> EventBatch {
            var b = BatchBuilder(start: now, step: step)
            if sent == 0 { b.subscribe(1, op: "PassthroughSubject", subscriber: "Sink") }
            for _ in 0..<perFlush {
                sent += 1
                b.value(1, "\(sent)")
            }
            sequence += UInt64(b.batch.events.count)
            now = b.now
            let batch = b.build(sequence: sequence)
            graph.fold(batch)
            return batch
        }
    }

    /// The values of stage 1 in one segment, and how many snapshots it has.
    private func values(inSegment path: String) throws -> (values: [Int], snapshots: Int, welcome: Bool) {
        var reader = try RecordingReader(path: path)
        var stream = WireStreamReader()
        var values: [Int] = []
        var snapshots = 0
        var welcome = false
        while let message = try reader.next() {
            switch message.body {
            case .welcome?: welcome = true
            case .snapshot(let s)?: _ = try stream.snapshot(s); snapshots += 1
            case .packed(let p)?: values += try stream.batch(p).events.filter { $0.kind == .value }.compactMap { Int($0.text) }
            default: break
            }
        }
        return (values, snapshots, welcome)
    }

    func testRunningLongerThanItsBudgetNeverExceedsItAndKeepsTheNewestSegmentsWhole() throws {
        let options = FlightRecorder.Options(directory: directory, budget: 16 << 10, window: 3600)
        var counter = Counter(now: BatchBuilder.baseNanos)
        let recorder = try FlightRecorder(options: options, welcome: welcome(), startNanos: counter.now,
                                          snapshot: counter.graph.snapshot(), now: counter.now) { XCTFail($0) }
        var largest = 0
        // About 40 bytes a value: 3,000 flushes of 20 are some 2.4 MB, 150 budgets.
        for _ in 0..<3_000 {
            let batch = counter.flush(20, step: 1_000_000)
            recorder.append(batches: [batch], now: counter.now) { counter.graph.snapshot() }
            recorder.waitUntilWritten()
            let bytes = directoryBytes()
            largest = max(largest, bytes)
            XCTAssertLessThanOrEqual(bytes, options.budget, "the directory grew past the budget")
            if bytes > options.budget { break }
        }
        recorder.close()
        XCTAssertLessThanOrEqual(directoryBytes(), options.budget)
        XCTAssertGreaterThan(largest, options.budget * 3 / 4, "the budget was used")
        let segments = try FlightSegments.list(directory)
        XCTAssertGreaterThan(segments.first?.number ?? 0, 10, "old segments were deleted")
        XCTAssertEqual(segments.map(\.number), Array(stride(from: segments.first?.number ?? 0, through: segments.last?.number ?? -1, by: 1)),
                       "the oldest went first: the kept segments follow each other")
        // Each segment replays on its own (Welcome, snapshot, then its values), and
        // together they are the tail of what was sent: a run ending at the last value.
        var all: [Int] = []
        for segment in segments {
            let read = try values(inSegment: segment.path)
            XCTAssertTrue(read.welcome)
            XCTAssertEqual(read.snapshots, 1)
            all += read.values
        }
        XCTAssertEqual(all.last, counter.sent)
        XCTAssertEqual(all, Array(stride(from: counter.sent - all.count + 1, through: counter.sent, by: 1)))
    }

    func testTheWindowDeletesClosedSegmentsButNeverTheOneBeingWritten() throws {
        let options = FlightRecorder.Options(directory: directory, budget: 1 << 20, window: 8)
        var counter = Counter(now: BatchBuilder.baseNanos)
        let recorder = try FlightRecorder(options: options, welcome: welcome(), startNanos: counter.now,
                                          snapshot: counter.graph.snapshot(), now: counter.now) { XCTFail($0) }
        // 20 s of one value every 100 ms: segments of at most a second (an eighth of 8 s).
        for _ in 0..<200 {
            let batch = counter.flush(1, step: 100_000_000)
            recorder.append(batches: [batch], now: counter.now) { counter.graph.snapshot() }
        }
        recorder.waitUntilWritten()
        var segments = try FlightSegments.list(directory)
        var kept: [Int] = []
        for segment in segments { kept += try values(inSegment: segment.path).values }
        XCTAssertEqual(kept.last, 200)
        // At least the last 8 s (80 values), at most a segment (10 values) more.
        XCTAssertGreaterThanOrEqual(kept.count, 80)
        XCTAssertLessThanOrEqual(kept.count, 80 + 11)
        // An idle program: the window goes on, but the segment being written stays.
        for _ in 0..<100 {
            counter.now += second
            recorder.append(batches: [], now: counter.now) { counter.graph.snapshot() }
        }
        recorder.waitUntilWritten()
        segments = try FlightSegments.list(directory)
        XCTAssertEqual(segments.count, 1)
        recorder.close()
    }

    func testEarlierRunsCountAgainstTheBudgetAndGoFirst() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let earlier = FlightSegments.path(in: directory, run: "20200101T000000Z-7", number: 1)
        XCTAssertTrue(FileManager.default.createFile(atPath: earlier, contents: Data(count: 10 << 10)))
        let options = FlightRecorder.Options(directory: directory, budget: 16 << 10, window: 3600)
        var counter = Counter(now: BatchBuilder.baseNanos)
        let recorder = try FlightRecorder(options: options, welcome: welcome(), startNanos: counter.now,
                                          snapshot: counter.graph.snapshot(), now: counter.now) { XCTFail($0) }
        for _ in 0..<500 where FileManager.default.fileExists(atPath: earlier) {
            recorder.append(batches: [counter.flush(20, step: 1_000_000)], now: counter.now) { counter.graph.snapshot() }
            recorder.waitUntilWritten()
            XCTAssertLessThanOrEqual(directoryBytes(), options.budget)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: earlier), "the earlier run's segment made room")
        recorder.close()
    }

    func testAnUnwritableDirectoryIsAClearFailure() {
        let options = FlightRecorder.Options(directory: "/proc/pipescope-flight-test")
        XCTAssertThrowsError(try FlightRecorder(options: options, welcome: welcome(), startNanos: 0,
                                                snapshot: GraphSnapshot(), now: 0) { _ in }) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("no flight recorder in /proc/pipescope-flight-test: "), text)
            XCTAssertTrue(text.contains("The program runs on without it"), text)
        }
        let file = makeTemporaryDirectory() + "/a-file"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        XCTAssertThrowsError(try FlightRecorder(options: .init(directory: file), welcome: welcome(), startNanos: 0,
                                                snapshot: GraphSnapshot(), now: 0) { _ in }) { error in
            XCTAssertTrue("\(error)".contains("not a directory"), "\(error)")
        }
    }

    func testADirectoryRemovedWhileRecordingStopsTheRecorderWithAMessage() throws {
        let options = FlightRecorder.Options(directory: directory, budget: 16 << 10, window: 3600)
        var counter = Counter(now: BatchBuilder.baseNanos)
        let said = LockedStrings()
        let recorder = try FlightRecorder(options: options, welcome: welcome(), startNanos: counter.now,
                                          snapshot: counter.graph.snapshot(), now: counter.now) { said.append($0) }
        recorder.waitUntilWritten()
        try FileManager.default.removeItem(atPath: directory)
        // The next segment cannot be opened: the recorder stops, and says so once.
        for _ in 0..<200 where !recorder.hasStopped {
            recorder.append(batches: [counter.flush(20, step: 1_000_000)], now: counter.now) { counter.graph.snapshot() }
            recorder.waitUntilWritten()
        }
        XCTAssertTrue(recorder.hasStopped)
        // Said on the writer's thread, as it stops.
        let deadline = Date().addingTimeInterval(10)
        while said.all.isEmpty, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(said.all.count, 1)
        XCTAssertTrue(said.all.first?.contains("the flight recorder in \(directory!) stopped") ?? false, said.all.description)
        recorder.append(batches: [counter.flush(20, step: 1_000_000)], now: counter.now) { counter.graph.snapshot() }
        recorder.close()
    }

    func testBadSettingsFallBackToDefaultsWithAMessage() {
        let (good, none) = FlightRecorder.Options.parse([
            "PIPESCOPE_FLIGHT": "/tmp/f", "PIPESCOPE_FLIGHT_BUDGET": "64KB", "PIPESCOPE_FLIGHT_WINDOW": "2s",
        ])
        XCTAssertEqual(good, .init(directory: "/tmp/f", budget: 64 << 10, window: 2))
        XCTAssertEqual(none, [])
        XCTAssertEqual(FlightRecorder.Options.size("64MB"), 64 << 20)
        XCTAssertEqual(FlightRecorder.Options.size("1.5 GiB"), 3 << 29)
        XCTAssertEqual(FlightRecorder.Options.size("4096"), 4096)
        XCTAssertEqual(FlightRecorder.Options.duration("10m"), 600)
        XCTAssertEqual(FlightRecorder.Options.duration("500ms"), 0.5)
        XCTAssertEqual(FlightRecorder.Options.duration("1h"), 3600)

        let (fallback, problems) = FlightRecorder.Options.parse([
            "PIPESCOPE_FLIGHT": "/tmp/f", "PIPESCOPE_FLIGHT_BUDGET": "lots", "PIPESCOPE_FLIGHT_WINDOW": "soon",
        ])
        XCTAssertEqual(fallback, .init(directory: "/tmp/f"))
        XCTAssertEqual(problems.count, 2)
        XCTAssertTrue(problems[0].hasPrefix("PIPESCOPE_FLIGHT_BUDGET=lots is not a size"), problems[0])
        XCTAssertTrue(problems[0].hasSuffix("using 64 MiB"), problems[0])
        XCTAssertTrue(problems[1].hasPrefix("PIPESCOPE_FLIGHT_WINDOW=soon is not a duration"), problems[1])
        let (_, zero) = FlightRecorder.Options.parse(["PIPESCOPE_FLIGHT": "/tmp/f", "PIPESCOPE_FLIGHT_WINDOW": "0s"])
        XCTAssertEqual(zero, ["a flight recorder window of 0.0 s is not a positive duration; using 10m"])

        let (tiny, said) = FlightRecorder.Options.parse(["PIPESCOPE_FLIGHT": "/tmp/f", "PIPESCOPE_FLIGHT_BUDGET": "100"])
        XCTAssertEqual(tiny?.budget, FlightRecorder.Options.minimumBudget)
        XCTAssertTrue(said.first?.contains("too small") ?? false, said.description)

        XCTAssertNil(FlightRecorder.Options.parse(["PIPESCOPE_FLIGHT": ""]).0)
        XCTAssertNil(FlightRecorder.Options.parse([:]).0)
    }
}

/// Lines said from any thread.
final class LockedStrings: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
