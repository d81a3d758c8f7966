import Foundation
import PipescopeTestSupport
import XCTest

/// Debugging.md's "Debug a pipeline step by step" (the DocC catalog), done in a real terminal on the demo.
final class DebuggerWalkthroughTests: XCTestCase {
    /// The event log's rows (the right half of the lower panes), oldest first.
    private func logRows(_ screen: String) -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let top = lines.firstIndex(where: { $0.contains("┌ Events") }) else { return [] }
        return lines.dropFirst(top + 2).compactMap { line in
            let parts = line.components(separatedBy: "││")
            guard parts.count == 2 else { return nil }
            let row = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "│ "))
            return row.isEmpty ? nil : row
        }
    }

    /// Rows of the log that are deliveries (what the gate releases).
    private func deliveries(_ rows: [String]) -> [String] {
        rows.filter { $0.contains("  value") || $0.hasSuffix("  finished") || $0.contains("  failed:") }
    }

    /// The sum of the VALUES column of the tree.
    private func totalValues(_ screen: String) -> Int {
        screen.split(separator: "\n").compactMap { TerminalSession.valuesColumn(of: $0) }.reduce(0, +)
    }

    func testPauseStepGoBackThenCancelTheTicker() throws {
        let session = try TerminalSession(width: 140, height: 40)
        defer { session.kill() }
        session.type(Programs.pipescope)
        session.showTree()
        XCTAssertNotNil(session.tmux.waitFor({ $0.contains("TimerPublisher") && $0.contains("┌ Events") }, timeout: 60))
        // Locations follow their stages and bring the LOCATION column: one layout from here.
        XCTAssertNotNil(session.tmux.waitFor({ $0.contains("Program.swift:") }, timeout: 60))

        // Pause, and let the threads come to rest at the gate.
        session.tmux.sendKeys("Space")
        session.expect("PAUSED")
        XCTAssertNotNil(session.tmux.waitFor(TerminalSession.anEventWaits, timeout: 5))
        // Events already past the gate when it closed may still reach the log: read it
        // once it has stopped growing for half a second.
        var seen: [String] = []
        var since = Date()
        let before = session.tmux.waitFor({ screen in
            let now = self.deliveries(self.logRows(screen))
            if now != seen { (seen, since) = (now, Date()) }
            return Date().timeIntervalSince(since) >= 0.5
        }, timeout: 30) ?? session.tmux.lastScreen
        let deliveredBefore = deliveries(logRows(before))

        // Three steps, each one more delivery in the log.
        for step in 1...3 {
            XCTAssertNotNil(session.tmux.waitFor(TerminalSession.anEventWaits, timeout: 10), "an event waits:\n\(session.tmux.lastScreen)")
            session.tmux.sendKeys("n")
            session.expect("released")
            XCTAssertNotNil(session.tmux.waitFor({ (self.newRows(before: deliveredBefore, after: self.deliveries(self.logRows($0)))?.count ?? 0) >= step },
                                                 timeout: 30), "step \(step) reaches the log:\n\(session.tmux.lastScreen)")
        }
        XCTAssertNotNil(session.tmux.waitFor(TerminalSession.anEventWaits, timeout: 10), "threads back at the gate:\n\(session.tmux.lastScreen)")
        // More than three would be a bug the gate cannot let happen while paused.
        session.expect(3, staysFor: 0.5, "exactly three events were delivered") {
            self.newRows(before: deliveredBefore, after: self.deliveries(self.logRows($0)))?.count
        }
        let after = session.tmux.lastScreen
        let deliveredAfter = deliveries(logRows(after))
        let new = newRows(before: deliveredBefore, after: deliveredAfter) ?? []
        XCTAssertEqual(new.count, 3, "exactly three events were delivered:\n\(new.joined(separator: "\n"))")

        // Two events back: the counts go back too.
        let liveTotal = totalValues(after)
        let past = session.stepBack(2)
        XCTAssertLessThan(totalValues(past), liveTotal, "the tree shows fewer values two events ago")

        // Back to live, resume, and cancel the ticker's Map stage with confirmation.
        session.tmux.sendKeys("G")
        session.tmux.sendKeys("Space")
        session.expect("resumed")
        session.tmux.sendKeys("Home", "j")
        session.expect("#2 → Filter")
        session.tmux.sendKeys("c")
        session.expect("Cancel #2 Map?")
        session.tmux.sendKeys("y")
        func mapLane(_ screen: String) -> String {
            screen.split(separator: "\n").first { $0.contains("  ▾ Map ") }
                .map { String($0).components(separatedBy: "││").last ?? "" } ?? ""
        }
        let cancelled = session.expect("the Map stage's lane ending in a cancel by the inspector (⊗), and its values") {
            $0.contains("cancelled by inspector") && mapLane($0).contains("⊗")
                && TerminalSession.values(of: "  ▾ Map", in: $0) != nil
        }
        session.expect(TerminalSession.values(of: "  ▾ Map", in: cancelled), staysFor: 1,
                       "no more values") { TerminalSession.values(of: "  ▾ Map", in: $0) }
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// The rows at the end of `after` that were not at the end of `before` (the log
    /// scrolls); nil when `before`'s last row is not in `after` (a screen caught mid-redraw).
    private func newRows(before: [String], after: [String]) -> [String]? {
        guard let last = before.last else { return after }
        return after.lastIndex(of: last).map { Array(after[($0 + 1)...]) }
    }
}
