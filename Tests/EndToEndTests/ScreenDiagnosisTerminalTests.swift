import Foundation
import PipescopeTestSupport
import XCTest

/// #43's screen items about what the inspector tells a bug hunter, in a real terminal at
/// 80x24 and 160x48 on the demo: the cancel preview of a `flatMap` names its live inner
/// stage (item 5), one mistake is warned once and worded once (item 6), the table's TIME
/// names the costliest operator by its type and its blanks sort last (item 7), and a
/// filter keeps the stage a kept pipeline waits on (item 9). Every wait polls the screen
/// with a deadline.
final class ScreenDiagnosisTerminalTests: XCTestCase {
    private static let sizes = [(80, 24), (160, 48)]

    /// The lines inside the box whose top border holds `title` (a pane, or an overlay
    /// over the panes), each trimmed; nil while no such box is drawn.
    private static func box(_ title: String, in screen: String) -> [String]? {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        guard let top = lines.firstIndex(where: { String($0).contains(title) }) else { return nil }
        let line = String(lines[top])
        guard let titleAt = line.range(of: title) else { return nil }
        let titleIndex = line.distance(from: line.startIndex, to: titleAt.lowerBound)
        guard let left = lines[top][..<titleIndex].lastIndex(of: "┌"),
              let right = lines[top][titleIndex...].firstIndex(of: "┐") else { return nil }
        var inside: [String] = []
        for row in lines[(top + 1)...] {
            guard row.count > right, row[left] != "└" else { break }
            inside.append(String(row[(left + 1)..<right]).trimmingCharacters(in: .whitespaces))
        }
        return inside
    }

