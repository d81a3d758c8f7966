import Foundation
import PipescopeTestSupport
import XCTest

/// #43's screen items in a real terminal, at 80x24 and 160x48, on the demo: the help
/// says what the focus mark is (item 1), the bottom line keeps `? help` and, with room,
/// says all of a pause's hint (item 2), the Stage pane takes the focus and scrolls (item
/// 3), a stage cancelled from the inspector is `⊗` in its STATUS as on its lane (item 4),
/// a pause is no stall (item 8), and `f` goes from every pipeline's events to the
/// selected one's (item 10). Items 5, 6, 7 and 9 are in ``ScreenDiagnosisTerminalTests``.
/// Every wait polls the screen with a deadline.
final class ScreenItemsTerminalTests: XCTestCase {
    private func startDemo(width: Int, height: Int) throws -> TerminalSession {
        try TerminalSession.demo(width: width, height: height)
    }

    private func quit(_ session: TerminalSession) { session.quit() }

    /// The Stage pane's title line (from "┌ Stage" to the end of its box's top border).
    private static func stageTitle(in screen: String) -> String? {
        screen.split(separator: "\n").first { $0.contains("┌ Stage") }.map(String.init)
    }

    func testTheHelpSaysWhatTheFocusMarkIs() throws {
        for (width, height) in [(80, 24), (160, 48)] {
            let session = try startDemo(width: width, height: height)
            defer { session.kill() }
            session.tmux.sendKeys("?")
            session.expect("next pane, marked * (the arrows act on it")
            session.tmux.sendKeys("Escape")
            quit(session)
        }
    }

    func testTheBottomLineWhilePausedKeepsItsHelpAndWithRoomAllOfIt() throws {
        for (width, height) in [(80, 24), (160, 48)] {
            let session = try startDemo(width: width, height: height)
            defer { session.kill() }
            session.tmux.sendKeys("Space")
            let paused = session.expect("the paused hint") { $0.split(separator: "\n").last?.contains("paused: n steps") == true }
            let bottom = String(paused.split(separator: "\n").last ?? "")
            XCTAssertTrue(bottom.hasSuffix("? help"), "\(width)x\(height): \(bottom)")
            if width >= 160 {
                XCTAssertTrue(bottom.contains("space resumes (by itself after 60 s idle, or when you leave)"), bottom)
            }
            session.tmux.sendKeys("Space")
            session.expect("LIVE")
            quit(session)
        }
    }

    /// The ticker's Map cancelled from the inspector: `⊗` in the tree's STATUS (the lane's
    /// and the legend's mark for a cancel by the inspector), not `⊘` (from downstream).
    func testAStageCancelledFromTheInspectorIsMarkedSo() throws {
        for (width, height) in [(80, 24), (160, 48)] {
            let session = try startDemo(width: width, height: height)
            defer { session.kill() }
            session.tmux.sendKeys("j")
            session.expect("#2 → Filter")
            session.tmux.sendKeys("c")
            session.expect("Cancel #2 Map?")
            session.tmux.sendKeys("y")
            let cancelled = session.expect("the Map's row cancelled") { screen in
                screen.split(separator: "\n").contains { $0.contains("▾ Map") && $0.contains("cancelled") }
            }
            let row = cancelled.split(separator: "\n").first { $0.contains("▾ Map") && $0.contains("cancelled") } ?? ""
            XCTAssertTrue(row.contains("⊗ cancelled"), "\(width)x\(height), by the inspector: \(row)")
            quit(session)
        }
    }

