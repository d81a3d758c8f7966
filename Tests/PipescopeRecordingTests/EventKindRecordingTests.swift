import Foundation
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Every event kind (``EventKind/payload``) survives a recording written and read back.
final class EventKindRecordingTests: XCTestCase {
    func testEveryKindSurvivesARecording() throws {
        let path = NSTemporaryDirectory() + "/pipescope-kinds-\(UUID().uuidString).pipescope"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let batch = KindSamples.batch(KindSamples.kinds)
        let writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.processName = "kinds"
        writer.append(welcome)
        writer.append(GraphSnapshot())
        writer.append(batch)
        writer.close()

        var recording = try RecordingReader(path: path)
        var stream = WireStreamReader()
        var batches: [EventBatch] = []
        while let message = try recording.next() {
            if case .packed(let packed)? = message.body { batches.append(try stream.batch(packed)) }
        }
        XCTAssertEqual(batches.map(\.events), [batch.events])
        XCTAssertEqual(recording.truncatedBytes, 0)
    }
}
