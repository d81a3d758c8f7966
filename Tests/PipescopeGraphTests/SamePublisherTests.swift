import PipescopeGraph
import XCTest

/// Which stages come from one publisher (``Graph/samePublisher(as:)``): the publisher's
/// number is its address, free for a new publisher once every stage of the old one ended.
final class SamePublisherTests: XCTestCase {
    private func future(_ id: NodeID, at time: Int64) -> NodeInfo {
        NodeInfo(id: id, operatorName: "Future", publisherType: "Future<Int, Never>", subscriber: "Sink",
                 thread: "main", createdNanos: time, publisher: 0xA0)
    }

    func testStagesThatRanAtOnceShareAPublisherAndALaterOneAtItsAddressDoesNot() {
        var graph = Graph()
        graph.insert(future(1, at: 1_000))
        graph.insert(future(2, at: 1_010))
        XCTAssertEqual(graph.samePublisher(as: 1), [2])
        XCTAssertEqual(graph.samePublisher(as: 2), [1])
        graph.apply(StageEvent(.finished, node: 1, time: 1_020))
        graph.apply(StageEvent(.finished, node: 2, time: 1_020))
        XCTAssertEqual(graph.samePublisher(as: 1), [2], "they ran at once, and still did once both ended")

        // The address is reused by a new publisher after both ended.
        graph.insert(future(3, at: 1_030))
        XCTAssertEqual(graph.samePublisher(as: 3), [])
        XCTAssertEqual(graph.samePublisher(as: 1), [], "#3 came after #1 ended: another publisher")
    }
}
