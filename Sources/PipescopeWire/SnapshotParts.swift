import SwiftProtobuf

/// A snapshot too big for one frame, cut into parts and joined again.
///
/// Each frame is at most ``Framing/maxFrameSize`` (4 MiB), so that a hostile peer cannot
/// make either side allocate without bound. A program with tens of thousands of stages
/// has a bigger snapshot than that (10,000 three-stage pipelines make about 7 MB), so
/// from protocol version 5 such a snapshot travels in parts, one frame each: every part
/// but the last sets `continues` and carries only stages, strings and owners; the last
/// carries the rest. A reader appends each part's stages, strings and owners, in order,
/// to the next part's, and accepts nothing else in between.
///
/// ```swift
/// for frame in SnapshotParts.frames(snapshot) { send(frame) }          // writer
/// var joiner = SnapshotJoiner()
/// if let whole = try joiner.join(received) { handle(whole) }           // reader
/// ```
public enum SnapshotParts {
    /// The most a part's stages, strings and owners take: half the frame limit, which
    /// leaves the last part room for the recent events and the other fields.
    public static let partBytes = Framing.maxFrameSize / 2

    /// The most parts a reader joins: 512 MiB of snapshot (millions of stages). More is a
    /// peer that never ends its snapshot, and the reader stops it rather than grow.
    public static let maxParts = 256

    /// `whole` as the frames of ServerMessages that carry it: one frame when it fits in
    /// `partBytes`, or its parts in order, each within `partBytes` (unless one stage
    /// alone is bigger).
    ///
    /// A big snapshot is the program's whole graph, encoded on the probe's thread while
    /// the program's events wait in the tap's ring, so each stage is encoded once: the
    /// parts are put together from the stages' encoded bytes, as protobuf lays out a
    /// message's fields, not encoded a second time.
    public static func frames(_ whole: WireSnapshot, partBytes: Int = partBytes) -> [[UInt8]] {
        // The stages' type names alone tell a big graph (10,000 stages have about a
        // megabyte of them): it is not encoded whole just to learn that it is too big.
        let names = whole.nodes.reduce(0) { $0 + $1.info.publisherType.utf8.count + $1.info.subscriber.utf8.count }
        if names <= partBytes {
            var message = ServerMessage()
            message.snapshot = whole
            let one: [UInt8] = (try? message.serializedBytes()) ?? []
            if one.count <= partBytes { return [Framing.frame(one)] }
        }

        // Each stage, string and owner as the field it is in a Snapshot.
        var items: [[UInt8]] = []
        items.reserveCapacity(whole.nodes.count + whole.strings.count + whole.owners.count)
        for node in whole.nodes { items.append(field(1, (try? node.serializedBytes()) ?? [])) }
        for string in whole.strings { items.append(field(4, Array(string.utf8))) }
        for owner in whole.owners { items.append(field(6, (try? owner.serializedBytes()) ?? [])) }

        var rest = whole
        rest.nodes = []
        rest.strings = []
        rest.owners = []
        rest.continues = false
        let restBytes: [UInt8] = (try? rest.serializedBytes()) ?? []

        var payloads: [[UInt8]] = []
        var part: [UInt8] = []
        for item in items {
            if !part.isEmpty, part.count + item.count > partBytes {
                payloads.append(part + continues)
                part.removeAll(keepingCapacity: true)
            }
            part += item
        }
        payloads.append(part + restBytes)
        // Each part is a Snapshot in a ServerMessage (field 3), in a frame.
        return payloads.map { Framing.frame(field(3, $0)) }
    }

    /// `continues = true` (field 9, a varint) as encoded.
    private static let continues: [UInt8] = [9 << 3, 1]

    /// A length-delimited field: its tag, its length as a varint, its bytes.
    private static func field(_ number: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [number << 3 | 2]
        out.reserveCapacity(payload.count + 6)
        var n = UInt64(payload.count)
        while n >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: n) | 0x80)
            n >>= 7
        }
        out.append(UInt8(n))
        out += payload
        return out
    }
}

/// Joins the parts of snapshots as they are read, frame after frame (see
/// ``SnapshotParts``); every other message passes through unchanged.
///
/// Throws ``FrameError/malformed(_:)`` when another message comes between two parts, or
/// a snapshot never ends within ``SnapshotParts/maxParts`` parts.
public struct SnapshotJoiner: Sendable {
    /// The lists of the parts read so far of a snapshot whose last part is not.
    private var nodes: [WireNodeState] = []
    private var strings: [String] = []
    private var owners: [Pipescope_V1_OwnerState] = []
    private var parts = 0

    public init() {}

    /// Whether parts of a snapshot were read and its last part was not (yet).
    public var isJoining: Bool { parts > 0 }

    /// The message, the whole snapshot when `message` is its last part, or nil when it
    /// is a part with more to come.
    public mutating func join(_ message: ServerMessage) throws -> ServerMessage? {
        guard case .snapshot(let snapshot)? = message.body else {
            if parts > 0 {
                throw FrameError.malformed("a \(message.kindName) came between the parts of a snapshot "
                                           + "(after part \(parts))")
            }
            return message
        }
        guard snapshot.continues else {
            guard parts > 0 else { return message }
            var joined = snapshot
            joined.nodes = nodes + snapshot.nodes
            joined.strings = strings + snapshot.strings
            joined.owners = owners + snapshot.owners
            self = SnapshotJoiner()
            var out = ServerMessage()
            out.snapshot = joined
            return out
        }
        parts += 1
        guard parts < SnapshotParts.maxParts else {
            throw FrameError.malformed("a snapshot in more than \(SnapshotParts.maxParts) parts, "
                                       + "more than any graph this side can hold")
        }
        nodes += snapshot.nodes
        strings += snapshot.strings
        owners += snapshot.owners
        return nil
    }
}

extension ServerMessage {
    /// What kind of message this is, in words, for errors.
    var kindName: String {
        switch body {
        case .welcome?: return "Welcome"
        case .error?: return "Error"
        case .snapshot?: return "Snapshot"
        case .batch?: return "EventBatch"
        case .packed?: return "PackedBatch"
        case .ack?: return "Ack"
        case nil: return "message without a body"
        }
    }
}
