import Foundation
import PipescopeGraph
import PipescopeWire

// `TapProfile wire [n=COUNT]`: the wire benchmark's loop (pack, frame, decode, unpack a
// batch of 10,000 `Int` value events over 100 stages, one stream) for `perf record` and
// `perf stat -e instructions:u`, whose counts compare two builds on a busy machine where
// timings cannot. The batch is the one `wire/encode+decode 10k events` measures.

/// The wire benchmark's batch (`WireBench.batch(events: 10_000, stages: 100)`).
func wireBatch() -> EventBatch {
    var batch = EventBatch()
    for id in 1...UInt64(100) {
        batch.append(NodeInfo(id: id, parent: id % 10 == 1 ? nil : id - 1, operatorName: "Map",
                              publisherType: "Map<PassthroughSubject<Int, Never>, Int>", subscriber: "Sink",
                              thread: "", createdNanos: 0))
    }
    for i in 0..<10_000 {
        batch.events.append(StageEvent(.value, node: UInt64(i % 100) + 1,
                                       time: 1_700_000_000_000_000_000 + Int64(i) * 1000, value: .int(Int64(i))))
    }
    batch.trailer.sequence = UInt64(batch.events.count)
    return batch
}

/// Runs `iterations` encode-and-decode rounds; prints ns per round and events a second.
func wireProfile(iterations: Int) {
    let batch = wireBatch()
    var writer = WireStreamWriter()
    var reader = WireStreamReader()
    var events = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<iterations {
        let frame = writer.message(batch).framed()
        guard let message = try? ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize)),
              let decoded = try? reader.batch(message.packed) else { fatalError("the wire benchmark's batch did not decode") }
        events += decoded.events.count
    }
    let ns = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
    print("wire: \(Int(ns)) ns a round of 10,000 events, "
        + String(format: "%.1f", 10_000 / ns * 1_000) + " M events/s, \(iterations) rounds (\(events) events)")
}
