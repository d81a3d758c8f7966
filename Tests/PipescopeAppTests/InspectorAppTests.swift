import PipescopeApp
import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import TerminalKit
import XCTest

/// The whole inspector loop on a fake terminal: keys go through the keymap of the mode
/// on screen, effects reach the program only as the user meant them, and every key's
/// frame shows what happened.
final class InspectorAppTests: XCTestCase {
    /// A live Map → Sink (#2, #3) and a sink whose AnyCancellable nobody kept (#1), which
    /// the warnings list names.
    private func opening() -> [Message] {
        var b = BatchBuilder()
        b.subscribe(1, op: "Just", subscriber: "Sink")
        b.subscription(1)
        b.cancel(1, cause: .owner)
        b.subscribe(2, op: "Map", subscriber: "Sink")
        b.subscribe(3, parent: 2, op: "PassthroughSubject", subscriber: "Map")
        b.subscription(3)
        b.subscription(2, owner: 3)
        b.request(3, .unlimited)
        b.value(3, "1")
        b.value(2, "1")
        return [.attached(process: "app", pid: 42), .batch(b.build())]
    }

    private func run(_ keys: [Key], width: Int = 100, height: Int = 30,
                     quitStopsProgram: Bool = false) -> (FakeTerminal, [Effect], InspectorApp.Outcome) {
        var performed: [Effect] = []
        let terminal = FakeTerminal(width: width, height: height, keys: keys)
        var app = InspectorApp(targetName: "app", initial: opening(), perform: { performed.append($0) })
        app.clock = { BatchBuilder.baseNanos + 20_000_000 }
        app.quitStopsProgram = quitStopsProgram
        let outcome = app.run(on: terminal)
        return (terminal, performed, outcome)
    }

    func testWarningsThenCThenYSendsNoCancelAndTheScreenSaysWhy() {
        let (terminal, performed, outcome) = run([.character("w"), .character("c"), .character("y")])
        XCTAssertEqual(performed, [], "no cancel reached the program")
        XCTAssertEqual(outcome, .quit)
        let afterY = terminal.framesAfterKeys[2]
        XCTAssertTrue(afterY.contains { $0.contains("Warnings (") }, afterY.joined(separator: "\n"))
        XCTAssertTrue(afterY.contains { $0.contains("unretained-cancellable") }, "the list is what the user sees")
        XCTAssertFalse(afterY.contains { $0.contains("Cancel #") }, "no confirmation, drawn or hidden")
        XCTAssertEqual(afterY.last, " y does nothing while the warnings are open  w or Esc close  ? help  q quit")
    }

