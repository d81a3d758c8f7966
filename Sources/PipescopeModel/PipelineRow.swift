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

    public init(id: NodeID, name: PipelineName, location: String, status: NodeStatus, stages: Int, rate: Double,
                values: Int, createdNanos: Int64, lastEventNanos: Int64, warnings: Int) {
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
    }
}

/// A column of the pipelines table, in the order they are drawn and `<` `>` move through.
public enum TableColumn: Int, CaseIterable, Sendable {
    case warnings, id, name, location, status, stages, rate, values, age, lastEvent

    /// The header's word.
    public var title: String {
        switch self {
        case .warnings: return "⚠"
        case .id: return "ID"
        case .name: return "PIPELINE"
        case .location: return "LOCATION"
        case .status: return "STATUS"
        case .stages: return "STAGES"
        case .rate: return "RATE"
        case .values: return "VALUES"
        case .age: return "AGE"
        case .lastEvent: return "LAST"
        }
    }

    public var next: TableColumn { TableColumn(rawValue: (rawValue + 1) % Self.allCases.count)! }
    public var previous: TableColumn {
        TableColumn(rawValue: (rawValue + Self.allCases.count - 1) % Self.allCases.count)!
    }

    /// Whether `a` comes before `b` in ascending order of this column (equal: neither).
    /// Ascending age is youngest first; ascending LAST is the most recent event first.
    func ascending(_ a: PipelineRow, _ b: PipelineRow) -> Bool {
        switch self {
        case .warnings: return a.warnings < b.warnings
        case .id: return a.id < b.id
        case .name: return a.name.text < b.name.text
        case .location: return a.location < b.location
        case .status: return Self.rank(a.status) < Self.rank(b.status)
        case .stages: return a.stages < b.stages
        case .rate: return a.rate < b.rate
        case .values: return a.values < b.values
        case .age: return a.createdNanos > b.createdNanos
        case .lastEvent: return a.lastEventNanos > b.lastEventNanos
        }
    }

    /// Live first, then the ways of ending.
    static func rank(_ status: NodeStatus) -> Int {
        switch status {
        case .active: return 0
        case .subscribing: return 1
        case .failed: return 2
        case .cancelled: return 3
        case .finished: return 4
        }
    }
}

extension [PipelineRow] {
    /// Sorted by `column`, stably: rows equal in it keep ascending id order whichever
    /// the direction, so equal rows never swap places between frames.
    ///
    /// Each row's key is computed once into a flat array of integers (a name or a
    /// location by its rank among the distinct ones), and positions are sorted by key,
    /// then id: 10,000 rows sort without comparing a string more than once per distinct
    /// value.
    public func sorted(by column: TableColumn, descending: Bool) -> [PipelineRow] {
        let keys = column.keys(self)
        let ids = map(\.id)
        var order = [Int](0..<count)
        keys.withUnsafeBufferPointer { k in
            ids.withUnsafeBufferPointer { id in
                order.sort { a, b in
                    if k[a] != k[b] { return descending ? k[a] > k[b] : k[a] < k[b] }
                    return id[a] < id[b]
                }
            }
        }
        return order.map { self[$0] }
    }
}

extension TableColumn {
    /// One integer per row whose ascending order is this column's ascending order.
    func keys(_ rows: [PipelineRow]) -> [Int64] {
        switch self {
        case .warnings: return rows.map { Int64($0.warnings) }
        case .id: return rows.map { Int64(bitPattern: $0.id) }
        case .name: return Self.ranks(rows.map(\.name.text))
        case .location: return Self.ranks(rows.map(\.location))
        case .status: return rows.map { Int64(Self.rank($0.status)) }
        case .stages: return rows.map { Int64($0.stages) }
        // Rates are never negative: their bit patterns order as the numbers do.
        case .rate: return rows.map { Int64(bitPattern: max(0, $0.rate).bitPattern) }
        case .values: return rows.map { Int64($0.values) }
        case .age: return rows.map { -$0.createdNanos }
        case .lastEvent: return rows.map { -$0.lastEventNanos }
        }
    }

    /// Each text's rank among the distinct texts, in string order.
    private static func ranks(_ texts: [String]) -> [Int64] {
        let distinct = Set(texts).sorted()
        let rank = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { ($1, Int64($0)) })
        return texts.map { rank[$0] ?? 0 }
    }
}
