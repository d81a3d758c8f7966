import Foundation
import PipescopeTestSupport
import XCTest

/// The pipelines table and the selection against the real demo, in tmux, as a user
/// sees them: the sorted order agrees with the program's own counts, the selection stays
/// on its stage while pipelines come and go, and hiding ended pipelines says where the
/// selection went.
final class TableTerminalTests: XCTestCase {
    private static let firstScreen: Double = 60

    private func start(environment: String = "") throws -> (TerminalSession, Int32) {
        let session = try TerminalSession(width: 120, height: 40)
        session.type(environment + Programs.pipescope)
        let table = session.expect("the table and the program's pid", timeout: Self.firstScreen) {
            $0.contains("sorted by RATE ▼") && TerminalSession.pid(in: $0) != nil
        }
        let pid = try XCTUnwrap(TerminalSession.pid(in: table), table)
        // Each pipeline on its own row: these tests read pipelines' ids and counts, which a
        // folded row (`×N`, pipelines from one place) has not.
        session.tmux.sendKeys("F")
        session.expect("each pipeline on its own row")
        // At 120 columns PIPELINE takes the room LOCATION would need, so the table's layout
        // stays the same when the locations arrive; the tree's helpers read the detail pane,
        // whatever its layout.
        return (session, pid)
    }

    // MARK: - Reading the table

    private struct Row: Equatable {
        var id: Int
        var rate: Double
        var values: Int
    }

