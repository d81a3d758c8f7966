import Foundation
import PipescopeTestSupport
import XCTest

/// A bash shell in tmux in which tests type commands, as a person would, so they can
/// check that the shell is usable again after pipescope exits.
final class TerminalSession {
    let tmux: TmuxSession

    /// A UTF-8 locale unless `environment` says otherwise, whatever the test runner has.
    init(width: Int, height: Int, environment: [String: String] = [:]) throws {
        let env = ["LANG": "C.UTF-8"].merging(environment) { _, given in given }
        tmux = try TmuxSession(command: "env PS1='$ ' bash --norc --noprofile -i", width: width, height: height,
                               environment: env)
        XCTAssertNotNil(tmux.waitFor(text: "$", timeout: 10), "the shell did not start")
    }

    /// Types a command line and presses Enter; the shell echoes `EXIT=<status>` after it.
    func type(_ command: String) {
        tmux.sendLiteral(command + "; echo EXIT=$?")
        tmux.sendKeys("Enter")
    }

    /// Waits for one screen showing `text` and every one of `more`, failing the test with
    /// the last screen when none does. Asking for everything a check reads in one call
    /// matters: tmux can be read while the inspector is halfway through drawing a frame
    /// (often, on a slow machine), so a screen that shows the title may not show the
    /// rows or the status line yet.
    @discardableResult
    func expect(_ text: String, _ more: String..., timeout: Double = 15,
                file: StaticString = #filePath, line: UInt = #line) -> String {
        let texts = [text] + more
        if let screen = tmux.waitFor({ screen in texts.allSatisfy { screen.contains($0) } }, timeout: timeout) {
            return screen
        }
        let missing = texts.filter { !tmux.lastScreen.contains($0) }.map { "\"\($0)\"" }.joined(separator: ", ")
        XCTFail("never saw \(missing); last screen:\n\(tmux.lastScreen)", file: file, line: line)
        return tmux.lastScreen
    }

    /// Waits for one screen on which `predicate` holds (read everything a check needs
    /// from that one screen), failing the test with `what` and the last screen otherwise.
    @discardableResult
    func expect(_ what: String, timeout: Double = 15, file: StaticString = #filePath, line: UInt = #line,
                where predicate: (String) -> Bool) -> String {
        if let screen = tmux.waitFor(predicate, timeout: timeout) { return screen }
        XCTFail("never saw \(what); last screen:\n\(tmux.lastScreen)", file: file, line: line)
        return tmux.lastScreen
    }

    /// Checks that the shell answers again and echoes what is typed (the terminal was
    /// restored: echo and line editing on).
    func expectUsableShell(file: StaticString = #filePath, line: UInt = #line) {
        tmux.sendLiteral("echo shell-ok-$((40+2))")
        tmux.sendKeys("Enter")
        let screen = expect("shell-ok-42", "$ echo shell-ok-$((40+2))", file: file, line: line)
        XCTAssertFalse(screen.contains("Pipelines (") || screen.contains("sorted by"), "the inspector's screen is gone",
                       file: file, line: line)
    }

    /// The inspector opens on the pipelines table; `t` switches to the stage tree. Waits
    /// for the table (its title says how it is sorted), presses `t`, waits for the
    /// tree's title, and selects the tree's first row (`t` selects the table's pipeline).
    @discardableResult
    func showTree(timeout: Double = 60, file: StaticString = #filePath, line: UInt = #line) -> String {
        expect("sorted by", timeout: timeout, file: file, line: line)
        tmux.sendKeys("t")
        let screen = expect("Pipelines (", file: file, line: line)
        tmux.sendKeys("Home")
        return screen
    }

    /// Plain `pipescope` (the demo) at `width`x`height`, on its stage tree once the ticker's
    /// stages have their locations.
    static func demo(width: Int, height: Int, file: StaticString = #filePath, line: UInt = #line) throws -> TerminalSession {
        let session = try TerminalSession(width: width, height: height)
        session.type(Programs.pipescope)
        session.showTree(timeout: 60, file: file, line: line)
        session.expect("TimerPublisher and its locations", file: file, line: line) {
            $0.contains("LIVE") && $0.contains("Program.swift:")
        }
        return session
    }

    /// `q`, and the shell's `EXIT=0` after it.
    func quit(file: StaticString = #filePath, line: UInt = #line) {
        tmux.sendKeys("q")
        expect("EXIT=0", file: file, line: line)
    }

