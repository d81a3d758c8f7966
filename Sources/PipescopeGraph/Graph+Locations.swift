/// Where a stage was made, and whether that is its own record or its pipeline's.
public struct StageLocation: Hashable, Sendable {
    public var location: SourceLocation
    /// The program's frames that called ``location``, nearest first.
    public var frames: [SourceLocation]
    /// The stage that recorded it: the stage itself, or the nearest downstream stage
    /// that has one (its pipeline's root, or the inner publisher it is part of).
    public var from: NodeID
    /// True when ``from`` is another stage.
    public var isInherited: Bool

    public init(location: SourceLocation, frames: [SourceLocation], from: NodeID, isInherited: Bool) {
        self.location = location
        self.frames = frames
        self.from = from
        self.isInherited = isInherited
    }
}

extension Graph {
    /// Where stage `id` was made: its own location if it recorded one, else the nearest
    /// downstream stage's (following `parent`), so every stage of a pipeline shows the
    /// line that built it. Nil when no stage on the way has one (locations off, a
    /// recording made before locations, or no frame was the program's).
    ///
    /// Computed, not stored: a location travels once, with the stage that recorded it,
    /// and the stages upstream of it (subscribed inside the same call) find it here.
    ///
    /// ```swift
    /// graph.location(of: mapStage)?.location.short   // "Feed.swift:88", the sink's line
    /// graph.location(of: mapStage)?.isInherited       // true
    /// ```
    public func location(of id: NodeID) -> StageLocation? {
        var current = id
        // Bounded by the graph's size: parents never form a cycle, but a bad snapshot
        // must not hang the inspector.
        for _ in 0...nodes.count {
            guard let node = nodes[current] else { return nil }
            if let location = node.location {
                return StageLocation(location: location, frames: node.frames, from: current, isInherited: current != id)
            }
            guard let parent = node.parent, parent != current else { return nil }
            current = parent
        }
        return nil
    }
}
