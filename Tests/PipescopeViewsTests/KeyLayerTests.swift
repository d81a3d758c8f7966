import Foundation
import PipescopeGraph
import PipescopeModel
import PipescopeViews
import TerminalKit
import XCTest

/// No key reaches a layer the user cannot see: with the help or the warnings open, `c`
/// and `y` cancel nothing, and the screen says why; a confirmation is always on top and
/// names the stage.
final class KeyLayerTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    /// Presses keys the way the app loop does: through the keymap of the current layer.
    private func press(_ state: inout AppState, _ keys: Key...) -> [Effect] {
        keys.flatMap { key in KeyMap.action(for: key, in: state.layer).map { reduce(&state, .action($0)) } ?? [] }
    }

    private func screen(_ state: AppState, _ width: Int = 80, _ height: Int = 24) -> [String] {
        ViewFixtures.render(state, width: width, height: height, theme: .plainUnicode).lines()
    }

    /// Map (#2) is active, so `c` on it would open a confirmation when browsing.
    private func browsing() -> AppState { ViewFixtures.realistic(selection: 2) }

    func testWithTheWarningsOpenCAndYCancelNothingAndTheScreenSaysWhy() {
        var state = browsing()
        XCTAssertEqual(press(&state, .character("w")), [])
        XCTAssertTrue(state.layer.isWarnings)
        XCTAssertEqual(press(&state, .character("c")), [])
        XCTAssertTrue(state.layer.isWarnings, "the warnings keep the keyboard")
        var lines = screen(state)
        XCTAssertTrue(lines.contains { $0.contains("Warnings (") }, "the warnings are still on screen")
        XCTAssertFalse(lines.contains { $0.contains("Cancel #2") }, "no confirmation, drawn or hidden")
        XCTAssertEqual(lines[23], " c does nothing while the warnings are open  w or Esc close  ? help  q quit")
        XCTAssertEqual(press(&state, .character("y")), [], "no cancel is sent")
        lines = screen(state)
        XCTAssertEqual(lines[23], " y does nothing while the warnings are open  w or Esc close  ? help  q quit")
        XCTAssertEqual(state.session.notice, nil, "nothing was sent, so the program has nothing to answer")
    }

    func testWithTheHelpOpenCAndYCancelNothingAndTheScreenSaysWhy() {
        for (width, height) in [(80, 24), (120, 40)] {
            var state = browsing()
            XCTAssertEqual(press(&state, .character("?"), .character("c")), [])
            XCTAssertTrue(state.layer.isHelp)
            var lines = screen(state, width, height)
            XCTAssertTrue(lines.contains { $0.contains(" Keys ") }, "the help is still on screen")
            XCTAssertFalse(lines.contains { $0.contains("Cancel #2") })
            XCTAssertEqual(lines[height - 1], " c does nothing while the help is open  ? or Esc close  w warnings  q quit")
            XCTAssertEqual(press(&state, .character("y")), [], "no cancel is sent")
            lines = screen(state, width, height)
            XCTAssertTrue(lines[height - 1].hasPrefix(" y does nothing while the help is open"), lines[height - 1])
        }
    }

    /// Once the overlay is closed, `c` opens the confirmation on top, naming the stage
    /// and what it reaches, and only then does `y` send the cancel.
    func testAfterClosingTheConfirmationIsOnTopAndNamesTheStage() {
        var state = browsing()
        _ = press(&state, .character("w"), .character("c"), .escape)
        XCTAssertEqual(state.layer, .browsing)
        XCTAssertEqual(press(&state, .character("c")), [])
        let lines = screen(state)
        XCTAssertTrue(lines.contains { $0.contains("Cancel #2 Map?") }, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.contains("in pipeline #1 PassthroughSubject → Map → Filter → Sink") },
                      "the pipeline is named too:\n" + lines.joined(separator: "\n"))
        XCTAssertFalse(lines.contains { $0.contains("Warnings (") })
        XCTAssertEqual(lines[23], " y cancels it  q quits  any other key keeps it")
        XCTAssertEqual(press(&state, .character("y")), [.cancelNode(2)])
        XCTAssertEqual(state.layer, .browsing)
    }

    /// The help and the warnings switch to each other rather than stack: the layer with
    /// the keys is always the one drawn.
    func testHelpAndWarningsSwitchRatherThanStack() {
        var state = browsing()
        _ = press(&state, .character("w"), .character("?"))
        XCTAssertTrue(state.layer.isHelp)
        XCTAssertFalse(screen(state).contains { $0.contains("Warnings (") })
        _ = press(&state, .character("w"))
        XCTAssertTrue(state.layer.isWarnings)
        XCTAssertFalse(screen(state).contains { $0.contains(" Keys ") })
        _ = press(&state, .escape)
        XCTAssertEqual(state.layer, .browsing)
        XCTAssertTrue(screen(state)[23].hasPrefix(" ↑↓ move"), "back to the browsing keys")
    }

    /// Every key of the keymap, pressed with the help or the warnings open, does
    /// nothing behind them: no effect but quitting, and nothing under the overlay moves.
    func testNoKeyActsBehindTheHelpOrTheWarnings() {
        let keys = KeyMap.bindings.flatMap(\.keys) + (0...9).map { Key.character(Character(String($0))) }
        for overlay: Key in [.character("?"), .character("w")] {
            for key in keys {
                var state = browsing()
                _ = press(&state, overlay)
                let before = (state.tree.selection, state.tree.collapsed, state.tree.filter, state.tree.hideEnded,
                              state.cursor.position, state.focus, state.session.countPrefix, state.timeline.scale)
                let effects = press(&state, key)
                let action = KeyMap.action(for: key)
                XCTAssertEqual(effects, action == .quit ? [.quit] : [], "\(key) in \(overlay)")
                XCTAssertTrue(state.layer.isHelp || state.layer.isWarnings || state.layer == .browsing, "\(key) in \(overlay): \(state.layer)")
                XCTAssertEqual(state.tree.selection, before.0, "\(key) in \(overlay)")
                XCTAssertEqual(state.tree.collapsed, before.1, "\(key) in \(overlay)")
                XCTAssertEqual(state.tree.filter, before.2, "\(key) in \(overlay)")
                XCTAssertEqual(state.tree.hideEnded, before.3, "\(key) in \(overlay)")
                XCTAssertEqual(state.cursor.position, before.4, "\(key) in \(overlay)")
                XCTAssertEqual(state.focus, before.5, "\(key) in \(overlay)")
                XCTAssertEqual(state.session.countPrefix, before.6, "\(key) in \(overlay)")
                XCTAssertEqual(state.timeline.scale, before.7, "\(key) in \(overlay)")
            }
        }
    }

    /// Stepping is read on the bottom line: what waits next stays there beside the
    /// program's answer to the last step, since the waiting stage's row may be off screen.
    func testWhilePausedTheBottomLineNamesWhatWaitsNextBesideTheAnswer() {
        var state = browsing()
        var batch = EventBatch()
        batch.trailer.gate = GateState(paused: true, pending: [
            PendingEvent(ticket: 7, node: 3, kind: .value, thread: "main", sinceNanos: 0),
            PendingEvent(ticket: 9, node: 2, kind: .finished, thread: "worker", sinceNanos: 0),
        ])
        _ = reduce(&state, .batch(batch))
        XCTAssertEqual(screen(state, 120, 40)[39].trimmingCharacters(in: .whitespaces),
                       "paused · next [1/2]: #3 PassthroughSubject value on main  o choose  n step  space resume")
        _ = reduce(&state, .acknowledged(command: 1, ok: true, text: "released 1 of 3 waiting events"))
        XCTAssertEqual(screen(state, 120, 40)[39].trimmingCharacters(in: .whitespaces),
                       "next [1/2]: #3 PassthroughSubject value on main · released 1 of 3 waiting events"
                       + String(repeating: " ", count: 32) + "? help")
        // The program's answer to a pause, after what waits, and `? help` keep their places.
        _ = reduce(&state, .acknowledged(command: 2, ok: true, text: "paused: n steps, space resumes (by itself after "
                                            + "60 s idle, or when you leave)"))
        XCTAssertEqual(screen(state, 80, 24)[23],
                       " next [1/2]: #3 PassthroughSubject value on main · paused: n steps, spa… ? help")
        XCTAssertEqual(screen(state, 160, 48)[47].trimmingCharacters(in: .whitespaces),
                       "next [1/2]: #3 PassthroughSubject value on main · paused: n steps, space resumes (by itself after "
                       + "60 s idle, or when you leave)" + String(repeating: " ", count: 25) + "? help")
        batch.trailer.gate = GateState(paused: false)
        _ = reduce(&state, .batch(batch))
        XCTAssertEqual(screen(state, 120, 40)[39].trimmingCharacters(in: .whitespaces),
                       "paused: n steps, space resumes (by itself after 60 s idle, or when you leave)"
                       + String(repeating: " ", count: 35) + "? help",
                       "resumed: nothing waits, and the notice is whole again")
    }
}
