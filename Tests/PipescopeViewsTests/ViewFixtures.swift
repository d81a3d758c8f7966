import Foundation
import PipescopeGraph
@testable import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import PipescopeWire
import TerminalKit
import XCTest

/// Fixed states for the screen tests. Every time in them is fixed, so with TZ=UTC the
/// screens are the same on every machine.
enum ViewFixtures {
    static let t0 = BatchBuilder.baseNanos
    static let second: Int64 = 1_000_000_000

    /// Attached to "demo" (pid 4242), showing the stage tree (`t`; the table is the
    /// first screen), with `batches` folded in between two ticks one second apart, so
    /// the rate reads as the number of events.
    static func connected(_ batches: EventBatch...) -> AppState {
        connected(batches, page: .tree)
    }

    /// The same, on the pipelines table or the tree.
    static func connected(_ batches: [EventBatch], page: Page, retention: Retention? = nil) -> AppState {
        var state = AppState(targetName: "demo", pid: 4242)
        if let retention { state.retention = retention }
        _ = reduce(&state, .attached(process: "demo", pid: 4242))
        if page == .tree { _ = reduce(&state, .action(.toggleTable)) }
        _ = reduce(&state, .tick(nanos: t0))
        for batch in batches { _ = reduce(&state, .batch(batch)) }
        _ = reduce(&state, .tick(nanos: t0 + second))
        return state
    }

    /// Nothing yet, on the first screen: the pipelines table.
    static func empty() -> AppState { connected([], page: .table) }

    /// The filter/map/subject pipeline plus a cancelled and a failed one (ids 1…7).
    static func realistic(selection: NodeID? = 2) -> AppState {
        var state = connected(BatchFixtures.realisticBatch())
        state.tree.selection = selection
        return state
    }

    static func deep(depth: Int = 12, selection: NodeID? = nil) -> AppState {
        var state = connected(BatchFixtures.deepChain(depth: depth))
        state.tree.selection = selection ?? NodeID(depth)
        return state
    }

    static let longValue = "User(id: 42, name: \"Ada Lovelace\", email: \"ada@example.com\", "
        + "roles: [admin, editor, viewer], lastLogin: 2024-01-02 11:59:58 +0000, "
        + "preferences: [theme: dark, language: en-GB, notifications: true], END)"

    /// A `Map ← PassthroughSubject` pipeline whose Map last delivered ``longValue``.
    static func longLastValue() -> AppState {
        var b = BatchBuilder()
        b.subscribe(1, op: "Map", type: "Map<PassthroughSubject<UserRecord, Never>, User>", subscriber: "Sink")
        b.subscribe(2, parent: 1, op: "PassthroughSubject", type: "PassthroughSubject<UserRecord, Never>",
                    subscriber: "Map")
        b.subscription(2)
        b.subscription(1, owner: 2)
        b.request(2, .unlimited)
        b.value(2, "UserRecord(id: 42)")
        b.value(1, longValue)
        var state = connected(b.build())
        state.tree.selection = 1
        return state
    }

    /// One root per status, with large counts: 1 Future (subscribing), 2 Just (finished),
    /// 3 Sequence (active, 12,345 values of 2,000,000 requested), 4 Timer (cancelled).
    static func statuses() -> AppState {
        var b = BatchBuilder()
        b.subscribe(1, op: "Future", type: "Future<Data, URLError>", subscriber: "Sink")
        b.subscribe(2, op: "Just", type: "Just<Int>", subscriber: "Sink")
        b.subscription(2)
        b.request(2, .unlimited)
        b.value(2, "1")
        b.finish(2)
        b.subscribe(3, op: "Sequence", type: "Publishers.Sequence<ClosedRange<Int>, Never>", subscriber: "Sink")
        b.subscription(3)
        b.request(3, .count(2_000_000))
        for i in 1...12_345 { b.value(3, i == 12_345 ? "12345" : nil) }
        b.subscribe(4, op: "TimerPublisher", type: "Timer.TimerPublisher", subscriber: "Assign")
        b.subscription(4)
        b.request(4, .unlimited)
        b.cancel(4, cause: .inspector)
        var state = connected(b.build())
        state.tree.selection = 1
        return state
    }

    static func failedSelected() -> AppState { realistic(selection: 6) }