    /// Checks that what `read` finds on the screen stays `expected` for `seconds`: every
    /// screen it can read in that time must agree, and at least one must be readable (a
    /// screen caught mid-redraw reads nothing and is skipped; after `seconds`, the check
    /// waits up to `timeout` for a readable one). Fails the test with the screen that
    /// disagreed, or the last one, otherwise. No blind sleep: the screen is read all along.
    func expect<T: Equatable>(_ expected: T?, staysFor seconds: Double, timeout: Double = 10, _ what: String,
                              read: (String) -> T?, file: StaticString = #filePath, line: UInt = #line) {
        guard let expected else {
            XCTFail("\(what): nothing to compare with; last screen:\n\(tmux.lastScreen)", file: file, line: line)
            return
        }
        var readable = 0
        var readAtTheEnd = false
        var disagreed: String?
        let start = Date()
        _ = tmux.waitFor({ screen in
            guard let value = read(screen) else { return false }
            readable += 1
            if value != expected { disagreed = screen }
            readAtTheEnd = Date().timeIntervalSince(start) >= seconds
            return disagreed != nil || readAtTheEnd
        }, timeout: seconds + timeout)
        if let disagreed {
            XCTFail("\(what): \(read(disagreed).map { "\($0)" } ?? "nil"), not \(expected), on:\n\(disagreed)",
                    file: file, line: line)
        } else if !readAtTheEnd {
            XCTFail("\(what): read \(readable) times, never after \(seconds) s; last screen:\n\(tmux.lastScreen)",
                    file: file, line: line)
        }
    }

    /// Goes `count` events back in history, one `[` at a time, each time waiting for the
    /// title bar's cursor (`HISTORY 81/82`) to drop by one; returns the screen at the last.
    @discardableResult
    func stepBack(_ count: Int, file: StaticString = #filePath, line: UInt = #line) -> String {
        tmux.sendKeys("[")
        var screen = tmux.waitFor({ Self.historyEvent(in: $0) != nil }, timeout: 15) ?? tmux.lastScreen
        guard var event = Self.historyEvent(in: screen) else {
            XCTFail("no history cursor in the title bar:\n\(screen)", file: file, line: line)
            return screen
        }
        for _ in 1..<max(1, count) {
            tmux.sendKeys("[")
            screen = expect("HISTORY \(event - 1)/", file: file, line: line)
            event -= 1
        }
        return screen
    }

    /// The event at the history cursor, from the title bar's `HISTORY 81/82`.
    static func historyEvent(in screen: String) -> Int? {
        guard let range = screen.range(of: #"HISTORY [0-9]+/"#, options: .regularExpression) else { return nil }
        return Int(screen[range].dropFirst("HISTORY ".count).dropLast())
    }

    func kill() { tmux.kill() }

    /// The demo child's pid, from the status bar's "(pid N)".
    static func pid(in screen: String) -> Int32? {
        guard let range = screen.range(of: #"\(pid (\d+)\)"#, options: .regularExpression) else { return nil }
        return Int32(screen[range].dropFirst(5).dropLast())
    }

    /// Whether the screen says an event waits at the gate: the waiting stage's row is
    /// marked `▶ next`, or, wherever that row is (scrolled away, in another pipeline),
    /// the status line names it (`next [1/3]: #34 PassthroughSubject value on main`).
    static func anEventWaits(_ screen: String) -> Bool {
        screen.contains("▶ next") || screen.range(of: #" next( \[[0-9]+/[0-9]+\])?: [^ ]"#, options: .regularExpression) != nil
    }

    /// The values column of the first row whose label starts with `label`.
    static func values(of label: String, in screen: String) -> Int? {
        for line in screen.split(separator: "\n") where line.contains(label) {
            if let values = valuesColumn(of: line) { return values }
        }
        return nil
    }

    /// The VALUES column of a tree row (nil for a line that is not one). The tree pane
    /// only (the timeline may sit to its right); VALUES is its last number, before the
    /// LOCATION column when there is one. A stage row has a status, spelt out or, when
    /// the pane makes room for LOCATION, as its glyph alone.
    static func valuesColumn<S: StringProtocol>(of line: S) -> Int? {
        let tree = line.components(separatedBy: "││")[0]
        var fields = tree.split(whereSeparator: { $0 == " " || $0 == "│" })
        if let last = fields.last, last.contains(":") { fields.removeLast() }
        // The TIME column (`45 µs`), when the pane has room for it (before locations come,
        // on a slow machine): VALUES is the number before it.
        if let last = fields.last, ["ns", "µs", "ms", "s"].contains(last), fields.count >= 2 { fields.removeLast(2) }
        let statuses: Set<Substring> = ["active", "finished", "cancelled", "failed", "subscribing", "●", "✓", "✗", "⊘", "⊗", "⌂", "○"]
        guard fields.contains(where: statuses.contains), let last = fields.last else { return nil }
        return Int(last)
    }
}

/// Whether a process exists.
func processExists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 }

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return true
}

/// The parent pid of a process, from /proc.
func parentPID(of pid: Int32) -> Int32? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 1 ? Int32(fields[1]) : nil
}