    /// At 80x24, the size a state starts with, the layout still reaches the reducer: End
    /// scrolls the help to its last line, which says what quitting does.
    func testAt80x24EndScrollsTheHelpToItsEnd() {
        for (stops, said) in [(false, "quit (the program keeps running)"),
                              (true, "quit, and stop the demo program that pipescope started")] {
            let (terminal, _, _) = run([.character("?"), .end], width: 80, height: 24, quitStopsProgram: stops)
            let afterEnd = terminal.framesAfterKeys[1]
            XCTAssertTrue(afterEnd.contains { $0.contains(said) }, afterEnd.joined(separator: "\n"))
            XCTAssertTrue(afterEnd.contains { $0.range(of: #"scroll [0-9]+-([0-9]+)/\1\b"#, options: .regularExpression) != nil },
                          "the footer says the last line is shown")
        }
    }

    func testHelpThenCThenYSendsNoCancelAndTheScreenSaysWhy() {
        let (terminal, performed, _) = run([.character("?"), .character("c"), .character("y")])
        XCTAssertEqual(performed, [])
        let afterC = terminal.framesAfterKeys[1]
        XCTAssertTrue(afterC.contains { $0.contains(" Keys ") }, afterC.joined(separator: "\n"))
        XCTAssertEqual(afterC.last, " c does nothing while the help is open  ? or Esc close  w warnings  q quit")
        XCTAssertTrue(terminal.framesAfterKeys[2].last?.hasPrefix(" y does nothing while the help is open") == true)
    }

    /// Closing the overlay first, the same keys cancel the stage the confirmation named.
    func testClosedOverlayThenCThenYCancelsTheNamedStage() {
        let (terminal, performed, _) = run([.character("w"), .escape, .down, .character("c"), .character("y")])
        let confirmation = terminal.framesAfterKeys[3]
        let named = confirmation.first { $0.contains("Cancel #") }
        XCTAssertNotNil(named, confirmation.joined(separator: "\n"))
        guard case .cancelNode(let id)? = performed.first else { return XCTFail("expected a cancel, got \(performed)") }
        XCTAssertTrue(named?.contains("Cancel #\(id) ") == true, "the stage cancelled is the one named: \(named ?? "")")
        XCTAssertEqual(performed.count, 1)
    }

    func testQuitEndsTheLoopWithoutAnEffect() {
        let (_, performed, outcome) = run([.character("q"), .character("c")])
        XCTAssertEqual(outcome, .quit)
        XCTAssertEqual(performed, [])
    }

    func testAResizeRedrawsAtTheNewSize() {
        var performed: [Effect] = []
        let terminal = FakeTerminal(width: 100, height: 30, keys: [])
        terminal.resize(width: 80, height: 24)
        _ = InspectorApp(targetName: "app", initial: opening(), perform: { performed.append($0) }).run(on: terminal)
        XCTAssertEqual(terminal.invalidations, 1)
        XCTAssertEqual(terminal.frames.first?.count, 30, "the first frame at the old size")
        XCTAssertEqual(terminal.screen.count, 24, "the next at the new one")
        XCTAssertEqual(terminal.screen.last, " ↑↓ move  Enter open  < > sort  i invert  t tree  ? help  q quit",
                       "the first screen is the pipelines table")
    }
}

/// Keys come first: a key read while a busy program's batches wait to be folded is
/// answered and drawn before them.
final class InspectorAppKeyOrderTests: XCTestCase {
    func testAKeyReadBetweenBatchesIsDrawnBeforeTheBatchesAfterIt() {
        var opening = BatchBuilder()
        opening.subscribe(2, op: "Map", subscriber: "Sink")
        opening.subscribe(3, parent: 2, op: "PassthroughSubject", subscriber: "Map")
        opening.subscription(3)
        opening.subscription(2, owner: 3)
        opening.request(3, .unlimited)
        opening.value(3, "1")
        opening.value(2, "1")
        // Three batches of 10 values each arrive together, during one frame.
        var arriving: [Message] = []
        var time = BatchBuilder.baseNanos + 10_000_000
        for _ in 0..<3 {
            var b = BatchBuilder(start: time)
            for v in 0..<10 {
                b.value(3, "\(v)")
                b.value(2, "\(v)")
            }
            time += 10_000_000
            arriving.append(.batch(b.build()))
        }
        var polls = 0
        let terminal = FakeTerminal(width: 100, height: 30, keys: [.character("i")])
        var app = InspectorApp(targetName: "app", initial: [.attached(process: "app", pid: 42), .batch(opening.build())],
                               poll: {
                                   polls += 1
                                   return polls == 1 ? arriving : []
                               })
        app.clock = { BatchBuilder.baseNanos + 50_000_000 }
        _ = app.run(on: terminal)
        let afterKey = terminal.framesAfterKeys[0]
        let row = { (frame: [String]) in frame.first { $0.contains("PassthroughSubject") } ?? frame.joined(separator: "\n") }
        XCTAssertTrue(row(afterKey).contains(" 11 "), "one batch folded when the key was read:\n" + afterKey.joined(separator: "\n"))
        XCTAssertTrue(row(terminal.screen).contains(" 31 "), "all three by the end:\n" + terminal.screen.joined(separator: "\n"))
    }
}
