import Foundation
import PipescopeGraph
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// `pipescope explain`: every active pipeline's verdict, as lines and as JSON.
final class WaitReportTests: XCTestCase {
    let t0 = BatchBuilder.baseNanos
    let second: Int64 = 1_000_000_000

    func testExplainListsActivePipelinesTheLongestWaitFirst() throws {
        var b = BatchBuilder(start: t0)
        b.chain(from: 1, subscriber: "Sink", ops: ["Map", "Future"])      // waits from t0 + 3 ms
        b.now = t0 + 5 * second
        b.chain(from: 10, subscriber: "Sink", ops: ["PassthroughSubject"])  // waits from t0 + 5 s
        b.now = t0 + 20 * second
        b.chain(from: 20, subscriber: "Sink", ops: ["Timer"])               // flows: it just delivered
        b.value(20)
        b.chain(from: 30, subscriber: "Sink", ops: ["Just"])
        b.finish(30)
        let graph = Graph.folding(b.build())
        let w = Waits(graph, now: t0 + 21 * second, after: 2)
        let report = WaitReport(graph, waits: w)
        XCTAssertEqual(report.entries.map(\.root), [1, 10, 20], "ended pipelines are left out")
        XCTAssertEqual(report.text, """
            #1 Future → Map → Sink  waits ↑ #2 Future 20s
            #10 PassthroughSubject → Sink  waits ↑ #10 PassthroughSubject 15s
            #20 Timer → Sink  flowing
            """)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        let pipelines = try XCTUnwrap(json["pipelines"] as? [[String: Any]])
        XCTAssertEqual(pipelines.map { $0["root"] as? Int }, [1, 10, 20])
        XCTAssertEqual(pipelines[0]["name"] as? String, "Future → Map → Sink")
        let wait = try XCTUnwrap(pipelines[0]["wait"] as? [String: Any])
        XCTAssertEqual(Set(wait.keys), ["reason", "seconds", "at"])
        XCTAssertEqual(wait["reason"] as? String, "upstream")
        XCTAssertEqual(wait["seconds"] as? Double, 20.996, "since the Map asked, at t0 + 4 ms")
        XCTAssertEqual(wait["at"] as? Int, 2)
        XCTAssertTrue(pipelines[2]["wait"] is NSNull)
        XCTAssertEqual(WaitReport(Graph(), waits: Waits()).text, "no active pipelines")
    }

}