    /// The requests pipeline (`flatMap` of a `Future` per request, the tree's fifth row):
    /// while a request is out, `c` on it lists that Future among what it cancels upstream.
    func testTheCancelPreviewOfAFlatMapNamesItsLiveInnerStage() throws {
        for (width, height) in Self.sizes {
            let session = try TerminalSession.demo(width: width, height: height)
            defer { session.kill() }
            session.tmux.sendKeys("j", "j", "j", "j")
            session.expect("the requests pipeline selected") { $0.contains("#5 → Sink") || $0.contains("#5 FlatMap") }
            // A request is out 1.5 s of every 2.1 s: ask until the preview catches one.
            var preview = ""
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                session.tmux.sendKeys("c")
                preview = session.expect("Cancel #5 FlatMap?")
                if preview.range(of: #"upstream, in order: #6 PassthroughSubject, #[0-9]+ Future"#,
                                 options: .regularExpression) != nil { break }
                session.tmux.sendKeys("Escape")
                session.expect("the preview closed") { !$0.contains("Cancel #5") }
            }
            XCTAssertNotNil(preview.range(of: #"upstream, in order: #6 PassthroughSubject, #[0-9]+ Future"#,
                                          options: .regularExpression),
                            "\(width)x\(height): the live Future is named:\n\(preview)")
            session.tmux.sendKeys("Escape")
            session.quit()
        }
    }

    /// The warnings list, read page by page: the demo's publisher that ignores demand is one
    /// `demand-violation`, on the stage that sends past demand, worded without repeating
    /// the pipeline's name or two parentheses in a row.
    func testOneMistakeIsWarnedOnceAndWordedOnce() throws {
        for (width, height) in Self.sizes {
            let session = try TerminalSession.demo(width: width, height: height)
            defer { session.kill() }
            // The stalled story is judged 2 s after its last request: read the list until it has it.
            var headers = Set<String>()
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            repeat {
                (headers, text) = Self.readWarnings(session)
            } while !headers.contains(where: { $0.hasPrefix("⚠ stalled") }) && Date() < deadline
            let violations = headers.filter { $0.contains("demand-violation") }
            XCTAssertEqual(violations.count, 1, "\(width)x\(height): one warning for one mistake: \(violations)")
            XCTAssertTrue(violations.first?.contains("IgnoresDemand") == true, "on the stage that sends: \(violations)")
            XCTAssertTrue(text.contains("ignores its subscriber's demand"), text)
            XCTAssertFalse(text.contains("publisher ignoring demand ignores"), "the name is not repeated:\n\(text)")
            XCTAssertFalse(text.contains(") ("), "\(width)x\(height): two parentheses in a row:\n\(text)")
            XCTAssertNil(text.range(of: #"\b1 values\b"#, options: .regularExpression), text)
            XCTAssertTrue(text.contains("its last request was .max(1)"), "the stalled story's wording:\n\(text)")
            session.quit()
        }
    }

    /// Opens the warnings list, reads it page by page (PgDn until its footer shows the
    /// last row), and closes it: the rows' first lines, and all the text, a page a line.
    private static func readWarnings(_ session: TerminalSession) -> (headers: Set<String>, text: String) {
        session.tmux.sendKeys("w")
        var page = session.expect("the warnings list") { box("Warnings (", in: $0) != nil }
        var headers = Set<String>()
        var text = ""
        for _ in 0..<40 {
            let rows = box("Warnings (", in: page) ?? []
            for row in rows where row.hasPrefix("⚠ ") { headers.insert(row) }
            text += rows.joined(separator: " ") + "\n"
            guard let footer = page.firstMatch(of: #/rows ([0-9]+)-([0-9]+)\/([0-9]+)/#), footer.2 != footer.3 else { break }
            session.tmux.sendKeys("PageDown")
            let shown = String(footer.0)
            page = session.expect("the next page") { !$0.contains(shown) && box("Warnings (", in: $0) != nil }
        }
        session.tmux.sendKeys("Escape")
        session.expect("the list closed") { !$0.contains("Warnings (") }
        return (headers, text)
    }

    /// The table sorted by TIME, ascending (reached with `>` at 80 columns too, where TIME
    /// then shows): the timed rows first, the blank ones last, and the labelled profile
    /// avatar's TIME names its operator (`Map`), not its label.
    func testTimeNamesTheOperatorAndItsBlanksSortLast() throws {
        for (width, height) in Self.sizes {
            let session = try TerminalSession.demo(width: width, height: height)
            defer { session.kill() }
            session.tmux.sendKeys("t")
            session.expect("sorted by RATE")
            session.tmux.sendKeys(">", ">")  // RATE → VALUES → TIME
            session.expect("sorted by time per value ▼")
            session.tmux.sendKeys("i")
            let screen = session.expect("the profile avatar timed", timeout: 30) { screen in
                guard screen.contains("sorted by time per value ▲"), let cells = Self.timeCells(screen) else { return false }
                return cells.contains { $0.name.contains("profile avatar") && !$0.time.isEmpty }
            }
            let cells = Self.timeCells(screen) ?? []
            let avatar = cells.first { $0.name.contains("profile avatar") }
            XCTAssertEqual(avatar?.time.split(separator: " ").last, "Map", "\(width)x\(height): \(avatar?.time ?? "none")")
            let blanks = cells.indices.filter { cells[$0].time.isEmpty }
            XCTAssertFalse(blanks.isEmpty, "the demo has untimed pipelines:\n\(screen)")
            XCTAssertEqual(blanks, Array((cells.count - blanks.count)..<cells.count),
                           "\(width)x\(height): the blanks last, ascending:\n\(screen)")
            session.quit()
        }
    }

    /// Each table row's PIPELINE and TIME text, read under the header's columns (nil while
    /// the header is not drawn).
    private static func timeCells(_ screen: String) -> [(name: String, time: String)]? {
        let lines = screen.split(separator: "\n").map { Array($0) }
        guard let headerIndex = lines.firstIndex(where: { String($0).contains("PIPELINE") && String($0).contains("TIME") }) else {
            return nil
        }
        let header = String(lines[headerIndex])
        guard let name = header.firstRange(of: "PIPELINE"), let time = header.firstRange(of: "TIME") else { return nil }
        let nameStart = header.distance(from: header.startIndex, to: name.lowerBound)
        let timeStart = header.distance(from: header.startIndex, to: time.lowerBound)
        var cells: [(name: String, time: String)] = []
        for line in lines[(headerIndex + 1)...] {
            guard line.count > timeStart, line.first == "│", !String(line).trimmingCharacters(in: CharacterSet(charactersIn: "│ ")).isEmpty
            else { break }
            let cell = { (from: Int, to: Int) in
                String(line[from..<min(to, line.count)]).trimmingCharacters(in: CharacterSet(charactersIn: "│ "))
            }
            cells.append((cell(nameStart, nameStart + 20), cell(timeStart, timeStart + 16)))  // TIME is 17 wide, gap included
        }
        return cells
    }

    /// `/FlatMap` keeps the search story's FlatMap and its downstream, and the
    /// PassthroughSubject upstream that it waits on, `‖`, though that does not match.
    func testAFilterKeepsWhereAKeptPipelineWaits() throws {
        for (width, height) in Self.sizes {
            let session = try TerminalSession.demo(width: width, height: height)
            defer { session.kill() }
            session.tmux.sendKeys("/")
            session.tmux.sendLiteral("FlatMap")
            session.tmux.sendKeys("Enter")
            let screen = session.expect("the search story's waiting source kept", timeout: 30) { screen in
                guard let rows = Self.box("/FlatMap: ", in: screen),
                      let story = rows.firstIndex(where: { $0.contains("story: search a") }) else { return false }
                return rows.dropFirst(story + 1).prefix(2).contains { $0.contains("PassthroughS") && $0.contains("‖") }
            }
            let rows = Self.box("/FlatMap: ", in: screen) ?? []
            XCTAssertFalse(rows.contains { $0.contains("TimerPublisher") }, "\(width)x\(height): the filter still filters:\n\(screen)")
            session.tmux.sendKeys("Escape")
            session.quit()
        }
    }
}