    func testTheStagePaneTakesTheFocusAndScrollsAt80x24() throws {
        let session = try startDemo(width: 80, height: 24)
        defer { session.kill() }
        let before = session.expect("a Stage pane whose text is cut") { $0.contains("lines, Tab scrolls") }
        XCTAssertTrue(before.contains("stages) *"), "the tree has the focus:\n\(before)")
        session.tmux.sendKeys("Tab")
        let focused = session.expect("the Stage pane focused") {
            Self.stageTitle(in: $0)?.contains("Stage: lines 1-11 of") == true && $0.contains("↑↓ *")
        }
        XCTAssertFalse(focused.contains("stages) *"), "the tree no longer has it:\n\(focused)")
        session.tmux.sendKeys("Down")
        session.expect("the text one line down") { Self.stageTitle(in: $0)?.contains("Stage: lines 2-12 of") == true }
        session.tmux.sendKeys("End")
        session.expect("the text's last line") { screen in
            guard let title = Self.stageTitle(in: screen),
                  let match = title.firstMatch(of: #/lines ([0-9]+)-([0-9]+) of ([0-9]+)/#) else { return false }
            return match.2 == match.3 && match.1 != "1"
        }
        session.tmux.sendKeys("Tab")
        session.expect("the tree focused again") { $0.contains("stages) *") && $0.contains("lines, Tab scrolls") }
        quit(session)
    }

    func testTheStagePaneTakesTheFocusAt160x48() throws {
        let session = try startDemo(width: 160, height: 48)
        defer { session.kill() }
        session.tmux.sendKeys("Tab", "Tab")
        session.expect("the Stage pane focused") { Self.stageTitle(in: $0)?.contains(" *") == true }
        quit(session)
    }

    /// A pause longer than the stall threshold (2 s): the ticker's stages are not marked
    /// waiting (`‖`), while paused or after, and the status line says how long it held.
    func testAPauseIsNoStall() throws {
        for (width, height) in [(80, 24), (160, 48)] {
            let session = try startDemo(width: width, height: height)
            defer { session.kill() }
            session.tmux.sendKeys("Space")
            let paused = session.expect("a pause of 3 s", timeout: 20) { $0.contains("PAUSED 3s ·") }
            let ticker = paused.split(separator: "\n").filter { $0.contains("DemoProgram.swift:52") }
            XCTAssertFalse(ticker.isEmpty, "the ticker's rows are on screen:\n\(paused)")
            XCTAssertFalse(ticker.contains { $0.contains("‖") }, "\(width)x\(height): paused is not waiting:\n\(paused)")
            session.tmux.sendKeys("Space")
            let live = session.expect("LIVE", "DemoProgram.swift:52")
            XCTAssertFalse(live.split(separator: "\n").contains { $0.contains("DemoProgram.swift:52") && $0.contains("‖") },
                           "\(width)x\(height): nor after it:\n\(live)")
            quit(session)
        }
    }

    /// Below 120x30 no log is on screen: the status line says what `f` chose and what the
    /// next gives, and the timeline screen (`T`) lists that scope's events.
    func testFSaysWhatTheEventLogListsAt80x24() throws {
        let session = try startDemo(width: 80, height: 24)
        defer { session.kill() }
        session.tmux.sendKeys("f")
        session.expect("event log: pipeline #1's events only (f: the selected stage's)")
        session.tmux.sendKeys("T")
        let scoped = session.expect("the timeline screen's log of #1") { $0.contains("pipeline #1 only") }
        let logRows = scoped.split(separator: "\n").filter { $0.contains(":") && $0.range(of: #"  #[0-9]+ "#, options: .regularExpression) != nil }
        XCTAssertFalse(logRows.isEmpty, "events are listed:\n\(scoped)")
        for row in logRows {
            XCTAssertNotNil(row.range(of: #"  #[1-4] "#, options: .regularExpression), "only #1's stages (#1-#4): \(row)")
        }
        session.tmux.sendKeys("T")
        session.tmux.sendKeys("f")
        session.expect("event log: #1's events only (f: every pipeline's)")
        session.tmux.sendKeys("f")
        session.expect("event log: every pipeline's events (f: the selected stage's pipeline's)")
        quit(session)
    }

    /// `f` on the tree of every pipeline: the log lists the selected pipeline's events,
    /// then the selected stage's, then all again; its first line says what the next `f` does.
    func testFNarrowsTheEventLogToTheSelectedPipelineAt160x48() throws {
        let session = try startDemo(width: 160, height: 48)
        defer { session.kill() }
        session.expect("all pipelines  (f: the selected one, #1)")
        session.tmux.sendKeys("f")
        session.expect("pipeline #1 only  (f: only #1)")
        session.tmux.sendKeys("f")
        session.expect("only #1  (f: all)")
        session.tmux.sendKeys("f")
        session.expect("all pipelines  (f: the selected one, #1)")
        quit(session)
    }
}
