import Foundation
@preconcurrency import OpenCombine
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeGraph
@testable import PipescopeModel
import PipescopeViews
import TerminalKit
import XCTest

// MARK: - The program's own publishers and subscribers, on known lines of this file

/// A publisher that never sends: it hands its subscriber a subscription that ignores
/// every request (a source someone forgot to wire up).
struct SilentTicker: Publisher {
    typealias Output = Int
    typealias Failure = Never

    static let receiveLine = #line + 1
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: IgnoringSubscription())
    }
}

/// `Once.receive(subscriber:)`'s line (a generic type has no stored statics).
let onceReceiveLine = #line + 6

/// A generic publisher of the program's: one value, then finished.
struct Once<Output>: Publisher {
    typealias Failure = Never
    let value: Output
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(subscription: IgnoringSubscription())
        _ = subscriber.receive(value)
        subscriber.receive(completion: .finished)
    }
}

/// A publisher of the program's that keeps a closure: its method is its code, not the
/// closure it calls.
struct Generated: Publisher {
    typealias Output = Int
    typealias Failure = Never
    let make: () -> Int

    static let receiveLine = #line + 1
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: IgnoringSubscription())
        _ = subscriber.receive(make())
    }
}

/// An enum publisher of the program's: each case a canned answer.
enum Canned: Publisher {
    typealias Output = Int
    typealias Failure = Never
    case one

    static let receiveLine = #line + 1
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: IgnoringSubscription())
        _ = subscriber.receive(1)
    }
}

final class IgnoringSubscription: Subscription {
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
}

/// A subscriber of the program's that keeps what it receives.
final class Collector: Subscriber {
    typealias Input = Int
    typealias Failure = Never
    private(set) var values: [Int] = []

    func receive(subscription: Subscription) { subscription.request(.unlimited) }
    static let receiveLine = #line + 1
    func receive(_ input: Int) -> Subscribers.Demand {
        values.append(input)
        return .none
    }
    func receive(completion: Subscribers.Completion<Never>) {}
}

/// A generic subscriber class of the program's, nested in a namespace.
enum Keeping {
    /// `Keeper.receive(_:)`'s line.
    static let receiveLine = #line + 6
    final class Keeper<Value>: Subscriber {
        typealias Input = Value
        typealias Failure = Never
        private(set) var last: Value?
        func receive(subscription: Subscription) { subscription.request(.unlimited) }
        func receive(_ input: Value) -> Subscribers.Demand {
            last = input
            return .none
        }
        func receive(completion: Subscribers.Completion<Never>) {}
    }
}

/// "Code at" a custom publisher's or subscriber's type: the method its stage runs, found
/// from the type (never a value of it) through the real tap and the real symbolizer (this
/// test binary is a debug build, with symbols and line tables).
final class TypeCodeLocationTests: LocatedProbeTestCase {
    private let file = #filePath

    func testACustomPublisherThatNeverSendsIsItsReceiveSubscriber() {
        let c = SilentTicker().map { $0 + 1 }.sink { _ in }
        let graph = self.graph
        assertCode(stage(graph, "SilentTicker").code, line: SilentTicker.receiveLine,
                   function: "SilentTicker.receive<A>(subscriber:)")
        // The map's stage is still its closure's.
        XCTAssertEqual(stage(graph, "Map").code?.function,
                       "closure #1 in TypeCodeLocationTests.testACustomPublisherThatNeverSendsIsItsReceiveSubscriber()")
        c.cancel()
    }

    func testAStalledCustomPublisherPointsAtItsReceiveSubscriber() throws {
        let c = SilentTicker().sink { _ in }
        let graph = self.graph
        let ticker = stage(graph, "SilentTicker")
        let now = Int64(Date().timeIntervalSince1970 * 1e9) + 60_000_000_000
        let lints = Linter(allowed: [.neverCompletes]).lints(graph, now: now)
        XCTAssertEqual(lints.map(\.kind), [.stalled])
        XCTAssertEqual(lints.first?.node, ticker.id)
        let document = try JSONSerialization.jsonObject(with: Data(SnapshotJSON.render(graph, lints: lints).utf8))
        let at = ((document as? [String: Any])?["lints"] as? [[String: Any]])?.first?["at"] as? [String: Any]
        XCTAssertEqual(at?["file"] as? String, file)
        XCTAssertEqual(at?["line"] as? Int, SilentTicker.receiveLine)
        XCTAssertEqual(at?["function"] as? String, "SilentTicker.receive<A>(subscriber:)")
        let node = ((document as? [String: Any])?["nodes"] as? [[String: Any]])?.first { ($0["id"] as? Int) == Int(ticker.id) }
        XCTAssertEqual((node?["code"] as? [String: Any])?["line"] as? Int, SilentTicker.receiveLine)
        c.cancel()
    }

