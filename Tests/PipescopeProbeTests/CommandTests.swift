import Foundation
@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeClient
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire
import XCTest

/// Commands from an inspector over a real socket, and what they do to real pipelines.
final class CommandTests: XCTestCase {
    private var directory: String!
    private var probe: Probe!
    private var server: ProbeServer!

    override func setUpWithError() throws {
        directory = makeTemporaryDirectory()
        probe = Probe()
        server = try ProbeServer(probe: probe, path: directory + "/p.sock")
        probe.enable()
    }

    override func tearDown() {
        probe.disable()
        server.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func connect(readOnly: Bool = false) throws -> (ProbeConnection, Graph) {
        let connection = try ProbeConnection.connect(path: directory + "/p.sock", readOnly: readOnly)
        let (_, snapshot) = try connection.handshake()
        var graph = Graph()
        graph.load(snapshot)
        return (connection, graph)
    }

    /// Sends a command and folds what arrives until its ack; `batches` gets every batch
    /// folded on the way.
    private func command(_ connection: ProbeConnection, _ graph: inout Graph, batches: ((EventBatch) -> Void)? = nil,
                         _ edit: (inout WireCommand) -> Void) -> WireAck? {
        var command = WireCommand()
        edit(&command)
        let id = connection.send(command)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, let message = connection.next(timeout: deadline.timeIntervalSinceNow) {
            switch message {
            case .acknowledged(let command, let ok, let text) where command == id:
                return WireAck.with { $0.commandID = command; $0.ok = ok; $0.message = text }
            case .batch(let b):
                batches?(b)
                graph.fold(b)
            case .snapshot(let s): graph.load(s)
            default: continue
            }
        }
        return nil
    }

    /// Folds everything the program has done so far, however slow the machine: the probe
    /// answers a snapshot request after a flush, so by its ack every earlier event has
    /// arrived. Returns the batches folded on the way.
    @discardableResult
    private func catchUp(_ connection: ProbeConnection, _ graph: inout Graph) -> [EventBatch] {
        var seen: [EventBatch] = []
        let ack = command(connection, &graph, batches: { seen.append($0) }) { $0.kind = .commandSnapshot }
        XCTAssertEqual(ack?.ok, true, "the probe answers a snapshot request")
        return seen
    }

    private func id(of op: String, in graph: Graph) -> NodeID? {
        graph.nodes.values.first { $0.operatorName == op }?.id
    }

    func testCancellingAMidChainStageCancelsUpstreamAndOrphansDownstream() throws {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        var completed = false
        let c = subject.map { $0 * 10 }.receive(on: ImmediateScheduler.shared)
            .sink(receiveCompletion: { _ in completed = true }, receiveValue: { received.append($0) })
        subject.send(1)
        var (connection, graph) = try connect()
        defer { connection.close() }
        let map = try XCTUnwrap(id(of: "Map", in: graph))
        let ack = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandCancelNode; $0.node = map })
        XCTAssertTrue(ack.ok, ack.message)
        XCTAssertTrue(ack.message.contains("cancelled #\(map)"), ack.message)
        subject.send(2)
        subject.send(completion: .finished)
        catchUp(connection, &graph)
        XCTAssertEqual(GraphDump.lines(graph), [
            "ReceiveOn<-Sink active req=unlimited values=1",
            "  Map<-ReceiveOn cancelled(inspector) req=unlimited values=1",
            "    PassthroughSubject<-Map cancelled(inspector) req=unlimited values=1",
        ])
        XCTAssertEqual(graph[try XCTUnwrap(id(of: "ReceiveOn", in: graph))]?.orphaned, true)
        XCTAssertEqual(received, [10], "the sink gets no further values")
        XCTAssertFalse(completed, "and no completion")
        c.cancel()
    }

    func testCancellingAfterCompletionHasNoEffect() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        subject.send(completion: .finished)
        var (connection, graph) = try connect()
        defer { connection.close() }
        let stage = try XCTUnwrap(id(of: "PassthroughSubject", in: graph))
        let ack = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandCancelNode; $0.node = stage })
        XCTAssertFalse(ack.ok)
        XCTAssertTrue(ack.message.contains("already ended"), ack.message)
        let unknown = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandCancelNode; $0.node = 999 })
        XCTAssertFalse(unknown.ok)
        XCTAssertTrue(unknown.message.contains("no stage #999"), unknown.message)
        c.cancel()
    }

    func testAReadOnlyInspectorCannotCancelOrPause() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        var (connection, graph) = try connect(readOnly: true)
        defer { connection.close() }
        let stage = try XCTUnwrap(id(of: "PassthroughSubject", in: graph))
        for kind: Pipescope_V1_CommandKind in [.commandCancelNode, .commandPause] {
            let ack = try XCTUnwrap(command(connection, &graph) {
                $0.kind = kind
                $0.node = stage
            })
            XCTAssertFalse(ack.ok)
            XCTAssertTrue(ack.message.contains("--readonly"), ack.message)
        }
        // Watching describes every value on the program's thread: it changes what the program pays.
        let watch = try XCTUnwrap(command(connection, &graph) {
            $0.kind = .commandSetCapture
            $0.capture = .captureEveryValue
            $0.nodes = [stage]
        })
        XCTAssertFalse(watch.ok)
        XCTAssertTrue(watch.message.contains("--readonly"), watch.message)
        catchUp(connection, &graph)
        XCTAssertEqual(graph[stage]?.status, .active, "nothing was cancelled")
        c.cancel()
    }

    func testPauseStepResumeAreAcknowledged() throws {
        var (connection, graph) = try connect()
        defer { connection.close() }
        let notPaused = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandStep; $0.count = 1 })
        XCTAssertFalse(notPaused.ok)
        XCTAssertTrue(notPaused.message.contains("not paused"), notPaused.message)
        let pause = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandPause })
        XCTAssertTrue(pause.ok, pause.message)
        XCTAssertTrue(probe.gate.isPaused)
        let step = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandStep; $0.count = 2 })
        XCTAssertTrue(step.ok)
        XCTAssertTrue(step.message.contains("released the next 2 events"), step.message)
        let resume = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandResume })
        XCTAssertTrue(resume.ok)
        XCTAssertFalse(probe.gate.isPaused)
    }

    func testSnapshotOnRequest() throws {
        var (connection, graph) = try connect()
        defer { connection.close() }
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in }
        let ack = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandSnapshot })
        XCTAssertTrue(ack.ok)
        XCTAssertNotNil(id(of: "PassthroughSubject", in: graph), "the snapshot arrived before the ack")
        c.cancel()
    }

    func testCapturePolicies() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 + 1 }.sink { _ in }
        var (connection, graph) = try connect()
        defer { connection.close() }
        let map = try XCTUnwrap(id(of: "Map", in: graph))

        // Every value of the Map stage, as event text.
        var texts: [String] = []
        let every = try XCTUnwrap(command(connection, &graph) {
            $0.kind = .commandSetCapture; $0.capture = .captureEveryValue; $0.nodes = [map]
        })
        XCTAssertTrue(every.ok, every.message)
        for i in 1...3 { subject.send(i) }
        for b in catchUp(connection, &graph) {
            texts += b.events.filter { $0.kind == .value && $0.node == map }.map(\.text)
        }
        XCTAssertEqual(texts, ["2", "3", "4"])

        // No values at all.
        let none = try XCTUnwrap(command(connection, &graph) { $0.kind = .commandSetCapture; $0.capture = .captureNone })
        XCTAssertTrue(none.ok)
        subject.send(10)
        var valueTexts: [String] = []
        for b in catchUp(connection, &graph) {
            XCTAssertTrue(b.trailer.lastValues.isEmpty, "\(b.trailer.lastValues)")
            valueTexts += b.events.filter { $0.kind == .value }.map(\.text)
        }
        XCTAssertEqual(valueTexts, ["", ""], "the value went through both stages, without text")
        c.cancel()
    }

    func testWatchedStagesGoBackToSamplingWhenTheLastInspectorLeaves() throws {
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.map { $0 + 1 }.sink { _ in }
        var (connection, graph) = try connect()
        let map = try XCTUnwrap(id(of: "Map", in: graph))
        let watch = try XCTUnwrap(command(connection, &graph) {
            $0.kind = .commandSetCapture; $0.capture = .captureEveryValue; $0.nodes = [map]
        })
        XCTAssertTrue(watch.ok, watch.message)
        XCTAssertEqual(probe.registry.watchedStages, [map])
        connection.close()
        let deadline = Date().addingTimeInterval(30)
        while !probe.registry.watchedStages.isEmpty, Date() < deadline { usleep(2_000) }
        XCTAssertEqual(probe.registry.watchedStages, [], "nobody is left to read every value")
        c.cancel()
    }
}

