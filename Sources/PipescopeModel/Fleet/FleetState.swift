/// The state of `pipescope top --prometheus`: the programs read from Prometheus, sorted
/// and selected, and what the screen says about the last read. Reduced from reads and
/// keys by ``apply(_:now:)`` and ``handle(_:)``; drawn by `FleetView`.
///
/// ```swift
/// var state = FleetState(url: "http://127.0.0.1:9090")
/// state.apply(.rows(rows), now: clock())
/// if case .attach(let target, _)? = state.handle(.enter) { … }
/// ```
public struct FleetState: Equatable, Sendable {
    /// What one read of Prometheus gave.
    public enum Read: Equatable, Sendable {
        case rows([FleetRow])
        /// Why there are no rows: Prometheus unreachable, a bad answer. Shown in the table's place.
        case failed(String)
    }

    /// What the loop does for a key.
    public enum Effect: Equatable, Sendable {
        case quit
        /// Attach to `target` as `pipescope attach target` does; `instance` names the row.
        case attach(target: String, instance: String)
        /// Read Prometheus now rather than at the next turn.
        case refresh
    }

    /// The keys the screen answers (the pipelines table's, where they mean the same).
    public enum Key: Equatable, Sendable, CaseIterable {
        case up, down, pageUp, pageDown, home, end, enter, sortNext, sortPrevious, invertSort, refresh, quit
    }

    /// Prometheus' address, as given.
    public let url: String
    /// The rows, in the order shown.
    public private(set) var rows: [FleetRow] = []
    public private(set) var sort: FleetColumn = .waiting
    public private(set) var descending = true
    /// The selected row's instance: kept across reads while the row is there.
    public private(set) var selected: String?
    /// The first row shown.
    public private(set) var offset = 0
    /// Why the last read gave nothing (nil: it gave rows, or nothing was read yet).
    public private(set) var problem: String?
    /// A line for the status bar: what the last key did or could not do.
    public var notice: String?
    /// When the last read came (nanos since 1970), nil before the first.
    public private(set) var readAt: Int64?
    /// Rows the table has room for (set by the loop from the screen's height).
    public var pageRows = 20

    public init(url: String) { self.url = url }

    /// The selected row's index in ``rows``.
    public var selectedIndex: Int? { rows.firstIndex { $0.instance == selected } }

    /// Takes a read: new rows sorted as asked, the selection kept on its instance (or the
    /// first row), or the problem in their place.
    public mutating func apply(_ read: Read, now: Int64) {
        readAt = now
        switch read {
        case .failed(let message):
            problem = message
            rows = []
        case .rows(let new):
            problem = new.isEmpty
                ? "Prometheus at \(url) has no pipescope_* series yet. Start programs with "
                    + "PIPESCOPE_METRICS_LISTEN=host:port and add them to its scrape config (see Fleet in the docs); "
                    + "a new target shows after its first scrape."
                : nil
            rows = new
            resort()
        }
    }

    /// Answers a key; the effect for the loop, if any.
    public mutating func handle(_ key: Key) -> Effect? {
        switch key {
        case .quit: return .quit
        case .refresh:
            notice = "reading \(url)…"
            return .refresh
        case .up: move(by: -1)
        case .down: move(by: 1)
        case .pageUp: move(by: -max(1, pageRows))
        case .pageDown: move(by: max(1, pageRows))
        case .home: move(by: -rows.count)
        case .end: move(by: rows.count)
        case .sortNext, .sortPrevious:
            let all = FleetColumn.all
            let at = all.firstIndex(of: sort) ?? 0
            sort = all[(at + (key == .sortNext ? 1 : all.count - 1)) % all.count]
            // Text reads first-to-last; a count most first, as the pipelines table sorts.
            descending = sort.rightAligned
            resort()
        case .invertSort:
            descending.toggle()
            resort()
        case .enter:
            guard let index = selectedIndex else {
                notice = rows.isEmpty ? "no program to attach to" : nil
                return nil
            }
            let row = rows[index]
            switch row.reach {
            case .unreachable(let why):
                notice = "cannot attach to \(row.instance): \(why)"
                return nil
            case .probe, .localPid:
                notice = nil
                return .attach(target: row.reach.target!, instance: row.instance)
            }
        }
        return nil
    }

    private mutating func resort() {
        let column = sort, descending = descending
        rows.sort { column.precedes($0, $1, descending: descending) }
        if selectedIndex == nil { selected = rows.first?.instance }
        keepSelectionShown()
    }

    private mutating func move(by delta: Int) {
        guard !rows.isEmpty else { return }
        let index = min(max(0, (selectedIndex ?? 0) + delta), rows.count - 1)
        selected = rows[index].instance
        notice = nil
        keepSelectionShown()
    }

    private mutating func keepSelectionShown() {
        let index = selectedIndex ?? 0
        let page = max(1, pageRows)
        if index < offset { offset = index }
        if index >= offset + page { offset = index - page + 1 }
        offset = max(0, min(offset, max(0, rows.count - page)))
    }
}