    func testTheDetailPaneSaysCodeAtTheCustomPublishersMethod() {
        let c = SilentTicker().sink { _ in }
        let graph = self.graph
        var state = AppState(targetName: "tests", pid: 1)
        _ = reduce(&state, .attached(process: "tests", pid: 1))
        _ = reduce(&state, .action(.toggleTable))
        _ = reduce(&state, .snapshot(graph.snapshot()))
        state.tree.selection = stage(graph, "SilentTicker").id
        var buffer = ScreenBuffer(width: 200, height: 50)
        ScreenView.render(state, theme: .plainUnicode, into: &buffer)
        let lines = buffer.lines()
        let text = "code at TypeCodeLocationTests.swift:\(SilentTicker.receiveLine)  in SilentTicker.receive<A>(subscriber:)"
        XCTAssertTrue(lines.contains { $0.contains(text) }, "no \"\(text)\" in\n" + lines.joined(separator: "\n"))
        c.cancel()
    }

    func testAGenericCustomPublisherIsItsReceiveSubscriber() {
        let c = Once(value: "a").sink { _ in }
        let graph = self.graph
        assertCode(stage(graph, "Once").code, line: onceReceiveLine, function: "Once.receive<A>(subscriber:)")
        c.cancel()
    }

    func testAnEnumCustomPublisherIsItsReceiveSubscriber() {
        let c = Canned.one.sink { _ in }
        let graph = self.graph
        assertCode(stage(graph, "Canned").code, line: Canned.receiveLine, function: "Canned.receive<A>(subscriber:)")
        c.cancel()
    }

    func testACustomPublishersMethodWinsOverTheClosureItKeeps() {
        let c = Generated(make: { 7 }).sink { _ in }
        let graph = self.graph
        assertCode(stage(graph, "Generated").code, line: Generated.receiveLine, function: "Generated.receive<A>(subscriber:)")
        c.cancel()
    }

    func testACustomSubscriberRootIsItsReceiveValue() {
        let subject = PassthroughSubject<Int, Never>()
        let collector = Collector()
        subject.subscribe(collector)
        subject.send(3)
        let graph = self.graph
        let root = graph[graph.roots[0]]!
        XCTAssertEqual(root.operatorName, "PassthroughSubject")
        assertCode(root.code, line: Collector.receiveLine, function: "Collector.receive(_:)")
        XCTAssertEqual(collector.values, [3])
    }

    func testAGenericNestedSubscriberClassIsItsReceiveValue() {
        let keeper = Keeping.Keeper<String>()
        Just("x").subscribe(keeper)
        let graph = self.graph
        assertCode(stage(graph, "Just").code, line: Keeping.receiveLine, function: "Keeping.Keeper.receive(_:)")
        XCTAssertEqual(keeper.last, "x")
    }

    func testAnOperatorsClosureStaysTheCodeOfARootWithACustomSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        let line = #line; subject.filter { $0 > 0 }.subscribe(Collector())
        let graph = self.graph
        assertCode(stage(graph, "Filter").code, line: line,
                   function: "closure #1 in TypeCodeLocationTests.testAnOperatorsClosureStaysTheCodeOfARootWithACustomSubscriber()")
        XCTAssertNil(stage(graph, "PassthroughSubject").code)
    }

    func testOpenCombinesOwnTypesGetNoTypePlace() {
        final class Box { var value = 0 }
        let box = Box()
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.assign(to: \.value, on: box)
        let d = Just(1).subscribe(on: ImmediateScheduler.shared).assign(to: \.value, on: box)
        let graph = self.graph
        XCTAssertEqual(graph.nodes.values.map(\.operatorName).sorted(), ["Just", "PassthroughSubject", "SubscribeOn"])
        XCTAssertEqual(graph.nodes.values.compactMap(\.code), [], "none is the program's code")
        XCTAssertEqual(ProgramType.descriptor(of: Just<Int>.self, qualifiedName: String(reflecting: Just<Int>.self)), 0)
        XCTAssertEqual(ProgramType.descriptor(of: Int.self, qualifiedName: String(reflecting: Int.self)), 0)
        XCTAssertNotEqual(ProgramType.descriptor(of: SilentTicker.self, qualifiedName: String(reflecting: SilentTicker.self)), 0)
        XCTAssertNotEqual(ProgramType.descriptor(of: Collector.self, qualifiedName: String(reflecting: Collector.self)), 0)
        c.cancel()
        d.cancel()
    }

    func testTheTapsMarkersAreTheLocatorsMarkers() {
        XCTAssertEqual(CodeFields.sinkMarker, CodeLocator.sinkMarker)
        XCTAssertEqual(CodeFields.publisherTypeMarker, CodeLocator.publisherTypeMarker)
        XCTAssertEqual(CodeFields.subscriberTypeMarker, CodeLocator.subscriberTypeMarker)
    }
}
