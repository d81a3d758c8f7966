import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// The explain overlay (`e`), drawn into a buffer: its lines at 80x24 and 120x40, a long
/// value wrapped rather than cut, and what it says when there is nothing to follow.
final class ExplainOverlayTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    /// `subject.receive(on: worker).map { User(…) }.sink`, made at Feed.swift:88: Map (1)
    /// ← ReceiveOn (2) ← PassthroughSubject (3); the Sink got a long description.
    static func state(width: Int, height: Int) -> AppState {
        var b = BatchBuilder(step: 40_000)
        b.subscribe(1, op: "Map", subscriber: "Sink", location: BatchBuilder.at("Feed.swift", 88))
        b.subscribe(2, parent: 1, op: "ReceiveOn", subscriber: "Map")
        b.subscribe(3, parent: 2, op: "PassthroughSubject", subscriber: "ReceiveOn")
        b.add(.value, 3) { $0.text = "42"; $0.thread = "main" }                                   // #4
        b.now += 2_100_000
        b.add(.value, 2) { $0.text = "42"; $0.thread = "worker 1"; $0.causedBy = 4 }
        b.add(.value, 1) {
            $0.text = "User(id: 42, name: \"Ada Lovelace\", email: \"ada@example.com\", roles: [admin, editor])"
            $0.thread = "worker 1"
            $0.causedBy = 5
        }
        var state = ViewFixtures.connected(b.build())
        _ = reduce(&state, ScreenView.resized(width: width, height: height))
        state.tree.selection = 1
        _ = reduce(&state, .action(.explain))
        return state
    }

    /// The text inside the box on rows `rows`, the box `width` wide from column `x`, each
    /// row checked to lie between the box's sides.
    private func inside(_ buffer: ScreenBuffer, rows: ClosedRange<Int>, x: Int, width: Int,
                        file: StaticString = #filePath, line: UInt = #line) -> [String] {
        rows.map { y in
            let row = Array(buffer.lines()[y])
            XCTAssertEqual(row[x], "│", "row \(y)", file: file, line: line)
            XCTAssertEqual(row[x + width - 1], "│", "row \(y)", file: file, line: line)
            var text = String(row[(x + 2)..<(x + width - 1)])
            while text.last == " " { text.removeLast() }
            return text
        }
    }

    /// The overlay's rows at 80x24: a box 72 wide in the middle, wrapped between fields,
    /// a hop's continuation indented, how the chain ends, the footer last.
    func testTheOverlayAt80x24() {
        let buffer = ViewFixtures.render(Self.state(width: 80, height: 24), width: 80, height: 24, theme: .plainUnicode)
        XCTAssertEqual(String(Array(buffer.lines()[6])[4..<76]),
                       "┌ Where #1 Map's last value came from " + String(repeating: "─", count: 33) + "┐")
        XCTAssertEqual(inside(buffer, rows: 7...15, x: 4, width: 72), [
            "Sink got User(id: 42, name: \"Ada Lovelace\", email: \"ada@example.com\",",
            "    roles: [admin, editor])",
            "← Map #1",
            "    42→User(id: 42, name: \"Ada Lovelace\", email: \"ada@example.com\",",
            "    roles: [admin, editor])  thread worker 1  +40 µs  Feed.swift:88",
            "← ReceiveOn #2  42  thread worker 1  +2.1 ms",
            "← PassthroughSubject #3  sent 42 on main  thread main",
            "Origin: PassthroughSubject #3, no recorded cause before it",
            "e or Esc closes",
        ])
        XCTAssertEqual(String(Array(buffer.lines()[16])[4..<76]), "└" + String(repeating: "─", count: 70) + "┘")
        XCTAssertEqual(buffer.lines()[23].trimmingCharacters(in: .whitespaces), "e or Esc close  ↑↓ scroll  q quit")
    }

    /// At 120x40 a box 108 wide: only the long value's hop wraps.
    func testTheOverlayAt120x40() {
        let buffer = ViewFixtures.render(Self.state(width: 120, height: 40), width: 120, height: 40, theme: .plainUnicode)
        let lines = buffer.lines()
        XCTAssertEqual(lines.firstIndex { $0.contains("┌ Where #1 Map's last value came from") }, 15)
        XCTAssertEqual(inside(buffer, rows: 16...22, x: 6, width: 108), [
            "Sink got User(id: 42, name: \"Ada Lovelace\", email: \"ada@example.com\", roles: [admin, editor])",
            "← Map #1  42→User(id: 42, name: \"Ada Lovelace\", email: \"ada@example.com\", roles: [admin, editor])",
            "    thread worker 1  +40 µs  Feed.swift:88",
            "← ReceiveOn #2  42  thread worker 1  +2.1 ms",
            "← PassthroughSubject #3  sent 42 on main  thread main",
            "Origin: PassthroughSubject #3, no recorded cause before it",
            "e or Esc closes",
        ])
    }

    func testGoldenScreens() {
        Golden.check(Self.state(width: 80, height: 24), "explain", width: 80, height: 24, theme: .plainASCII)
        Golden.check(Self.state(width: 120, height: 40), "explain", width: 120, height: 40, theme: .plainUnicode)
    }

    /// A stage with no value yet says so in the overlay.
    func testAStageWithoutAValueSaysSo() {
        var b = BatchBuilder()
        b.chain(from: 1, subscriber: "Sink", ops: ["Future"])
        var state = ViewFixtures.connected(b.build())
        _ = reduce(&state, ScreenView.resized(width: 80, height: 24))
        state.tree.selection = 1
        _ = reduce(&state, .action(.explain))
        let buffer = ViewFixtures.render(state, width: 80, height: 24, theme: .plainUnicode)
        let top = buffer.lines().firstIndex { $0.contains("┌ Where #1 Future's last value came from") } ?? 0
        XCTAssertEqual(inside(buffer, rows: (top + 1)...(top + 2), x: 4, width: 72),
                       ["#1 Future has delivered no value yet: nothing to explain.", "e or Esc closes"])
    }
}
