import Foundation
import PipescopeClient
import PipescopeExport
import PipescopeGraph
import PipescopeRecording
import PipescopeTestSupport
import PipescopeWire

extension RecordingMessages: MessageSource {}

/// A recording of known pipelines, made the way a probe and `pipescope record` make one,
/// with every case the export draws: shared subscriptions cancelled by a sink, an owner's
/// cancel, an inspector's cancel travelling upstream, a cancel continued in the next
/// batch, a failing tryMap cancelling its upstream, a merge with two upstreams live at
/// once, type erasure, a demand violation, dropped events, and a stage live since
/// before the recording. Every event is 1 ms after the previous one.
enum KnownPipelines {
    static let process = "known-app"
    static let pid: Int32 = 4242

    /// The graph when the recording starts: stage 60, live since one second before,
    /// with 10 values.
    static func snapshot() -> GraphSnapshot {
        var b = BatchBuilder(start: BatchBuilder.baseNanos - 1_000_000_000)
        b.subscribe(60, op: "CurrentValueSubject", subscriber: "Sink")
        b.subscription(60)
        b.request(60, .unlimited)
        for i in 0..<10 { b.value(60, String(i)) }
        return Graph.folding(b.build()).snapshot()
    }

    static func batches() -> [EventBatch] {
        var b = BatchBuilder()
        // 1 Filter ← 2 Map ← 3 PassthroughSubject, sharing 3's subscription; the sink cancels.
        BatchFixtures.filterMapSubject(into: &b)
        b.cancel(3)
        // 10 Merge with 11 and 12 live at once: 12 goes on a branch track.
        b.subscribe(10, op: "Merge", subscriber: "Sink")
        b.subscribe(11, parent: 10, op: "PassthroughSubject", subscriber: "Merge")
        b.subscribe(12, parent: 10, op: "Just", subscriber: "Merge")
        b.subscription(11)
        b.subscription(12)
        b.subscription(10)
        b.request(10, .unlimited)
        b.request(11, .unlimited)
        b.request(12, .unlimited)
        b.value(11, "a")
        b.value(10, "a")
        b.value(12, "b")
        b.value(10, "b")
        b.finish(12)
        b.value(11, "c")
        b.value(10, "c")
        b.finish(11)
        b.finish(10)
        b.value(60, "10")
        let first = b.build()

        var c = BatchBuilder(start: b.now)
        // 20 ReceiveOn ← 21 Debounce ← 22 PassthroughSubject, each its own subscription: the
        // inspector cancels 21, which cancels 22; 20 is left orphaned and live.
        c.subscribe(20, op: "ReceiveOn", subscriber: "Sink")
        c.subscribe(21, parent: 20, op: "Debounce", subscriber: "ReceiveOn")
        c.subscribe(22, parent: 21, op: "PassthroughSubject", subscriber: "Debounce")
        for id: NodeID in [22, 21, 20] { c.subscription(id) }
        for id: NodeID in [20, 21, 22] { c.request(id, .unlimited) }
        c.value(22, "x")
        c.value(21, "x")
        c.value(20, "x")
        c.cancel(21, cause: .inspector)
        c.cancel(22)
        // 6 TryMap ← 7 Sequence: the tryMap fails and cancels its upstream.
        c.subscribe(6, op: "TryMap", subscriber: "Sink")
        c.subscribe(7, parent: 6, op: "Sequence", subscriber: "TryMap")
        c.subscription(7)
        c.subscription(6)
        c.request(6, .count(1))
        c.request(7, .unlimited)
        c.value(7, "\"x\"")
        c.fail(6, "ParseError.notANumber(\"x\")")
        c.cancel(7)
        // 40 AnyPublisher forwarding to 41 Just: 41's events are mirrored onto 40.
        c.subscribe(40, op: "AnyPublisher", subscriber: "Sink")
        c.subscribe(41, parent: 40, op: "Just", subscriber: "Sink")
        c.forward(40, to: 41)
        c.subscription(41)
        c.request(41, .unlimited)
        c.value(41, "7")
        c.finish(41)
        // 50 ignores its demand: three values for one requested.
        c.subscribe(50, op: "IgnoresDemand", subscriber: "Sink")
        c.subscription(50)
        c.request(50, .count(1))
        for v in ["1", "2", "3"] { c.value(50, v) }
        c.finish(50)
        // 4 Map ← 5 Timer sharing 5's subscription; the owner is released.
        c.subscribe(4, op: "Map", subscriber: "Sink")
        c.subscribe(5, parent: 4, op: "TimerPublisher", subscriber: "Map")
        c.subscription(5)
        c.subscription(4, owner: 5)
        c.request(5, .count(3))
        c.value(5, "tick")
        c.value(4, "tick")
        c.cancel(5, cause: .owner)
        // 30 Scan ← 31 PassthroughSubject, own subscriptions: the sink cancels 30 at the
        // end of this batch; the cancel reaches 31 in the next one.
        c.subscribe(30, op: "Scan", subscriber: "Sink")
        c.subscribe(31, parent: 30, op: "PassthroughSubject", subscriber: "Scan")
        c.subscription(31)
        c.subscription(30)
        c.request(30, .unlimited)
        c.request(31, .unlimited)
        c.value(31, "1")
        c.value(30, "1")
        c.cancel(30)
        let second = c.build(dropped: 5)

        var d = BatchBuilder(start: c.now)
        d.cancel(31)
        d.value(60, "11")
        let third = d.build(dropped: 5)
        return [first, second, third]
    }

    /// Arrows the export must draw: from the stage that cancelled to each stage reached.
    static let expectedArrows: Set<Arrow> = [
        Arrow(from: 1, to: 2), Arrow(from: 1, to: 3),      // the sink's cancel through the shared subscription
        Arrow(from: 21, to: 22),                            // the inspector's cancel, travelling upstream
        Arrow(from: 6, to: 7),                              // the failing tryMap cancels its upstream
        Arrow(from: 4, to: 5),                              // the owner's cancel
        Arrow(from: 30, to: 31),                            // continued in the next batch
    ]

    struct Arrow: Hashable, CustomStringConvertible {
        var from: NodeID
        var to: NodeID
        var description: String { "#\(from)→#\(to)" }
    }

    /// The graph the recording folds into: the reference the export is checked against.
    static func graph() -> Graph {
        var graph = Graph()
        graph.load(snapshot())
        for batch in batches() { graph.fold(batch) }
        return graph
    }

    /// Writes the recording to `path` as `pipescope record` does.
    static func write(to path: String, batches: [EventBatch] = batches()) throws {
        try writeRecording(to: path, process: process, snapshot: snapshot(), batches: batches)
    }

    /// Writes any recording: a Welcome, a snapshot, then the batches.
    static func writeRecording(to path: String, process: String = "app", snapshot: GraphSnapshot = GraphSnapshot(),
                               batches: [EventBatch]) throws {
        let writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.processName = process
        welcome.welcome.pid = pid
        welcome.welcome.protocolVersion = ProtocolVersion.current
        writer.append(welcome)
        writer.append(snapshot)
        for batch in batches { writer.append(batch) }
        writer.close()
    }
}
