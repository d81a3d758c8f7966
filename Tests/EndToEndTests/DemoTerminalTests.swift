import Foundation
import PipescopeTestSupport
import XCTest

/// The real `pipescope` in a real terminal (tmux): the demo, keys, resizing, and every
/// way out leaving the shell as it was.
final class DemoTerminalTests: XCTestCase {
    private static let firstScreen: Double = 60
    /// The ticker's source row. At 120x40 the tree pane makes room for the LOCATION
    /// column and the deepest names are cut ("TimerPubli…", and "Tim… ▶ next" when its
    /// event waits at the gate), so rows are found by what every layout shows: its depth
    /// (the only stage three levels down) and its first letters.
    private static let tickerSource = "        Tim"

    private func startDemo(width: Int, height: Int) throws -> (TerminalSession, Int32) {
        let session = try TerminalSession(width: width, height: height)
        session.type(Programs.pipescope)
        session.showTree(timeout: Self.firstScreen)
        let screen = session.tmux.waitFor({ $0.contains("TimerPublisher") && $0.contains("LIVE") }, timeout: Self.firstScreen)
        let pid = try XCTUnwrap(screen.flatMap(TerminalSession.pid(in:)), "no demo on screen:\n\(session.tmux.lastScreen)")
        // Locations follow their stages (the demo's symbol thread looks them up) and
        // bring the LOCATION column, which narrows the others: wait for it, so the tests
        // compare rows of one layout.
        XCTAssertNotNil(session.tmux.waitFor({ $0.contains("Program.swift:") }, timeout: Self.firstScreen),
                        "no locations on screen:\n\(session.tmux.lastScreen)")
        return (session, pid)
    }

    private func checkDemo(width: Int, height: Int) throws {
        let (session, child) = try startDemo(width: width, height: height)
        defer { session.kill() }
        // The demo builds its pipelines one after another: wait until they are all there
        // (the first frame can come before the FlatMap's).
        let expected = ["Filter → Sink", "Map", "Autoconnect", "FlatMap → Sink", "Pipelines (", "Stage", "? help", "q quit"]
        let screen = session.tmux.waitFor({ screen in expected.allSatisfy { screen.contains($0) } }, timeout: 30)
            ?? session.tmux.lastScreen
        for text in expected {
            XCTAssertTrue(screen.contains(text), "\(text) missing at \(width)x\(height):\n\(screen)")
        }
        XCTAssertTrue(screen.split(separator: "\n").allSatisfy { $0.count <= width }, "nothing overflows the width")
        let before = try XCTUnwrap(TerminalSession.values(of: "Filter → Sink", in: screen), screen)
        XCTAssertNotNil(session.tmux.waitFor({ (TerminalSession.values(of: "Filter → Sink", in: $0) ?? 0) > before },
                                             timeout: 10), "the ticker's count grows live")

        session.tmux.sendKeys("?")
        session.expect("select the row below", "Keys")
        session.tmux.sendKeys("Escape")
        XCTAssertNotNil(session.tmux.waitFor({ !$0.contains("select the row below") }, timeout: 5), "Esc closes help")

        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        XCTAssertTrue(eventually(timeout: 20) { !processExists(child) }, "the demo child is stopped on quit")
        session.expectUsableShell()
    }

    func testDemoAt120x40() throws { try checkDemo(width: 120, height: 40) }

