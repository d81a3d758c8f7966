@preconcurrency import OpenCombine
import PipescopeMetrics
import PipescopeProbe
import Prometheus
import XCTest

/// `pipescope_events_dropped_total` is the probe's own count of events its full buffer
/// dropped, summed from each batch's trailer.
final class DroppedEventsMetricTests: XCTestCase {
    func testEventsTheProbesFullBufferDroppedAreCounted() {
        // 64 events between two flushes at most: 1,000 values overflow it.
        let probe = Probe(bufferCapacity: 64, maxBufferCapacity: 64)
        withMetrics(on: probe) { metrics, registry in
            let subject = PassthroughSubject<Int, Never>()
            let kept = subject.sink { _ in }
            for value in 0..<1_000 { subject.send(value) }
            probe.flush()
            for value in 0..<1_000 { subject.send(value) }
            probe.flush()
            let dropped = probe.graph.dropped
            XCTAssertGreaterThan(dropped, 1_000, "most of 2,000 values did not fit in 64 events")
            XCTAssertEqual(MetricsText(registry).samples(PipelineMetrics.droppedName), ["": "\(dropped)"])
            withExtendedLifetime(kept) {}
        }
    }
}
