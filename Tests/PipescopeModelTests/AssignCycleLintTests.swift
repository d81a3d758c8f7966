import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeLiveTestSupport
import PipescopeTestSupport
import XCTest

@testable import PipescopeModel

/// A screen that assigns to itself: `assign(to:on: self)` holds the screen strongly, and
/// the screen holds the subscription, so a screen the app lets go is never released.
final class SelfAssigningScreen {
    var title = ""
    var subscription: AnyCancellable?

    init(bus: PassthroughSubject<Int, Never>) {
        subscription = bus.map { "item \($0)" }.assign(to: \.title, on: self)
    }
}

/// `pile-up` names the retain cycle of `assign(to:on: self)` when that is why the
/// pipelines pile up: the subscriber is an `assign` on an object of the type whose code
/// made the pipeline. Any other pile keeps the usual advice.
final class AssignCycleLintTests: RecordedProbeTestCase {
    /// What OpenCombine's `assign(to:on:)` looks like to the tap, on a real pipeline: the
    /// subscriber `Assign SelfAssigningScreen.`, made in `SelfAssigningScreen.init(bus:)`,
    /// and still active after the app dropped the screen (the cycle keeps it).
    func testAScreenAssigningToItselfIsSeenAsTheCycle() throws {
        let bus = PassthroughSubject<Int, Never>()
        weak var dropped: SelfAssigningScreen?
        do {
            let screen = SelfAssigningScreen(bus: bus)
            dropped = screen
        }
        XCTAssertNotNil(dropped, "the cycle keeps the screen alive")
        let deadline = Date() + 30
        recorder.flush()
        while probe.graph.roots.contains(where: { probe.graph[$0]?.location == nil }), Date() < deadline {
            recorder.flush()
        }
        let root = try XCTUnwrap(probe.graph.roots.compactMap { probe.graph[$0] }.first)
        XCTAssertEqual(root.subscriber, "Assign SelfAssigningScreen.")
        XCTAssertEqual(root.status, .active)
        let place = try XCTUnwrap(root.location)
        XCTAssertEqual(place.function, "SelfAssigningScreen.init(bus:)")
        XCTAssertEqual(PileUpRule.assignCycle(root, made: place), "SelfAssigningScreen")
        dropped?.subscription?.cancel()
    }

    /// Twelve screens opened 10 s apart, each assigning to itself, judged 115 s after the
    /// first: one pile-up, whose advice is the cycle's. The same pile made by another
    /// type's code (a coordinator assigning to the screens it makes, even one whose name
    /// begins with the screen's) keeps the usual one.
    func testAPileOfSelfAssigningScreensIsNamedTheCycle() {
        for (function, cycle) in [("ProductScreen.init(bus:)", true), ("Coordinator.open(product:)", false),
                                  ("ProductScreenCoordinator.open(product:)", false)] {
            var b = BatchBuilder(step: 0)
            let place = BatchBuilder.at("Screens.swift", 20, function)
            for i in 0..<12 {
                b.now = BatchBuilder.baseNanos + Int64(i) * 10_000_000_000
                let root = NodeID(10 * i + 1)
                b.subscribe(root, op: "Map", subscriber: "Assign ProductScreen.", location: place)
                b.subscribe(root + 1, parent: root, op: "PassthroughSubject", subscriber: "Map")
            }
            var graph = Graph()
            graph.fold(b.build())
            let found = Linter().lints(graph, now: BatchBuilder.baseNanos + 115_000_000_000).filter { $0.kind == .pileUp }
            let advice = cycle ? PileUpRule.cycleAdvice("ProductScreen") : PileUpRule.advice
            XCTAssertEqual(found, [Lint(kind: .pileUp, node: 1, message:
                "12 live pipelines made at Screens.swift:20 in \(function), up 6 in the last minute and none of them "
                + "ended: " + advice)], function)
        }
        XCTAssertTrue(PileUpRule.cycleAdvice("ProductScreen").hasPrefix(
            "each is an assign(to:on:) on a ProductScreen, made by ProductScreen's own code: assign(to:on:) holds its "
            + "object strongly"))
    }
}