/// Cancelling from the inspector, shape by shape, as Combine's own rules say.
final class CancelShapesTests: XCTestCase {
    private var probe: Probe!

    override func setUp() {
        probe = Probe()
        probe.enable()
    }

    override func tearDown() { probe.disable() }

    private func cancel(_ op: String, where predicate: (NodeSummary) -> Bool = { _ in true }) throws -> Graph {
        probe.flush()
        let node = try XCTUnwrap(probe.graph.nodes.values.filter { $0.operatorName == op && predicate($0) }.min { $0.id < $1.id })
        guard case .subscription(let subscription, _, _, let event) = probe.registry.cancelFromInspector(node: node.id) else {
            XCTFail("#\(node.id) \(op) could not be cancelled")
            return probe.graph
        }
        ThreadFrames.current.cancelling(as: event) { subscription.cancel() }
        probe.flush()
        return probe.graph
    }

    func testCancellingAFlatMapInnerPublisherLeavesThePipelineRunning() throws {
        let subject = PassthroughSubject<Int, Never>()
        var inners: [PassthroughSubject<Int, Never>] = []
        var received: [Int] = []
        let c = subject.flatMap { _ -> PassthroughSubject<Int, Never> in
            let inner = PassthroughSubject<Int, Never>()
            inners.append(inner)
            return inner
        }.sink { received.append($0) }
        subject.send(1)
        subject.send(2)
        // The FlatMap stage's children in creation order: its upstream subject, then the inners.
        probe.flush()
        let children = probe.graph[probe.graph.roots[0]]?.children.sorted() ?? []
        XCTAssertEqual(children.count, 3)
        let firstInner = children[1]
        let graph = try cancel("PassthroughSubject", where: { $0.id == firstInner })
        inners[0].send(10)   // the cancelled inner: nothing arrives
        inners[1].send(20)   // the other inner still flows
        XCTAssertEqual(received, [20])
        let statuses = graph.nodes.values.filter { $0.parent != nil }.sorted { $0.id < $1.id }.map { "\($0.status.rawValue)\($0.cause.map { "(\($0.rawValue))" } ?? "")" }
        XCTAssertEqual(statuses, ["active", "cancelled(inspector)", "active"], "upstream subject, cancelled inner, other inner")
        XCTAssertEqual(graph[graph.roots[0]]?.status, .active, "the FlatMap stage runs on")
        XCTAssertEqual(graph[graph.roots[0]]?.orphaned, false, "one inner ending orphans nothing")
        c.cancel()
    }

