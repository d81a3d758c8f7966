import PipescopeGraph

/// One direction of the probe's message stream, with the string table it carries.
///
/// Everything on either side of the wire deals in the domain's types (PipescopeGraph):
/// snapshots and event batches. Only the stream turns them into messages. The writer
/// (one per stream: the socket fan-out, or a recording file) packs batches and puts its
/// whole table in every snapshot (cut into parts when it is too big for one frame); the
/// reader unpacks them with the table the stream has built so far. Whoever reads frames
/// joins a snapshot's parts first (``SnapshotJoiner``).
///
/// ```swift
/// var writer = WireStreamWriter()
/// let frame = writer.message(batch).framed()
/// var reader = WireStreamReader()
/// let message = try ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize))
/// let same = try reader.batch(message.packed)
/// ```
public struct WireStreamWriter: Sendable {
    public private(set) var table: StringTable
    /// The most a snapshot part's stages, strings and owners take
    /// (``SnapshotParts/partBytes``; tests make it small to see parts from a small graph).
    public var snapshotPartBytes = SnapshotParts.partBytes

    public init(capacity: Int = StringTable.defaultCapacity) {
        table = StringTable(capacity: capacity)
    }

    /// The batch as it travels: packed, its new names added to the table.
    public mutating func message(_ batch: EventBatch) -> ServerMessage {
        var out = ServerMessage()
        out.packed = BatchPacking.pack(batch, table: &table)
        return out
    }

    /// The snapshot as it travels, with the whole string table, framed: one frame, or
    /// its parts in order when it would pass the frame limit (``SnapshotParts``).
    public mutating func frames(_ snapshot: GraphSnapshot) -> [[UInt8]] {
        var whole = snapshot.wire
        whole.strings = table.strings
        return SnapshotParts.frames(whole, partBytes: snapshotPartBytes)
    }
}

public struct WireStreamReader: Sendable {
    public private(set) var table = StringTable()

    public init() {}

    /// A packed batch, unpacked with the stream's table. Throws ``FrameError`` for
    /// columns or ids that do not add up.
    public mutating func batch(_ packed: WirePackedBatch) throws -> EventBatch {
        try BatchPacking.unpack(packed, table: &table)
    }

    /// A snapshot; its string table replaces the stream's.
    public mutating func snapshot(_ snapshot: WireSnapshot) throws -> GraphSnapshot {
        try table.load(snapshot.strings)
        return try GraphSnapshot(wire: snapshot)
    }
}