    /// The first screen is the pipelines table: `>` and `i` sort it, Enter opens one
    /// pipeline's tree and Esc comes back to the table as it was.
    func testTheTableSortsAndOpensOnePipeline() throws {
        let session = try TerminalSession(width: 120, height: 40)
        defer { session.kill() }
        session.type(Programs.pipescope)
        session.expect("sorted by RATE ▼", "LAST MINUTE", "Enter open", timeout: Self.firstScreen)
        session.tmux.sendKeys(">")
        session.expect("sorted by VALUES ▼")
        session.tmux.sendKeys("i")
        session.expect("sorted by VALUES ▲")
        session.tmux.sendKeys("Enter")
        let scoped = session.expect("only (Esc: back to the table)", "STAGE")
        // Its Events pane lists that pipeline's events only, and says so.
        let root = scoped.firstMatch(of: #/Pipeline #([0-9]+) only/#).map { String($0.1) } ?? "?"
        session.expect("Events of pipeline #\(root)", "pipeline #\(root) only  (f: only #")
        session.tmux.sendKeys("Escape")
        session.expect("sorted by VALUES ▲")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    func testDemoAt80x24() throws { try checkDemo(width: 80, height: 24) }

    /// At 80x24 the table keeps the function that built each pipeline (the ticker's,
    /// `DemoProgram.start → TimerPublisher → … → Sink`, is cut to it), and the help wraps its
    /// long lines, scrolls to its end, and says that quitting stops the demo.
    func testTheTableAndTheHelpAt80x24SayWhatIsTrue() throws {
        let session = try TerminalSession(width: 80, height: 24)
        defer { session.kill() }
        session.type(Programs.pipescope)
        session.expect("sorted by RATE", "DemoProgram.start …", timeout: Self.firstScreen)
        session.tmux.sendKeys("?")
        session.expect("Keys", "│        timeline, scroll in Stage)", "│        downstream", "scroll 1-")
        session.tmux.sendKeys("End")
        let end = session.expect("quit, and stop the demo program that pipescope started",
                                 "marks: ⚠ lint  ≡N shares #N's subscription  ◆ cursor  ▶ next at the gate")
        XCTAssertFalse(end.split(separator: "\n").contains { $0.hasSuffix("…│") }, "no line of the help is cut:\n\(end)")
        session.tmux.sendKeys("Escape")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testNavigationSelectsAndFolds() throws {
        let (session, _) = try startDemo(width: 120, height: 40)
        defer { session.kill() }
        session.tmux.sendKeys("j", "j", "j")
        session.expect("#4 → Autoconnect")  // the detail pane follows the selection
        session.tmux.sendKeys("Home", "Left")
        // The detail pane still names TimerPublisher in Filter's full type; the tree must not.
        XCTAssertNotNil(session.tmux.waitFor({ !$0.contains("▾ Autoconnect") && $0.contains("▸ Filter → Sink") }, timeout: 5),
                        "folding the root hides its upstream:\n\(session.tmux.lastScreen)")
        session.tmux.sendKeys("Right")
        session.expect("▾ Autoconnect")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// The FlatMap's answered Futures share one row as soon as two have finished (the
    /// demo sends a request every 2.1 s, answered 1.5 s later); `x` hides them and says
    /// how many stages it hides. (How the demo looks after two minutes is checked from its
    /// event shapes in `DemoAfterTwoMinutesTests`, in a second.)
    func testTheFlatMapsFinishedInnersShareOneRow() throws {
        let (session, _) = try startDemo(width: 120, height: 40)
        defer { session.kill() }
        let grouped = session.tmux.waitFor({ (Self.futureGroup(in: $0) ?? 0) >= 2 }, timeout: 45)
        let screen = try XCTUnwrap(grouped, "no group of finished Futures:\n\(session.tmux.lastScreen)")
        let lines = screen.split(separator: "\n").map(String.init)
        // Its root row, whatever marks its name carries (a warning, a wait on a slow machine).
        let top = try XCTUnwrap(lines.firstIndex { $0.range(of: "▾ FlatMap .*→ S", options: .regularExpression) != nil },
                                screen)
        // The FlatMap's rows run until the next pipeline's (a fold marker right after the border).
        let block = lines[(top + 1)...].prefix { line in
            let tree = line.dropFirst()
            return !(tree.hasPrefix("▾") || tree.hasPrefix("▸"))
        }
        XCTAssertEqual(block.filter { $0.contains("Future ×") }.count, 1, "one group row:\n\(screen)")
        XCTAssertFalse(block.contains { $0.contains(" Future ") && !$0.contains("×") && $0.contains("✓ finished") },
                       "no finished Future on a row of its own:\n\(screen)")
        session.tmux.sendKeys("x")
        let hidden = session.expect("ended hidden)")
        XCTAssertNotNil(session.tmux.waitFor({ !$0.contains("Future ×") }, timeout: 5),
                        "x hides the finished inners of the live FlatMap:\n\(hidden)")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// N in the tree's `Future ×N` row, if there is one.
    private static func futureGroup(in screen: String) -> Int? {
        guard let range = screen.range(of: #"Future ×[0-9]+"#, options: .regularExpression) else { return nil }
        return Int(screen[range].dropFirst("Future ×".count))
    }

    func testPauseStepAndResumeTheDemo() throws {
        let (session, _) = try startDemo(width: 120, height: 40)
        defer { session.kill() }
        session.tmux.sendKeys("Space")
        let paused = session.expect("PAUSED")
        // Wherever the waiting stage's row is (it may be scrolled away), the status line
        // names it first, before the program's long answer to the pause.
        XCTAssertNotNil(session.tmux.waitFor({ $0.split(separator: "\n").last?.hasPrefix(" next") == true }, timeout: 5),
                        "the status line names the next event:\n\(paused)")
        let before = session.tmux.waitFor({ TerminalSession.values(of: Self.tickerSource, in: $0) != nil }, timeout: 10)
        session.expect(before.flatMap { TerminalSession.values(of: Self.tickerSource, in: $0) }, staysFor: 0.6,
                       "paused: the ticker stands still") { TerminalSession.values(of: Self.tickerSource, in: $0) }
        session.tmux.sendKeys("n")
        session.expect("released 1 of")
        XCTAssertNotNil(session.tmux.waitFor(TerminalSession.anEventWaits, timeout: 10))
        session.tmux.sendLiteral("2")
        session.tmux.sendKeys("n")
        XCTAssertNotNil(session.tmux.waitFor({ $0.contains("released 2 of") || $0.contains("released all 1 waiting (asked 2)") },
                                             timeout: 10), "a count before n steps that many: \(session.tmux.lastScreen)")
        // N asks for ten: the answer says how many went, and that no more were waiting.
        XCTAssertNotNil(session.tmux.waitFor(TerminalSession.anEventWaits, timeout: 10))
        session.tmux.sendKeys("N")
        session.expect("what N did") { $0.contains("waiting (asked 10)") || $0.contains("released 10 of ") }
        session.tmux.sendKeys("Space")
        session.expect("resumed")
        session.expect("LIVE")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testGoingBackInHistoryAndReturningToLive() throws {
        let (session, _) = try startDemo(width: 120, height: 40)
        defer { session.kill() }
        // Some history to go back through: a few ticks, however long they take to come.
        XCTAssertNotNil(session.tmux.waitFor({ (TerminalSession.values(of: Self.tickerSource, in: $0) ?? 0) >= 3 }, timeout: 30),
                        "the ticker ticks:\n\(session.tmux.lastScreen)")
        let past = session.stepBack(3)
        XCTAssertTrue(past.contains("◆ here"), "the stage of the event at the cursor is marked:\n\(past)")
        session.expect(TerminalSession.values(of: Self.tickerSource, in: past), staysFor: 0.7,
                       "the past does not move while the program runs on") { TerminalSession.values(of: Self.tickerSource, in: $0) }
        session.tmux.sendKeys("G")
        session.expect("LIVE")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// The timeline's cursor in a real terminal: `←` in the timeline pane goes into the
    /// past, the event log ends at the cursor's event and the detail shows the selected
    /// stage as it was then; `5←` goes further back; `G` is live again.
    func testTheTimelinesCursorMovesThroughTimeAndTheLogAndTheDetailFollow() throws {
        let (session, _) = try startDemo(width: 120, height: 40)
        defer { session.kill() }
        XCTAssertNotNil(session.tmux.waitFor({ (TerminalSession.values(of: Self.tickerSource, in: $0) ?? 0) >= 6 }, timeout: 30),
                        "the ticker ticks:\n\(session.tmux.lastScreen)")
        session.tmux.sendKeys("Tab")  // the timeline pane
        session.expect("Timeline 100 ms/col", "←→ cursor")
        session.tmux.sendKeys("Left")
        let first = session.expect("the cursor in the past, ▼ over it") { Self.cursor(in: $0) != nil && $0.contains("▼") }
        let (event, time, subject) = try XCTUnwrap(Self.cursor(in: first))
        XCTAssertTrue(first.split(separator: "\n").contains { $0.contains("\(time)  \(subject)") },
                      "the event log shows the cursor's event, \(time) \(subject):\n\(first)")
        let valuesThen = try XCTUnwrap(Self.detailValues(in: first), first)
        session.tmux.sendKeys("5", "Left")
        let earlier = session.expect("five columns back") { Self.cursor(in: $0).map { $0.event < event } ?? false }
        let (_, earlierTime, earlierSubject) = try XCTUnwrap(Self.cursor(in: earlier))
        XCTAssertLessThan(earlierTime, time)
        XCTAssertTrue(earlier.split(separator: "\n").contains { $0.contains("\(earlierTime)  \(earlierSubject)") },
                      "the event log follows the cursor:\n\(earlier)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(Self.detailValues(in: earlier)), valuesThen,
                                 "the detail shows the stage as it was at the cursor")
        let earlierEvent = try XCTUnwrap(Self.cursor(in: earlier)).event
        session.tmux.sendKeys("Right")
        let later = session.expect("a column forward") { Self.cursor(in: $0).map { $0.event > earlierEvent } ?? false }
        let (_, laterTime, laterSubject) = try XCTUnwrap(Self.cursor(in: later))
        XCTAssertTrue(later.split(separator: "\n").contains { $0.contains("\(laterTime)  \(laterSubject)") },
                      "the event log follows the cursor forward too:\n\(later)")
        session.tmux.sendKeys("G")
        let live = session.expect("LIVE")
        XCTAssertFalse(live.contains("▼"), "live: no cursor column on the ruler")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// The history line's event number, time and subject: "event 388: value at #3
    /// Autoconnect, 12:46:03.451", or "event 12: owner "Feed" released, 12:46:03.451".
    private static func cursor(in screen: String) -> (event: Int, time: String, subject: String)? {
        guard let line = screen.split(separator: "\n").first(where: { $0.contains(" history · event ") }),
              let match = line.firstMatch(of: #/event ([0-9]+): (?:[a-z ]+ at )?(.+?)(?: released)?, ([0-9:]+\.[0-9]+)/#),
              let event = Int(match.1) else { return nil }
        return (event, String(match.3), String(match.2))
    }

    /// The detail pane's "values N" of the selected stage.
    private static func detailValues(in screen: String) -> Int? {
        screen.firstMatch(of: #/│values ([0-9]+)/#).flatMap { Int($0.1) }
    }

    func testCancellingTheTickersMapStageStopsItsValues() throws {
        let (session, _) = try startDemo(width: 120, height: 40)
        defer { session.kill() }
        session.tmux.sendKeys("j")   // the ticker's Map stage
        session.expect("#2 → Filter")
        session.tmux.sendKeys("c")
        // The confirmation names the stages sharing the subscription.
        session.expect("Cancel #2 Map?", "which it shares with: #1 Filter, #3 Autoconnect, #4 TimerPublisher",
                       "y cancels it   q quits   any other key keeps it")
        session.tmux.sendKeys("y")
        session.expect("cancelled by inspector")
        let after = session.expect("the cancel's notice and the Map's values") {
            $0.contains("cancelled #2") && TerminalSession.values(of: "  ▾ Map", in: $0) != nil
        }
        session.expect(TerminalSession.values(of: "  ▾ Map", in: after), staysFor: 1,
                       "the ticker's Map stage gets no more values") { TerminalSession.values(of: "  ▾ Map", in: $0) }
        // The cancel's answer gives way to the history keys' own line. (When the inspector
        // attached before the demo made its first pipeline, `g` goes back to before the
        // Map was made, and the line says so instead: also history's own answer.)
        for key in ["[", "g"] {
            session.tmux.sendKeys(key)
            session.expect("the history line after \(key)") { screen in
                let bottom = screen.split(separator: "\n").last.map(String.init) ?? ""
                let beforeTheMap = key == "g" && screen.contains("HISTORY 0/")
                    && bottom == " #2 Map is not made yet at this point of history: nothing left to select"
                return (bottom.hasPrefix(" history · ") || beforeTheMap) && !screen.contains("cancelled #2")
            }
        }
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testResizeWhileRunning() throws {
        let (session, _) = try startDemo(width: 120, height: 40)
        defer { session.kill() }
        session.tmux.resize(width: 80, height: 24)
        XCTAssertNotNil(session.tmux.waitFor({ $0.split(separator: "\n").contains { $0.hasPrefix("┌ Stage") } }, timeout: 5),
                        "narrow layout stacks the detail under the tree:\n\(session.tmux.lastScreen)")
        session.tmux.resize(width: 40, height: 10)
        session.expect("Terminal too small")
        session.tmux.resize(width: 100, height: 30)
        XCTAssertNotNil(session.tmux.waitFor({ $0.contains("TimerPublisher") && !$0.contains("too small") }, timeout: 5))
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
        session.expectUsableShell()
    }

    func testSigtermRestoresTheTerminalAndStopsTheDemo() throws {
        let (session, child) = try startDemo(width: 100, height: 30)
        defer { session.kill() }
        let inspector = try XCTUnwrap(parentPID(of: child))
        kill(inspector, SIGTERM)
        session.expect("EXIT=")
        XCTAssertTrue(eventually(timeout: 20) { !processExists(child) })
        session.expectUsableShell()
    }

    func testACrashStillRestoresTheTerminalAndTheDemoFollows() throws {
        let (session, child) = try startDemo(width: 100, height: 30)
        defer { session.kill() }
        let inspector = try XCTUnwrap(parentPID(of: child))
        kill(inspector, SIGSEGV)
        session.expect("EXIT=139")  // still reported as a crash: 128 + SIGSEGV
        session.expectUsableShell()
        // The demo looks for its parent once a second, then stops Pipescope and exits, which can
        // take more than 5 s under ThreadSanitizer on a busy machine (CI).
        XCTAssertTrue(eventually(timeout: 20) { !processExists(child) }, "the demo notices its inspector is gone")
    }

    func testCtrlCRestoresTheTerminal() throws {
        let (session, child) = try startDemo(width: 100, height: 30)
        defer { session.kill() }
        session.tmux.sendKeys("C-c")
        session.expect("EXIT=")
        XCTAssertTrue(eventually(timeout: 20) { !processExists(child) })
        session.expectUsableShell()
    }

    func testDemoChildDyingEndsTheInspectorWithAMessage() throws {
        let (session, child) = try startDemo(width: 100, height: 30)
        defer { session.kill() }
        kill(child, SIGKILL)
        let screen = session.expect("EXIT=1")
        XCTAssertTrue(screen.contains("the demo program (pid \(child)) was killed by signal 9"), screen)
        session.expectUsableShell()
    }
}
