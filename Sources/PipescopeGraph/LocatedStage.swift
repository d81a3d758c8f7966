/// A stage's source location, found after its ``NodeInfo`` was sent.
///
/// The probe symbolizes call stacks on a thread of its own, never on the flush that
/// carries the gate: a new pipeline's NodeInfo goes out at once, without a location
/// when its addresses have not been looked up yet, and the location follows in a later
/// batch (``EventBatch/locations``), usually the next one.
///
/// ```swift
/// batch.locations.append(LocatedStage(node: 7, location: here, frames: callers))
/// graph.fold(batch)
/// graph[7]?.location   // here
/// ```
public struct LocatedStage: Hashable, Sendable {
    public var node: NodeID
    /// Where the program made the stage (see ``NodeInfo/location``).
    public var location: SourceLocation
    /// The program's frames that called ``location``, nearest first.
    public var frames: [SourceLocation]

    public init(node: NodeID, location: SourceLocation, frames: [SourceLocation] = []) {
        self.node = node
        self.location = location
        self.frames = frames
    }
}
