@preconcurrency import OpenCombine
@testable import PipescopeProbe
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeModel
import XCTest

/// The cancel preview says everything a cancel reaches, on real OpenCombine pipelines:
/// a `flatMap`'s live inner publishers go with it (#43 item 5).
final class CancelPreviewFlatMapTests: RecordedProbeTestCase {
    func testCancellingAFlatMapReachesItsLiveInnerStage() throws {
        let outer = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<String, Never>()
        let c = outer.flatMap { _ in inner }.map { $0.count }.sink { _ in }
        outer.send(1)
        _ = recorder.flush()
        let graph = probe.graph
        let flatMap = try XCTUnwrap(graph.nodes.values.first { $0.operatorName == "FlatMap" }?.id)
        let innerStage = try XCTUnwrap(graph.nodes.values.first {
            $0.operatorName == "PassthroughSubject" && $0.publisherType.contains("String")
        }?.id)
        let outerStage = try XCTUnwrap(graph.nodes.values.first {
            $0.operatorName == "PassthroughSubject" && $0.publisherType.contains("Int")
        }?.id)
        let preview = try XCTUnwrap(CancelPreview(target: flatMap, in: graph))
        XCTAssertTrue(preview.upstream.contains(innerStage), "the live inner publisher: \(preview)")
        XCTAssertTrue(preview.upstream.contains(outerStage), "\(preview)")
        c.cancel()
    }

    /// As in the demo: the flatMap is the root, its inner publisher a Future never fulfilled.
    func testCancellingARootFlatMapReachesItsPendingFuture() throws {
        let outer = PassthroughSubject<Int, Never>()
        let c = outer.flatMap { _ in Future<String, Never> { _ in } }.sink { _ in }
        outer.send(1)
        _ = recorder.flush()
        let graph = probe.graph
        let flatMap = try XCTUnwrap(graph.nodes.values.first { $0.operatorName == "FlatMap" }?.id)
        let future = try XCTUnwrap(graph.nodes.values.first { $0.operatorName == "Future" }?.id)
        let preview = try XCTUnwrap(CancelPreview(target: flatMap, in: graph))
        XCTAssertTrue(preview.upstream.contains(future), "the pending Future: \(preview)")
        c.cancel()
    }
}
