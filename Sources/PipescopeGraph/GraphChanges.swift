/// Which stages a graph's fold touched since the changes were last taken: what lets the
/// inspector bring its lints, waits and table rows up to date from the events since its
/// last tick instead of from every stage.
///
/// Off by default (the probe's graph never records): ``Graph/recordChanges()`` turns it
/// on, ``Graph/takeChanges()`` hands over what was recorded and starts afresh.
///
/// ```swift
/// var graph = Graph()
/// graph.recordChanges()
/// graph.fold(batch)
/// let changes = graph.takeChanges()   // the stages the batch changed, added or moved
/// changes.touched.contains(7)         // true: a value arrived at #7
/// ```
public struct GraphChanges: Sendable, Equatable {
    /// Stages whose summary, children or parent changed, or that were added.
    public internal(set) var touched: Set<NodeID> = []
    /// Stages removed (pruned).
    public internal(set) var removed: Set<NodeID> = []
    /// Owners made or released (an owner's release can make a pipeline leak).
    public internal(set) var owners: Set<UInt64> = []

    public init() {}

    public var isEmpty: Bool { touched.isEmpty && removed.isEmpty && owners.isEmpty }

    /// Adds `other`'s changes (made after these).
    public mutating func formUnion(_ other: GraphChanges) {
        touched.formUnion(other.touched)
        removed.formUnion(other.removed)
        owners.formUnion(other.owners)
    }
}

/// Holds a graph's ``GraphChanges`` while it records. Two graphs are equal whatever they
/// recorded: the changes say how a graph was reached, not what it is.
struct ChangeRecorder: Sendable, Equatable {
    var changes: GraphChanges?

    static func == (_: ChangeRecorder, _: ChangeRecorder) -> Bool { true }

    @inline(__always) mutating func touch(_ id: NodeID) {
        if changes != nil { changes!.touched.insert(id) }
    }

    @inline(__always) mutating func remove(_ id: NodeID) {
        if changes != nil { changes!.removed.insert(id) }
    }

    @inline(__always) mutating func owner(_ id: UInt64) {
        if changes != nil { changes!.owners.insert(id) }
    }
}

extension Graph {
    /// Starts recording the stages each fold touches (see ``GraphChanges``).
    public mutating func recordChanges() {
        if recorder.changes == nil { recorder.changes = GraphChanges() }
    }

    /// Stops recording (a copy kept as a checkpoint need not record).
    public mutating func stopRecordingChanges() { recorder.changes = nil }

    /// What was recorded since the last call, and starts afresh; empty when not recording.
    public mutating func takeChanges() -> GraphChanges {
        guard let changes = recorder.changes else { return GraphChanges() }
        recorder.changes = GraphChanges()
        return changes
    }
}