    /// The demo after a while, in its event shapes: the ticker's filter/map/subject (1…3);
    /// the FlatMap (10) with its subject (11), 18 answered Futures (12…29) and one waiting
    /// (30); three forgotten requests (40, 50, 60: an unretained-cancellable lint each);
    /// two ProfileScreens opened and closed (70, 80); one still open (90). The selection
    /// is on the group of answered Futures.
    static func grouped() -> AppState {
        var b = BatchBuilder()
        BatchFixtures.filterMapSubject(into: &b)
        b.flatMapRoot(10)
        for i in 0..<18 { b.innerFuture(12 + NodeID(i), under: 10, answer: "response \(i + 1)") }
        b.innerFuture(30, under: 10)
        for id: NodeID in [40, 50, 60] { b.forgottenRequest(id) }
        for (id, owner): (NodeID, UInt64) in [(70, 1), (80, 2)] {
            b.ownedPipeline(id, owner: owner, ownerName: "ProfileScreen", name: "profile avatar")
            b.value(id + 1, "avatar \(id)")
            b.value(id, "avatar \(id)")
            b.releaseOwner(owner, name: "ProfileScreen", pipelines: [id])
        }
        b.ownedPipeline(90, owner: 3, ownerName: "ProfileScreen", name: "profile avatar")
        var state = connected(b.build())
        state.tree.selected = state.tree.rows.first { $0.group?.id.parent == 10 }?.selection
        return state
    }

    /// ``grouped()`` with the warnings open.
    static func groupedWarnings() -> AppState {
        var state = grouped()
        _ = reduce(&state, .action(.toggleLints))
        return state
    }

    /// ``grouped()`` with ended stages hidden (`x`).
    static func endedHidden() -> AppState {
        var state = grouped()
        _ = reduce(&state, .action(.toggleEnded))
        _ = reduce(&state, .action(.dismiss))
        return state
    }

    static func help() -> AppState {
        var state = realistic()
        _ = reduce(&state, .action(.toggleHelp))
        return state
    }

    static func disconnected() -> AppState {
        var state = realistic()
        _ = reduce(&state, .disconnected("the program closed the connection (pid 4242 exited)"))
        return state
    }

    static func render(_ state: AppState, width: Int, height: Int, theme: Theme) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: width, height: height)
        ScreenView.render(state, theme: theme, into: &buffer)
        return buffer
    }
}

/// Golden screens: text files under `Golden/`, one line per screen line.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static var recording: Bool { ProcessInfo.processInfo.environment["PIPESCOPE_RECORD_GOLDEN"] == "1" }

    static func text(_ buffer: ScreenBuffer) -> String {
        buffer.lines().joined(separator: "\n") + "\n"
    }

    /// Renders `state` at `width`x`height` in `theme` and compares it with
    /// `Golden/<name>-<width>x<height>-<unicode|ascii>.txt`. `resized`: the state first
    /// gets the resize message of that size (the table's page and width follow it).
    static func check(_ state: AppState, _ name: String, width: Int, height: Int, theme: Theme, resized: Bool = false,
                      file: StaticString = #filePath, line: UInt = #line) {
        var state = state
        if resized { _ = reduce(&state, ScreenView.resized(width: width, height: height)) }
        let buffer = ViewFixtures.render(state, width: width, height: height, theme: theme)
        let themeName = theme.glyphs.isUnicode ? "unicode" : "ascii"
        assertMatches(buffer, "\(name)-\(width)x\(height)-\(themeName)", file: file, line: line)
    }

    /// Compares `buffer` with `Golden/<name>.txt`, or writes that file when recording.
    static func assertMatches(_ buffer: ScreenBuffer, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let url = directory.appendingPathComponent(name + ".txt")
        let actual = text(buffer)
        if recording {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try actual.write(to: url, atomically: true, encoding: .utf8)
            } catch {
                XCTFail("could not write \(url.path): \(error)", file: file, line: line)
            }
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("no golden screen \(url.path); run with PIPESCOPE_RECORD_GOLDEN=1 to record it",
                    file: file, line: line)
            return
        }
        guard expected != actual else { return }
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var diff: [String] = []
        for i in 0..<max(e.count, a.count) {
            let el = i < e.count ? String(e[i]) : "<none>"
            let al = i < a.count ? String(a[i]) : "<none>"
            if el != al { diff.append("line \(i):\n  expected: \(el)\n  actual:   \(al)") }
        }
        XCTFail("screen differs from Golden/\(name).txt (re-record with PIPESCOPE_RECORD_GOLDEN=1 if intended):\n"
                + diff.joined(separator: "\n"), file: file, line: line)
    }
}

extension ViewFixtures {
    /// The event log's rows (its header dropped), trailing blanks trimmed.
    static func logRows(_ state: AppState, width: Int = 90, height: Int = 12) -> [String] {
        var buffer = ScreenBuffer(width: width, height: height)
        EventLogView.render(state, theme: .plainUnicode, area: Rect(x: 0, y: 0, width: width, height: height),
                            into: &buffer)
        return buffer.lines().dropFirst().map { String($0.reversed().drop { $0 == " " }.reversed()) }
            .filter { !$0.isEmpty }
    }
}
