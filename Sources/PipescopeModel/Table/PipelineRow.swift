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
    /// Its costliest code: the stage whose operator (or the root's sink) takes the most
    /// per value, by p50 (nil before any value was timed).
    public var slowest: SlowStage?
    /// The places of its name and of its location among those of the rows it was built
    /// with (``TextOrder``), set by the table so that sorting by either compares
    /// numbers; nil: sorting compares the texts.
    public internal(set) var nameOrder: Int64?
    public internal(set) var locationOrder: Int64?

    public init(id: NodeID, name: PipelineName, location: String, status: NodeStatus, stages: Int, rate: Double,
                values: Int, createdNanos: Int64, lastEventNanos: Int64, warnings: Int, slowest: SlowStage? = nil) {
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
        self.slowest = slowest
    }
}

/// The costliest code in a pipeline: whose it is and its p50 per value.
public struct SlowStage: Hashable, Sendable {
    /// The stage whose operator it is (for a sink, the root).
    public var node: NodeID
    /// The operator, or the sink's description ("Sink").
    public var name: String
    public var p50: Int64

    public init(node: NodeID, name: String, p50: Int64) {
        self.node = node
        self.name = name
        self.p50 = p50
    }

    /// The slower of the two, by p50.
    static func slower(_ a: SlowStage?, _ b: SlowStage?) -> SlowStage? {
        guard let a else { return b }
        guard let b else { return a }
        return b.p50 > a.p50 ? b : a
    }

    /// A stage's own operator and (a root's) sink, whichever costs more.
    static func of(_ node: NodeSummary) -> SlowStage? {
        guard let times = node.times else { return nil }
        let own = times.own.count > 0 ? SlowStage(node: node.id, name: node.operatorName, p50: times.own.p50) : nil
        let sink = times.sink.count > 0 ? SlowStage(node: node.id, name: node.subscriber, p50: times.sink.p50) : nil
        return slower(own, sink)
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
                    if k[a] != k[b] { return descending ? k[a] > k[b] : k[a] < k[b] }
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
    /// The rows in the order they were built (the graph's roots).
    public let built: [PipelineRow]
    private let positions: [Int]

    public init() { self.init(built: [], positions: []) }

    init(built: [PipelineRow], positions: [Int]) {
        self.built = built
        self.positions = positions
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { positions.count }
    public subscript(position: Int) -> PipelineRow { built[positions[position]] }

    /// Where pipeline `root`'s row is, if it has one: a scan of ids, then of integers.
    public func position(of root: NodeID) -> Int? {
        built.firstIndex { $0.id == root }.flatMap { positions.firstIndex(of: $0) }
    }
}
