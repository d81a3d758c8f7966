import PipescopeGraph

private typealias D = PerfettoSchema.ProcessDescriptor

/// One of the exporter's packet sequences (`trusted_packet_sequence_id`): turns events and
/// track descriptors into TracePackets, interning names, annotation names, repeated
/// string values and source locations (``PerfettoInterner``), and sets the sequence
/// flags: `SEQ_INCREMENTAL_STATE_CLEARED` on the sequence's first packet and on the
/// first after the intern tables were cleared, `SEQ_NEEDS_INCREMENTAL_STATE` on every
/// packet that refers to interned data (every TrackEvent).
///
/// Timestamps are the recording's: wall-clock nanoseconds since 1970, on the trace clock
/// (`BUILTIN_CLOCK_BOOTTIME`), so Perfetto shows the recorded times as they are. As
/// Perfetto's own SDK writes them, they are deltas on the sequence's incremental clock
/// (64): each clear of the sequence makes it the packets' default clock
/// (`trace_packet_defaults`), and before the first timestamp after it a ClockSnapshot
/// sets it equal to the trace clock (never earlier than the sequence's last snapshot:
/// Perfetto rejects one that goes back); a time earlier than the last (the arrows hold
/// events back a little) is written absolute, on the trace clock (`timestamp_clock_id`
/// 6). Small deltas instead of 64-bit times make the compressed file about a third
/// smaller.
///
/// The sequence of the events held for their arrows makes its packets on the file's
/// compression queue (``writeHeld(_:)``) while the exporter encodes on its own thread:
/// the two touch different parts of it (hence `@unchecked Sendable`).

final class PerfettoSequence: @unchecked Sendable {
    static let sequenceID: UInt64 = 0x5053   // "PS"

    /// Its `trusted_packet_sequence_id`.
    let id: UInt64
    let file: PerfettoFileWriter
    /// The TrackEvents' encoder and the sequence's intern tables.
    private var encoder: PerfettoEventEncoder
    private var packet = ProtoWriter(capacity: 1024)
    /// The event being written by ``write(_:)``.
    private var scratch = HeldPackets()
    private(set) var eventCount = 0
    /// Whether its packets are made on the file's queue (``writeHeld(_:)``): then the
    /// packet state above (the packet buffer, the clock, the count) is the queue's alone,
    /// and the encoder the caller's.
    private let onQueue: Bool
    /// The incremental clock's last time, nil until a ClockSnapshot declares it after the
    /// sequence's latest clear.
    private var clock: Int64?
    /// The latest time a ClockSnapshot of the sequence declared (or its clock reached):
    /// a later snapshot never goes below it.
    private var clockFloor: Int64 = 0

    /// `packetsOnQueue`: its packets are made on the file's queue, when the file has one:
    /// it writes only ``writeHeld(_:)``s then.
    init(file: PerfettoFileWriter, id: UInt64 = PerfettoSequence.sequenceID, interner: PerfettoInterner = PerfettoInterner(),
         packetsOnQueue: Bool = false) {
        self.file = file
        self.id = id
        self.encoder = PerfettoEventEncoder(interner: interner)
        self.onQueue = packetsOnQueue && file.hasQueue
    }

    /// Another sequence into the same file, with its own (empty) intern tables of the
    /// same bounds and its own clock; its packets made on the file's queue when it has one.
    func sibling() -> PerfettoSequence {
        PerfettoSequence(file: file, id: id + 1,
                         interner: PerfettoInterner(maximumEntries: encoder.interner.maximumEntries,
                                                    maximumBytes: encoder.interner.maximumBytes),
                         packetsOnQueue: true)
    }

    /// Times the intern tables were full and cleared.
    var internResets: Int { encoder.interner.resets }

    /// Writes one event's packet now.
    func write(_ e: PerfettoEvent) throws {
        precondition(!onQueue, "a sequence whose packets are made on the queue writes held events only")
        scratch.removeAll()
        let entry = encode(e, into: &scratch)
        try write(entry, from: scratch)
    }

    /// Encodes an event's TrackEvent (all but the flow ids that will start at it) and the
    /// intern entries it made into `held`, to be written later by ``write(_:from:)``:
    /// packets encoded ahead must be written in the order they were encoded, on this
    /// sequence, for their intern entries and clears to come before what uses them.
    func encode(_ e: PerfettoEvent, into held: inout HeldPackets) -> HeldPackets.Entry {
        encoder.encode(e, into: &held)
    }

    /// Writes the packets of events encoded ahead, in order: on the file's queue when it
    /// has one (the packets of this sequence are then all made there: call it for every
    /// held event, and ``write(_:)`` never), else at once.
    func writeHeld(_ held: HeldPackets) throws {
        guard onQueue else {
            for index in held.startIndex..<held.endIndex { try write(held.entry(index), from: held) }
            return
        }
        try file.enqueue { [self] in
            for index in held.startIndex..<held.endIndex { try write(held.entry(index), from: held) }
        }
    }

    /// Appends a packet to the file, from the queue when this sequence writes there.
    private func put(_ bytes: [UInt8]) throws {
        if onQueue { try file.writeOnQueue(packet: bytes) } else { try file.write(packet: bytes) }
    }

