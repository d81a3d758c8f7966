import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeMetrics
import PipescopeModel
import PipescopeProbe
import Prometheus
import XCTest

/// #46's bound: a program making 100,000 pipelines at 10,000 places exports at most the
/// cap of series (``MetricsLimits``: 452 with the standard limits and 13 lints).
///
/// The pipelines are real (10,000 subjects, 10 sinks each, every one tapped and sent a
/// value); their places are not made by 10,000 call sites, which no source has, but
/// given as the symbol thread gives them, a batch of locations folded into the probe
/// (`Probe.fold`), with locations off so no other place competes: pipeline `i` is made
/// at `Screens.swift:(i / 10 + 1)`, 10,000 lines of one file.
final class CardinalityTests: XCTestCase {
    func testAHundredThousandPipelinesAtTenThousandPlacesStayUnderTheCap() throws {
        // Room for each phase's events (about 400,000 subscribing, 100,000 values) in one
        // flush: at 100,000 live pipelines each flush's lint judgement and each second's gauges
        // walk them all, which a debug build does slowly (81 s with a flush per 1,000 subjects).
        let probe = Probe(bufferCapacity: 1 << 20, locations: false)
        withMetrics(on: probe) { metrics, registry in

            let places = 10_000, perPlace = 10
            let subjects = (0..<places).map { _ in PassthroughSubject<Int, Never>() }
            var kept: [AnyCancellable] = []
            kept.reserveCapacity(places * perPlace)
            for subject in subjects {
                for _ in 0..<perPlace { kept.append(subject.sink { _ in }) }
            }
            probe.flush()
            let roots = probe.withGraph { $0.roots }
            XCTAssertEqual(roots.count, places * perPlace)
            // The roots in the order they were made: the sinks of subject 0, then 1, …
            var located = EventBatch()
            located.locations = roots.enumerated().map { i, root in
                LocatedStage(node: root, location: SourceLocation(file: "Screens.swift", line: i / perPlace + 1))
            }
            probe.fold(located)
            for (i, subject) in subjects.enumerated() {
                subject.send(i)
            }
            let sent = probe.flush()
            XCTAssertEqual(sent.trailer.dropped, 0, "every event kept")
            metrics.publishGauges()
            let text = MetricsText(registry)

            let limits = MetricsLimits.standard
            // The first 100 places keep their series, the other 9,900 share `other`; `unknown`
            // had them all while no place was known (locations off), and is 0 now.
            let pipelines = text.samples(PipelineMetrics.pipelinesName)
            XCTAssertEqual(pipelines.count, limits.locations + 2, "100 places, other and unknown, all active")
            XCTAssertEqual(pipelines["{location=\"unknown\",status=\"active\"}"], "0.0")
            XCTAssertEqual(pipelines["{location=\"Screens.swift:1\",status=\"active\"}"], "10.0")
            XCTAssertEqual(pipelines["{location=\"Screens.swift:100\",status=\"active\"}"], "10.0")
            XCTAssertEqual(pipelines["{location=\"other\",status=\"active\"}"], "99000.0")
            let values = text.samples(PipelineMetrics.valuesName)
            XCTAssertEqual(values.count, limits.locations + 1)
            XCTAssertEqual(values["{location=\"other\"}"], "99000")
            XCTAssertEqual(text.samples(PipelineMetrics.stageSecondsName + "_count").count, limits.locations + 1,
                           "the sinks' time: (Sink, place) for the 100 places kept, and (Sink, other)")

            // Series as the cap counts them: a histogram once, not per bucket.
            var series: Set<String> = []
            for line in text.text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " ") else { continue }
                var name = String(line[..<space])
                if let brace = name.firstIndex(of: "{") { name = String(name[..<brace]) + Self.withoutLe(name[brace...]) }
                for suffix in ["_bucket", "_sum", "_count"] where name.hasPrefix(PipelineMetrics.stageSecondsName + suffix) {
                    name = PipelineMetrics.stageSecondsName + name.dropFirst((PipelineMetrics.stageSecondsName + suffix).count)
                }
                series.insert(name)
            }
            let cap = (limits.locations + 2) * 2 + 3 + LintRules.all.count + (limits.locations + 2) + (limits.stages + 1) + 1
            XCTAssertEqual(cap, 439 + LintRules.all.count)
            // 102 pipelines + 3 waiting + a lint each + 101 values + 101 stage histograms + 1 dropped.
            XCTAssertEqual(series.count, 308 + LintRules.all.count, text.text.prefix(2_000) + "…")
            XCTAssertLessThanOrEqual(series.count, cap)
            print("cardinality: 100,000 pipelines at 10,000 places: \(series.count) series "
                + "(\(text.text.split(separator: "\n").count { !$0.hasPrefix("#") }) sample lines), cap \(cap)")
            withExtendedLifetime(kept) {}
        }
    }

    /// `{operator="Sink",location="other",le="0.001"}` → `{operator="Sink",location="other"}`.
    private static func withoutLe(_ labels: Substring) -> String {
        guard let le = labels.range(of: ",le=\"") ?? labels.range(of: "le=\"") else { return String(labels) }
        guard let end = labels[le.upperBound...].firstIndex(of: "\"") else { return String(labels) }
        var out = String(labels[..<le.lowerBound]) + String(labels[labels.index(after: end)...])
        out = out.replacingOccurrences(of: "{,", with: "{")
        return out
    }
}