    /// The table's rows, read under the header's RATE and VALUES titles (numbers are
    /// right-aligned to their title).
    private func rows(_ screen: String) -> [Row] {
        let lines = screen.split(separator: "\n").map { Array($0) }
        guard let header = lines.first(where: { String($0).contains(" ID PIPELINE") }) else { return [] }
        /// The column of a title's last character (its sort mark included, when sorted by it).
        func end(of title: String) -> Int? {
            let text = String(header)
            guard let range = text.range(of: title) else { return nil }
            let last = text[..<range.upperBound].count - 1
            return last + 1 < header.count && "▲▼".contains(header[last + 1]) ? last + 1 : last
        }
        guard let rateEnd = end(of: "RATE"), let valuesEnd = end(of: "VALUES") else { return [] }
        func cell(_ line: [Character], _ endColumn: Int, width: Int) -> String {
            let upper = min(endColumn + 1, line.count), lower = max(0, endColumn - width)
            return lower < upper ? String(line[lower..<upper]).trimmingCharacters(in: .whitespaces) : ""
        }
        return lines.compactMap { line in
            let text = String(line)
            guard text.hasPrefix("│"), let idRange = text.range(of: #"#[0-9]+ "#, options: .regularExpression),
                  let id = Int(text[idRange].dropFirst().dropLast()) else { return nil }
            let rateText = cell(line, rateEnd, width: 8).replacingOccurrences(of: "/s", with: "")
            guard let rate = Double(rateText.trimmingCharacters(in: .whitespaces)),
                  let values = Int(cell(line, valuesEnd, width: 5)) else { return nil }
            return Row(id: id, rate: rate, values: values)
        }
    }

    /// Each pipeline root's values, from `pipescope snapshot --json` of the same program.
    private func snapshotValues(_ pid: Int32) throws -> [Int: Int] {
        let out = try Programs.run(Programs.pipescope, ["snapshot", "\(pid)", "--json"])
        XCTAssertEqual(out.status, 0, out.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let nodes = try XCTUnwrap(document["nodes"] as? [[String: Any]])
        var values: [Int: Int] = [:]
        for node in nodes where node["parent"] is NSNull {
            if let id = node["id"] as? Int, let v = node["values"] as? Int { values[id] = v }
        }
        return values
    }

    /// The id of the stage the detail pane shows (its second line: `#12 → Sink  thread …`).
    private func detailID(_ screen: String) -> Int? {
        let lines = screen.split(separator: "\n").map(String.init)
        guard let top = lines.firstIndex(where: { $0.contains("┌ Stage") }), top + 2 < lines.count else { return nil }
        let left = lines[top + 2].components(separatedBy: "││")[0]
        guard let range = left.range(of: #"^│#[0-9]+ "#, options: .regularExpression) else { return nil }
        return Int(left[range].dropFirst(2).dropLast())
    }

    /// The detail pane's second line (left pane only), or nil when it shows nothing yet.
    private func detailLine(_ screen: String) -> String? {
        let lines = screen.split(separator: "\n").map(String.init)
        guard let top = lines.firstIndex(where: { $0.contains("┌ Stage") }), top + 2 < lines.count else { return nil }
        let left = lines[top + 2].components(separatedBy: "││")[0]
        return left.trimmingCharacters(in: CharacterSet(charactersIn: "│ ")).isEmpty ? nil : left
    }

    /// Presses `j` until the detail pane shows stage `id`, opening each group of ended
    /// stages alike (`×N`) on the way with `l`, since the stage may be one of a group (on
    /// a slow machine several TryMaps have failed before the tree is shown); false if
    /// it never shows it.
    private func select(_ id: Int, in session: TerminalSession) -> Bool {
        session.tmux.sendKeys("Home")
        for _ in 0..<80 {
            guard let screen = session.tmux.waitFor({ self.detailLine($0) != nil }, timeout: 5) else { continue }
            if detailID(screen) == id { return true }
            let before = detailLine(screen)
            if let line = before, line.contains(" ended stage"), line.contains("×") {
                session.tmux.sendKeys("l")
                _ = session.tmux.waitFor({ self.detailLine($0) != before }, timeout: 2)
                if detailID(session.tmux.lastScreen) == id { return true }
            }
            let here = detailLine(session.tmux.lastScreen)
            session.tmux.sendKeys("j")
            _ = session.tmux.waitFor({ self.detailLine($0) != here }, timeout: 2)
        }
        return false
    }

    // MARK: - Tests

    func testTheSortedTableAgreesWithTheProgramsCounts() throws {
        let (session, pid) = try start()
        defer { session.kill() }
        // Live, by rate: the busiest first. Rates are read over whole seconds: wait for
        // the first ones, on a screen read twice alike (not caught mid-redraw).
        var previous: [Row] = []
        let live = session.tmux.waitFor({ screen in
            let rows = self.rows(screen)
            defer { previous = rows }
            return rows.count >= 8 && (rows.first?.rate ?? 0) > 0 && rows == previous
        }, timeout: 30) ?? session.tmux.lastScreen
        let byRate = rows(live)
        XCTAssertGreaterThanOrEqual(byRate.count, 8, live)
        XCTAssertEqual(byRate.map(\.rate), byRate.map(\.rate).sorted(by: >), "rate descending:\n\(live)")
        XCTAssertGreaterThan(byRate.first?.rate ?? 0, 0, "the ticker is busy:\n\(live)")

        // Paused, the counts stand still: sorted by values, the table's order is the
        // program's own counts' order (ties by id).
        session.tmux.sendKeys("Space")
        session.expect("PAUSED")
        session.tmux.sendKeys(">")
        session.expect("sorted by VALUES ▼")
        var agreed = false
        var last = ""
        for _ in 0..<5 where !agreed {
            // The table follows at the next tick: wait until two readings agree.
            var previous: [Row] = []
            let screen = session.tmux.waitFor({ screen in
                let now = self.rows(screen)
                defer { previous = now }
                return !now.isEmpty && now == previous
            }, timeout: 10, poll: 0.6) ?? session.tmux.lastScreen
            let table = rows(screen)
            let program = try snapshotValues(pid)
            last = screen
            let expected = table.sorted { a, b in
                let (va, vb) = (program[a.id] ?? -1, program[b.id] ?? -1)
                return va != vb ? va > vb : a.id < b.id
            }
            agreed = table.allSatisfy { program[$0.id] == $0.values } && table.map(\.id) == expected.map(\.id)
        }
        let program = try snapshotValues(pid)
        XCTAssertTrue(agreed, "the table's values and order are the program's:\n\(last)\n\(program)")
        session.tmux.sendKeys("Space")
        session.expect("resumed")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testTheSelectionStaysOnItsStageWhilePipelinesComeAndGo() throws {
        // Ended pipelines are pruned 15 s after they end, by the program and the inspector:
        // long enough to select a stage first on a slow machine. The selection is read
        // from the detail pane, whatever the layout: no need to wait for locations.
        let (session, _) = try start(environment: "PIPESCOPE_RETAIN_SECONDS=15 ")
        defer { session.kill() }
        // A live story, made after pipelines that end early (TryMap fails at about 2 s; its
        // row is named after the function that built it, `DemoProgram.startParser → …`).
        let table = session.expect("the story's and the parser's rows") {
            self.tableID(of: "story: cache lookup", in: $0) != nil && self.tableID(of: "startParser", in: $0) != nil
        }
        let story = try XCTUnwrap(tableID(of: "story: cache lookup", in: table), table)
        XCTAssertNotNil(tableID(of: "startParser", in: table), table)
        session.showTree()
        XCTAssertTrue(select(story, in: session), "could not select #\(story):\n\(session.tmux.lastScreen)")
        XCTAssertTrue(session.tmux.lastScreen.contains("TryMap"),
                      "TryMap was pruned before #\(story) was selected: nothing to watch:\n\(session.tmux.lastScreen)")
        // The pipelines above it end and are pruned, others are made: its row moves.
        let pruned = session.tmux.waitFor({ !$0.contains("TryMap") && self.detailID($0) != nil }, timeout: 60)
        XCTAssertNotNil(pruned, "TryMap was never pruned:\n\(session.tmux.lastScreen)")
        let after = pruned ?? session.tmux.lastScreen
        XCTAssertEqual(detailID(after), story, "still the same stage:\n\(after)")
        XCTAssertFalse(after.contains(": selected #"), "no notice: nothing happened to it:\n\(after)")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    func testHidingEndedPipelinesWhileAnEndedOneIsSelected() throws {
        let (session, _) = try start()
        defer { session.kill() }
        // The parser pipeline fails a few seconds in.
        // (Its row is named after the function that built it: `DemoProgram.startParser → … → Sink`.)
        let table = session.tmux.waitFor({ $0.split(separator: "\n").contains { $0.contains("startParser") && $0.contains("failed") } },
                                         timeout: 30) ?? session.tmux.lastScreen
        // The failed one: a live parser's row may come first (sorted by rate), and fail later.
        let tryMap = try XCTUnwrap(tableID(of: "startParser", in: table, status: "failed"), table)
        session.showTree()
        XCTAssertTrue(select(tryMap, in: session), "could not select #\(tryMap):\n\(session.tmux.lastScreen)")
        session.tmux.sendKeys("x")
        let hidden = session.expect("where the selection went, in the notice and the detail pane") {
            $0.contains("ended stages hidden") && $0.range(of: "#\(tryMap) TryMap: selected #[0-9]+", options: .regularExpression) != nil
                && self.detailID($0) != nil && !$0.contains("TryMap → Sink")
        }
        // The notice names where the selection went, and the detail pane shows that stage.
        let said = try XCTUnwrap(hidden.range(of: "#\(tryMap) TryMap: selected #[0-9]+", options: .regularExpression),
                                 "the notice says where the selection went:\n\(hidden)")
        let now = Int(hidden[said].split(separator: "#").last!.prefix { $0.isNumber })
        XCTAssertNotNil(now)
        XCTAssertNotEqual(now, tryMap)
        XCTAssertEqual(detailID(hidden), now, hidden)
        XCTAssertFalse(hidden.contains("TryMap → Sink"), "hidden:\n\(hidden)")
        session.tmux.sendKeys("q")
        session.expect("EXIT=0")
    }

    /// The pipeline id on the table row whose name contains `label`.
    private func tableID(of label: String, in screen: String, status: String = "") -> Int? {
        for line in screen.split(separator: "\n") where line.contains(label) && (status.isEmpty || line.contains(status)) {
            if let range = line.range(of: #"#[0-9]+ "#, options: .regularExpression) {
                return Int(line[range].dropFirst().dropLast())
            }
        }
        return nil
    }
}