    /// Encodes a value's instant (``PerfettoEventEncoder/encode(_:terminatingFlow:into:)``).
    func encode(_ value: ValueInstant, terminatingFlow: UInt64, into held: inout HeldPackets) -> HeldPackets.Entry {
        encoder.encode(value, terminatingFlow: terminatingFlow, into: &held)
    }

    /// Writes the packet of an event encoded ahead, with the flow ids that start at it.
    func write(_ entry: HeldPackets.Entry, from held: HeldPackets) throws {
        if entry.cleared { try clear() }
        let time = max(0, entry.time)
        // Perfetto rejects a snapshot older than the sequence's last one (its incremental
        // clock would keep the old base, shifting every later delta): after a clear the
        // clock restarts no earlier than it was, and an earlier event is written absolute.
        if clock == nil { try declareClock(at: max(time, clockFloor)) }
        var delta: UInt64?
        if let last = clock, time >= last {
            delta = UInt64(time - last)
            clock = time
            clockFloor = time
        }
        let id = self.id
        if onQueue {
            // Built in place in the queue's chunk: no packet buffer, no copy.
            try file.writeOnQueue { out in Self.packet(entry, from: held, id: id, time: time, delta: delta, into: &out) }
        } else {
            packet.removeAll()
            Self.packet(entry, from: held, id: id, time: time, delta: delta, into: &packet)
            try file.write(packet: packet.bytes)
        }
        eventCount += 1
    }

    /// A held event's TracePacket fields: its time (a delta on the incremental clock, or
    /// absolute on the trace clock when `delta` is nil), the sequence, its intern entries
    /// and its TrackEvent with the flows that start at it.
    private static func packet(_ entry: HeldPackets.Entry, from held: HeldPackets, id: UInt64, time: Int64, delta: UInt64?,
                               into out: inout ProtoWriter) {
        typealias P = PerfettoSchema.TracePacket
        if let delta {
            out.varint(P.timestamp, delta)
        } else {
            out.varint(P.timestamp, UInt64(time))
            out.varint(P.timestampClockID, PerfettoSchema.ClockSnapshot.boottime)
        }
        out.varint(P.trustedPacketSequenceID, id)
        out.varint(P.sequenceFlags, P.seqNeedsIncrementalState)
        held.withBytes(of: entry) { interned, body in
            if !interned.isEmpty { out.data(P.internedData, interned) }
            let start = out.beginMessage(P.trackEvent)
            out.append(body)
            held.forEachFlow(of: entry) { out.fixed64(PerfettoSchema.TrackEvent.flowIDs, $0) }
            out.endMessage(start)
        }
    }

    func describe(_ track: PerfettoTrack) throws {
        typealias T = PerfettoSchema.TrackDescriptor
        typealias P = PerfettoSchema.TracePacket
        if encoder.takeClear() { try clear() }
        packet.removeAll()
        packet.varint(P.trustedPacketSequenceID, id)
        packet.message(P.trackDescriptor) { d in
            d.varint(T.uuid, track.uuid)
            if let parent = track.parent { d.varint(T.parentUUID, parent) }
            if let name = track.name { d.string(T.name, name) }
            if let description = track.description { d.string(T.description, description) }
            if let process = track.process {
                d.message(T.process) { p in
                    p.varint(D.pid, process.pid)
                    p.string(D.processName, process.name)
                    p.string(D.processLabels, "Pipescope recording")
                }
            }
            if let unit = track.counterUnit {
                d.message(T.counter) { $0.string(PerfettoSchema.CounterDescriptor.unitName, unit) }
            }
            if track.explicitChildren { d.varint(T.childOrdering, T.explicitOrdering) }
            if let rank = track.rank { d.varint(T.siblingOrderRank, Int64(Int32(clamping: rank))) }
        }
        try file.write(descriptor: packet.bytes)
    }

    /// The sequence's clear (`SEQ_INCREMENTAL_STATE_CLEARED`): its intern tables start
    /// empty, and its packets' timestamps are on the incremental clock by default.
    private func clear() throws {
        typealias P = PerfettoSchema.TracePacket
        packet.removeAll()
        packet.varint(P.trustedPacketSequenceID, id)
        packet.varint(P.sequenceFlags, P.seqIncrementalStateCleared)
        packet.message(P.tracePacketDefaults) {
            $0.varint(PerfettoSchema.TracePacketDefaults.timestampClockID, PerfettoSchema.ClockSnapshot.incremental)
        }
        try put(packet.bytes)
        clock = nil
    }

    /// A ClockSnapshot: the incremental clock is the trace clock at `time`, and counts
    /// from there.
    private func declareClock(at time: Int64) throws {
        typealias P = PerfettoSchema.TracePacket
        typealias C = PerfettoSchema.ClockSnapshot.Clock
        packet.removeAll()
        packet.varint(P.trustedPacketSequenceID, id)
        packet.message(P.clockSnapshot) { snapshot in
            snapshot.message(PerfettoSchema.ClockSnapshot.clocks) {
                $0.varint(C.clockID, PerfettoSchema.ClockSnapshot.boottime)
                $0.varint(C.timestamp, UInt64(time))
            }
            snapshot.message(PerfettoSchema.ClockSnapshot.clocks) {
                $0.varint(C.clockID, PerfettoSchema.ClockSnapshot.incremental)
                $0.varint(C.timestamp, UInt64(time))
                $0.bool(C.isIncremental, true)
            }
        }
        try put(packet.bytes)
        clock = time
        clockFloor = time
    }
}
