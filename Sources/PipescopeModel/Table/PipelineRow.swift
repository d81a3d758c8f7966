import PipescopeGraph

/// One row of the pipelines table: a pipeline (a root stage and everything upstream of
/// it) summed up as of the graph on screen.
///
/// Times are stored, not ages, so a row stays valid while the clock moves; the table
/// shows them relative to ``AppState/timelineEnd``.
public struct PipelineRow: Hashable, Sendable {
    /// The root stage: the pipeline's identity.
    public var id: NodeID
    public var name: PipelineName
    /// Where the program made it (the root's location, short), or empty.
    public var location: String
    /// The root stage's status.
    public var status: NodeStatus
    public var stages: Int
    /// Events per second over the last few seconds (``PipelineActivity/rate(of:at:)``).
    public var rate: Double
    /// Values delivered to the subscriber (the root's values).
    public var values: Int
    public var createdNanos: Int64
    /// The newest event of any of its stages (0: none known).
    public var lastEventNanos: Int64
    /// Lifecycle warnings on its stages.
    public var warnings: Int
    /// Where it waits (its root's verdict, ``Waits``); nil while it flows or once ended.
    public var wait: Wait?
    /// The operator of the stage holding the wait (`Future`), for the WAIT column.
    public var waitHolder: String
    /// How long it had waited when the verdicts were made, for `snapshot --json`.
    public var waitNanos: Int64?
    /// Its costliest code: the stage whose operator (or the root's sink) takes the most
    /// per value, by p50 (nil before any value was timed).
    public var slowest: SlowStage?
    /// The places of its name and of its location among those of the rows it was built
    /// with (``TextOrder``), set by the table so that sorting by either compares
    /// numbers; nil: sorting compares the texts.
    public internal(set) var nameOrder: Int64?
    public internal(set) var locationOrder: Int64?
    /// Its place and name as a number (a hash, ``PipelineRows``): pipelines with the same
    /// number are from one place and fold into one row (``PlaceFolds``). Nil: its root has
    /// no location, and it never folds.
    public internal(set) var place: Int?
    /// Set on a folded row: the pipelines it stands for. Its other fields are their
    /// totals, and its ``id`` the one the `pile-up` lint is on (``PlaceFolds``).
    public internal(set) var fold: PlaceFold?
    /// A pipeline of a folded row: shown under it (indented) while it is open, else not.
    public internal(set) var isMember = false

    /// What the table's selection calls this row: a folded row is its place, so it
    /// stays selected while its members come and go.
    public var rowID: TableRowID {
        if fold != nil, let place { return .place(place) }
        return .pipeline(id)
    }

    public init(id: NodeID, name: PipelineName, location: String, status: NodeStatus, stages: Int, rate: Double,
                values: Int, createdNanos: Int64, lastEventNanos: Int64, warnings: Int, wait: Wait? = nil,
                waitHolder: String = "", waitNanos: Int64? = nil, slowest: SlowStage? = nil) {
        self.id = id
        self.name = name
        self.location = location
        self.status = status
        self.stages = stages
        self.rate = rate
        self.values = values
        self.createdNanos = createdNanos
        self.lastEventNanos = lastEventNanos
        self.warnings = warnings
        self.wait = wait
        self.waitHolder = waitHolder
        self.waitNanos = waitNanos
        self.slowest = slowest
    }
}

extension [PipelineRow] {
    /// Sorted by `column`, stably: rows equal in it keep ascending id order whichever
    /// the direction, so equal rows never swap places between frames.
    public func sorted(by column: TableColumn, descending: Bool) -> [PipelineRow] {
        sortedPositions(by: column, descending: descending).map { self[$0] }
    }

    /// The positions of the rows in their order by `column` (see
    /// ``sorted(by:descending:)``).
    ///
    /// Each row's key is computed once into a flat array of integers (a name or a
    /// location by its place among the distinct ones, ``PipelineRow/nameOrder`` when
    /// the table has set it), and positions are sorted by key, then id: 10,000 rows
    /// sort without comparing a string or moving a row.
    public func sortedPositions(by column: TableColumn, descending: Bool) -> [Int] {
        let keys = column.keys(self)
        let ids = map(\.id)
        var order = [Int](0..<count)
        keys.withUnsafeBufferPointer { k in
            ids.withUnsafeBufferPointer { id in
                order.sort { a, b in
                    if k[a] != k[b] { return TableColumn.precedes(k[a], k[b], descending: descending) }
                    return id[a] < id[b]
                }
            }
        }
        return order
    }
}

/// The table's rows in their sorted order: the rows as built, seen through their sorted
/// positions, so a sort moves integers, not rows (copying 10,000 rows, with their
/// names, cost more than sorting them).
public struct SortedRows: RandomAccessCollection, Sendable {
    /// The rows in the order they were built (the graph's roots), then the folded rows
    /// (``PlaceFolds``); members of closed folded rows are here but not on screen.
    public let built: [PipelineRow]
    private let positions: [Int]

    public init() { self.init(built: [], positions: []) }

    init(built: [PipelineRow], positions: [Int]) {
        self.built = built
        self.positions = positions
    }

    /// How many pipelines the rows stand for: every row built but the folded ones
    /// (appended last, so counted from the end).
    public var pipelines: Int {
        built.count - (built.lastIndex { $0.fold == nil }.map { built.count - 1 - $0 } ?? built.count)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { positions.count }
    public subscript(position: Int) -> PipelineRow { built[positions[position]] }

    /// The row that stands for `id` now that it is not on screen: a pipeline folded into
    /// a closed row, that row; a folded row come apart (one pipeline left from its place),
    /// that pipeline's row. Nil: `id` has left.
    public func home(of id: TableRowID) -> TableRowID? {
        switch id {
        case .pipeline(let root):
            guard let place = built.first(where: { $0.id == root && $0.isMember })?.place else { return nil }
            return .place(place)
        case .place(let place):
            return built.first { $0.place == place && $0.fold == nil && !$0.isMember }.map { .pipeline($0.id) }
        }
    }

    /// Where pipeline `root`'s own row is, if it is on screen (not inside a closed folded
    /// row): a scan of ids, then of integers.
    public func position(of root: NodeID) -> Int? { position(of: .pipeline(root)) }

    /// Where the row `id` is, if it is on screen.
    public func position(of id: TableRowID) -> Int? {
        let at: Int?
        switch id {
        case .pipeline(let root): at = built.firstIndex { $0.id == root && $0.fold == nil }
        case .place(let place): at = built.lastIndex { $0.place == place && $0.fold != nil }
        }
        return at.flatMap { positions.firstIndex(of: $0) }
    }
}
