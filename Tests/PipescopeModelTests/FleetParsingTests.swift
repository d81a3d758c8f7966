import Foundation
import PipescopeModel
import XCTest

/// Prometheus' query answers as `pipescope top --prometheus` reads them: canned bodies
/// as Prometheus 2.42 writes them, its error answers, and its NaN and infinities.
final class FleetParsingTests: XCTestCase {
    func testAVectorReadsAsSamplesWithTheirLabels() throws {
        let body = #"""
            {"status":"success","data":{"resultType":"vector","result":[
              {"metric":{"instance":"127.0.0.1:9464","job":"shop"},"value":[1764400000.123,"3"]},
              {"metric":{"instance":"10.0.0.7:9464"},"value":[1764400000.123,"0.5"]}]}}
            """#
        let vector = try PrometheusVector.parse(Data(body.utf8))
        XCTAssertEqual(vector.samples, [
            .init(labels: ["instance": "127.0.0.1:9464", "job": "shop"], value: 3),
            .init(labels: ["instance": "10.0.0.7:9464"], value: 0.5),
        ])
    }

    func testNaNAndInfinitiesAreNumbers() throws {
        let body = #"""
            {"status":"success","data":{"resultType":"vector","result":[
              {"metric":{"instance":"a:1"},"value":[1,"NaN"]},
              {"metric":{"instance":"b:1"},"value":[1,"+Inf"]},
              {"metric":{"instance":"c:1"},"value":[1,"-Inf"]}]}}
            """#
        let values = try PrometheusVector.parse(Data(body.utf8)).samples.map(\.value)
        XCTAssertTrue(values[0].isNaN)
        XCTAssertEqual(values[1], .infinity)
        XCTAssertEqual(values[2], -.infinity)
    }

    func testAnEmptyVectorHasNoSamples() throws {
        let body = #"{"status":"success","data":{"resultType":"vector","result":[]}}"#
        XCTAssertEqual(try PrometheusVector.parse(Data(body.utf8)).samples, [])
    }

    func testPrometheusErrorSaysItsTypeAndReason() {
        let body = #"{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error: unexpected <by>"}"#
        XCTAssertThrowsError(try PrometheusVector.parse(Data(body.utf8))) { error in
            XCTAssertEqual(error as? PrometheusVector.Problem,
                           .prometheusError(type: "bad_data", message: "invalid parameter \"query\": 1:5: parse error: unexpected <by>"))
            XCTAssertEqual("\(error)", "Prometheus refused the query (bad_data): invalid parameter \"query\": 1:5: parse error: unexpected <by>")
        }
    }

    func testAPageThatIsNotPrometheusSaysWhatItStartsWith() {
        XCTAssertThrowsError(try PrometheusVector.parse(Data("<html><body>Grafana</body></html>".utf8))) { error in
            XCTAssertEqual(error as? PrometheusVector.Problem, .notPrometheus("<html><body>Grafana</body></html>"))
            XCTAssertEqual("\(error)", "the answer is not Prometheus' API JSON (it starts \"<html><body>Grafana</body></html>\"); "
                + "is the URL Prometheus' own, as http://HOST:9090?")
        }
    }

    func testAScalarIsNotAVector() {
        let body = #"{"status":"success","data":{"resultType":"scalar","result":[1764400000,"1"]}}"#
        XCTAssertThrowsError(try PrometheusVector.parse(Data(body.utf8))) { error in
            XCTAssertEqual(error as? PrometheusVector.Problem, .notAVector("scalar"))
        }
    }

    // MARK: - Answers into rows

    func testRowsJoinTheColumnsByInstanceWithTheProbeLabel() {
        let answers: [FleetQueries.Query: PrometheusVector] = [
            .programs: .init(samples: [
                .init(labels: ["instance": "a:9464", "job": "shop", "pipescope_probe": "tcp://a:9465"], value: 9),
                .init(labels: ["instance": "b:9464", "job": "feed"], value: 4),
            ]),
            .pipelines: .init(samples: [.init(labels: ["instance": "a:9464"], value: 12), .init(labels: ["instance": "b:9464"], value: 2)]),
            .waiting: .init(samples: [.init(labels: ["instance": "b:9464"], value: 1)]),
            .dropped: .init(samples: [.init(labels: ["instance": "a:9464"], value: 0), .init(labels: ["instance": "b:9464"], value: 7)]),
        ]
        let rows = FleetQueries.rows(answers) { instance, probe in
            probe.map { .probe($0) } ?? .unreachable("no label on \(instance)")
        }.sorted { $0.instance < $1.instance }
        XCTAssertEqual(rows, [
            FleetRow(instance: "a:9464", job: "shop", pipelines: 12, waiting: nil, lints: nil, dropped: 0, reach: .probe("tcp://a:9465")),
            FleetRow(instance: "b:9464", job: "feed", pipelines: 2, waiting: 1, lints: nil, dropped: 7,
                     reach: .unreachable("no label on b:9464")),
        ])
    }

    func testHostAndPortOfAnInstance() {
        XCTAssertEqual(FleetRow(instance: "127.0.0.1:9464").port, 9464)
        XCTAssertTrue(FleetRow(instance: "127.0.0.1:9464").isLoopback)
        XCTAssertEqual(FleetRow(instance: "[::1]:9464").host, "::1")
        XCTAssertTrue(FleetRow(instance: "localhost:1").isLoopback)
        XCTAssertFalse(FleetRow(instance: "shop-3:9464").isLoopback)
        XCTAssertNil(FleetRow(instance: "shop-3").port)
    }
}
