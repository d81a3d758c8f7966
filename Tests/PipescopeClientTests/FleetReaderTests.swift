import Foundation
import PipescopeClient
import PipescopeModel
import PipescopeTestSupport
import XCTest

/// `pipescope top --prometheus`' reading, against a fake Prometheus serving canned
/// answers over HTTP: the queries it asks, the rows they make, and what it says when
/// Prometheus is not there, is not Prometheus, or has no pipescope series.
final class FleetReaderTests: XCTestCase {
    /// Two programs: one with a probe label, one on a port nobody listens on.
    static func twoPrograms(port: Int) -> @Sendable (String) -> (status: Int, body: String) {
        { query in
            switch query {
            case FleetQueries.Query.programs.promQL:
                return (200, FakePrometheus.vector([
                    (["instance": "shop-1:9464", "job": "shop", "pipescope_probe": "tcp://shop-1:9465"], "9"),
                    (["instance": "127.0.0.1:\(port)", "job": "feed"], "4"),
                ]))
            case FleetQueries.Query.pipelines.promQL:
                return (200, FakePrometheus.vector([(["instance": "shop-1:9464"], "215"), (["instance": "127.0.0.1:\(port)"], "3")]))
            case FleetQueries.Query.waiting.promQL:
                return (200, FakePrometheus.vector([(["instance": "shop-1:9464"], "0"), (["instance": "127.0.0.1:\(port)"], "1")]))
            case FleetQueries.Query.lints.promQL:
                return (200, FakePrometheus.vector([(["instance": "shop-1:9464"], "+Inf")]))
            case FleetQueries.Query.dropped.promQL:
                return (200, FakePrometheus.vector([(["instance": "shop-1:9464"], "12"), (["instance": "127.0.0.1:\(port)"], "0")]))
            default:
                return (400, #"{"status":"error","errorType":"bad_data","error":"unexpected query"}"#)
            }
        }
    }

    func testAReadAsksEveryQueryAndMakesOneRowPerInstance() throws {
        let nobody = freeTCPPort()
        let server = try FakePrometheus(answer: Self.twoPrograms(port: nobody))
        defer { server.stop() }
        let client = try PrometheusClient(url: "http://127.0.0.1:\(server.port)")
        defer { client.shutdown() }
        guard case .rows(let rows) = FleetReader.read(client) else { return XCTFail("no rows") }
        XCTAssertEqual(server.asked, FleetQueries.Query.allCases.map(\.promQL))
        XCTAssertEqual(rows.sorted { $0.instance > $1.instance }, [
            FleetRow(instance: "shop-1:9464", job: "shop", pipelines: 215, waiting: 0, lints: .infinity, dropped: 12,
                     reach: .probe("tcp://shop-1:9465")),
            FleetRow(instance: "127.0.0.1:\(nobody)", job: "feed", pipelines: 3, waiting: 1, lints: nil, dropped: 0,
                     reach: .unreachable("no process of yours here listens on port \(nobody) now (ended? another "
                        + "user's?); add the scrape target label pipescope_probe=\"tcp://HOST:PORT\" (see Fleet in the docs)")),
        ])
    }

    func testTheReaderThreadHandsTheNewestRead() throws {
        let server = try FakePrometheus(answer: Self.twoPrograms(port: freeTCPPort()))
        defer { server.stop() }
        let client = try PrometheusClient(url: "127.0.0.1:\(server.port)")
        defer { client.shutdown() }
        let reader = FleetReader(client: client, interval: 60)
        reader.start()
        defer { reader.stop() }
        var state = FleetState(url: client.url)
        let deadline = Date(timeIntervalSinceNow: 20)
        while state.readAt == nil, Date() < deadline {
            if let read = reader.take() { state.apply(read, now: 1) }
            usleep(10_000)
        }
        // Sorted by WAITING, most first: the local program's 1 before the shop's 0.
        XCTAssertEqual(state.rows.map(\.instance).last, "shop-1:9464")
        XCTAssertEqual(state.rows.count, 2)
        XCTAssertNil(state.problem)
    }

    func testPrometheusNotThereSaysSo() throws {
        let port = freeTCPPort()
        let client = try PrometheusClient(url: "http://127.0.0.1:\(port)")
        defer { client.shutdown() }
        XCTAssertEqual(FleetReader.read(client), .failed(
            "cannot reach Prometheus at http://127.0.0.1:\(port): connection refused. Is it running, and is that its address? "
                + "(It listens on 9090 unless started with --web.listen-address.)"))
    }

    func testAnotherServerSaysItIsNotPrometheus() throws {
        let server = try FakePrometheus { _ in (404, "404 page not found") }
        defer { server.stop() }
        let client = try PrometheusClient(url: "http://127.0.0.1:\(server.port)/prom/")
        defer { client.shutdown() }
        XCTAssertEqual(FleetReader.read(client), .failed(
            "http://127.0.0.1:\(server.port)/prom/ answered HTTP 404 (404 page not found): is that Prometheus' own address, "
                + "with its path prefix if it has one?"))
    }

    func testNoSeriesYetIsNoRows() throws {
        let server = try FakePrometheus { _ in (200, FakePrometheus.vector([])) }
        defer { server.stop() }
        let client = try PrometheusClient(url: "http://127.0.0.1:\(server.port)")
        defer { client.shutdown() }
        XCTAssertEqual(FleetReader.read(client), .rows([]))
    }

    func testBadURLsSayWhatAURLLooksLike() {
        for (url, why) in [("https://p:9090", "https is not supported (put Prometheus' plain http address, or a local tunnel to it)"),
                           ("ftp://p", "the scheme is ftp, not http"),
                           ("http://p:9090/?query=up", "it has a query (?…); give the server's address only")] {
            XCTAssertThrowsError(try PrometheusClient(url: url)) { error in
                XCTAssertEqual("\(error)", "\(url) is not a Prometheus URL: \(why). Give its address as http://HOST:PORT "
                    + "(Prometheus listens on 9090 unless told otherwise).")
            }
        }
    }

    func testALoopbackInstanceIsFoundByItsListeningPort() throws {
        // This test process listens (the fake server): it has no Pipescope socket, and says so.
        let server = try FakePrometheus { _ in (200, "") }
        defer { server.stop() }
        XCTAssertEqual(LocalListener.pid(listeningOn: server.port), getpid())
        guard case .unreachable(let why) = FleetReader.reach(instance: "127.0.0.1:\(server.port)", probeLabel: nil) else {
            return XCTFail("reached a process with no probe")
        }
        XCTAssertEqual(why, "pid \(getpid()) listens on port \(server.port) but serves no Pipescope socket at its default path; "
            + "add the scrape target label pipescope_probe=\"tcp://HOST:PORT\" (see Fleet in the docs)")
        XCTAssertEqual(FleetReader.reach(instance: "shop-1:9464", probeLabel: "tcp://shop-1:9465"), .probe("tcp://shop-1:9465"))
    }
}
