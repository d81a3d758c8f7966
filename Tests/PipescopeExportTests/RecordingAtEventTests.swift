import Foundation
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import XCTest

/// `replay FILE --print|--json --at K`: the graph right after event K is the graph of the
/// recording cut right after K (its later events, even those in the same batch, never
/// happened), and it is judged at K's time.
final class RecordingAtEventTests: XCTestCase {
    private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/demo-v3.pipescope").path

    /// The recording with every event after `id` left out, folded the ordinary way: the
    /// oracle.
    private static func cut(_ recording: Recording, after id: EventID) -> Graph {
        var graph = Graph()
        for message in recording.messages {
            switch message {
            case .snapshot(let s):
                graph.load(s)
            case .batch(var b):
                // Every batch, its later events left out: what it learnt of its stages
                // (their locations and code, often a batch or two after them) stays.
                b.events = b.events.filter { $0.id <= id }
                let made = Set(b.events.filter { $0.kind == .subscribe }.map(\.node))
                b.nodes = b.nodes.filter { made.contains($0.id) }
                graph.fold(b)
            default:
                break
            }
        }
        return graph
    }

    func testEveryEventsGraphIsTheRecordingCutRightAfterIt() throws {
        let recording = try Recording.read(path: Self.fixture)
        let range = try XCTUnwrap(recording.eventRange)
        XCTAssertEqual(range, 384...499)
        for id in range {
            let (graph, event) = try XCTUnwrap(recording.graph(upTo: id), "event \(id)")
            XCTAssertEqual(event.id, id)
            let cut = Self.cut(recording, after: id)
            XCTAssertEqual(graph.nodes.keys.sorted(), cut.nodes.keys.sorted(), "event \(id): the stages then")
            for (stage, node) in graph.nodes where cut.nodes[stage] != node {
                XCTFail("event \(id): #\(stage) is not as it was then")
            }
            XCTAssertEqual(graph.roots, cut.roots, "event \(id)")
        }
        XCTAssertEqual(recording.graph(upTo: 499)?.graph.nodes, recording.finalGraph.nodes, "the last event is the end")
        XCTAssertNil(recording.graph(upTo: 383), "before the recording's first event")
        XCTAssertNil(recording.graph(upTo: 500), "after its last")
    }

    func testAnEarlierMomentHasFewerValuesThanTheEnd() throws {
        let recording = try Recording.read(path: Self.fixture)
        let final = recording.finalGraph
        let (early, _) = try XCTUnwrap(recording.graph(upTo: 384))
        let values = { (g: Graph) in g.nodes.values.reduce(0) { $0 + $1.values } }
        XCTAssertLessThan(values(early), values(final))
        // Every value event after 384 is missing from it, one each.
        var later = 0
        for case .batch(let b) in recording.messages {
            later += b.events.filter { $0.id > 384 && $0.kind == .value }.count
        }
        XCTAssertEqual(values(final) - values(early), later)
    }

    /// `--print`/`--json` (with or without `--at`) fold the file as they read it, keeping
    /// no message: the same graphs as the recording read whole, the same counts and end.
    func testTheFileFoldedAsItIsReadGivesTheSameGraphs() throws {
        let recording = try Recording.read(path: Self.fixture)
        for id: EventID in [384, 385, 420, 457, 498, 499] {
            let fold = try RecordingFold.read(path: Self.fixture, upTo: id)
            let (graph, event) = try XCTUnwrap(recording.graph(upTo: id))
            XCTAssertEqual(fold.event, event, "event \(id)")
            XCTAssertEqual(fold.graph, graph, "event \(id)")
        }
        let whole = try RecordingFold.read(path: Self.fixture)
        XCTAssertEqual(whole.graph, recording.finalGraph)
        XCTAssertNil(whole.event)
        XCTAssertEqual(whole.eventRange, 384...499)
        XCTAssertEqual(whole.recording.eventsRead, recording.eventsRead)
        XCTAssertEqual(whole.recording.title, recording.title)
        XCTAssertEqual(whole.recording.end, recording.end)
        XCTAssertTrue(whole.recording.messages.isEmpty, "no message kept")
        let missing = try RecordingFold.read(path: Self.fixture, upTo: 500)
        XCTAssertNil(missing.event, "after its last")
        XCTAssertEqual(missing.eventRange, 384...499)
    }
}