    func testCancellingASharedUpstreamOrphansEveryBranch() throws {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.map { $0 }.share()
        var first: [Int] = [], second: [Int] = []
        var completions = 0
        let c1 = shared.sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { first.append($0) })
        let c2 = shared.sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { second.append($0) })
        subject.send(1)
        let graph = try cancel("Map")
        subject.send(2)
        XCTAssertEqual(first, [1])
        XCTAssertEqual(second, [1], "neither branch gets more values")
        XCTAssertEqual(completions, 0, "nor a completion")
        let map = try XCTUnwrap(graph.nodes.values.first { $0.operatorName == "Map" })
        XCTAssertEqual(map.status, .cancelled)
        XCTAssertEqual(map.cause, .inspector)
        let branches = graph.roots.compactMap { graph[$0] }
        XCTAssertEqual(branches.count, 2)
        XCTAssertTrue(branches.allSatisfy { $0.status == .active }, "the branches were not cancelled")
        let shares = graph.nodes.values.filter { $0.operatorName == "Share" }
        XCTAssertFalse(shares.isEmpty, "the Share stage is in the graph: \(GraphDump.lines(graph))")
        XCTAssertTrue(shares.allSatisfy { $0.orphaned || $0.status == .active }, "\(GraphDump.lines(graph))")
        c1.cancel(); c2.cancel()
    }

    func testCancellingARootCancelsEverythingUpstream() throws {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let c = subject.map { $0 }.receive(on: ImmediateScheduler.shared).sink { received.append($0) }
        subject.send(1)
        let graph = try cancel("ReceiveOn")
        subject.send(2)
        XCTAssertEqual(received, [1])
        XCTAssertEqual(graph.nodes.count, 3, "subject, map and receive(on:): \(GraphDump.lines(graph))")
        XCTAssertTrue(graph.nodes.values.allSatisfy { $0.status == .cancelled }, GraphDump.lines(graph).joined(separator: "\n"))
        XCTAssertEqual(graph[graph.roots[0]]?.cause, .inspector)
        XCTAssertFalse(graph.nodes.values.contains { $0.orphaned }, "nothing is downstream of a root")
        c.cancel()
    }
}
