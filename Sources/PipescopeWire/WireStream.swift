/// One direction of the probe's message stream, with the string table it carries.
///
/// Everything above the wire deals in plain messages: snapshots, and batches as
/// ``WireEventBatch``. Only the stream packs them. The writer (one per stream: the
/// socket fan-out, or a recording file) packs batches and puts its whole table in every
/// snapshot; the reader unpacks them with the table the stream has built so far.
///
/// ```swift
/// var writer = WireStreamWriter()
/// let frame = writer.encode(message).framed()   // batch → packed
/// var reader = WireStreamReader()
/// let plain = try reader.decode(ServerMessage.decode(payload: frame.dropFirst(4)))
/// ```
public struct WireStreamWriter: Sendable {
    public private(set) var table: StringTable

    public init(capacity: Int = StringTable.defaultCapacity) {
        table = StringTable(capacity: capacity)
    }

    /// The message as it travels: a batch packed, a snapshot with the string table.
    public mutating func encode(_ message: ServerMessage) -> ServerMessage {
        switch message.body {
        case .batch(let batch)?:
            var out = ServerMessage()
            out.packed = BatchPacking.pack(batch, table: &table)
            return out
        case .snapshot(var snapshot)?:
            snapshot.strings = table.strings
            var out = ServerMessage()
            out.snapshot = snapshot
            return out
        default:
            return message
        }
    }
}

public struct WireStreamReader: Sendable {
    public private(set) var table = StringTable()

    public init() {}

    /// The message as the layers above want it: a packed batch unpacked. A snapshot
    /// replaces the table. Throws ``FrameError`` for columns or ids that do not add up.
    public mutating func decode(_ message: ServerMessage) throws -> ServerMessage {
        switch message.body {
        case .packed(let packed)?:
            var out = ServerMessage()
            out.batch = try BatchPacking.unpack(packed, table: &table)
            return out
        case .snapshot(let snapshot)?:
            try table.load(snapshot.strings)
            return message
        default:
            return message
        }
    }
}
