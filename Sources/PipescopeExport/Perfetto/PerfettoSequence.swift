import PipescopeGraph

/// A debug annotation's value.
enum PerfettoValue {
    case string(String)
    case int(Int64)
    case bool(Bool)
}

/// One TrackEvent to write: a slice's begin or end, an instant or a counter sample.
struct PerfettoEvent {
    typealias Kind = PerfettoSchema.TrackEvent.Kind

    var kind: Kind
    var track: UInt64
    /// Nanoseconds (the recording's wall clock, since 1970).
    var time: Int64
    var name: String?
    var annotations: [(String, PerfettoValue)] = []
    /// Arrows starting (or passing) here, and arrows ending here.
    var flows: [UInt64] = []
    var terminatingFlows: [UInt64] = []
    var counter: Int64?
    var location: SourceLocation?

    init(_ kind: Kind, track: UInt64, time: Int64, name: String? = nil, annotations: [(String, PerfettoValue)] = []) {
        self.kind = kind
        self.track = track
        self.time = time
        self.name = name
        self.annotations = annotations
    }
}

/// One TrackDescriptor.
struct PerfettoTrack {
    var uuid: UInt64
    var parent: UInt64?
    var name: String?
    var description: String?
    /// Its place among its siblings (their parent orders children explicitly).
    var rank: Int?
    /// Orders its children by their rank.
    var explicitChildren = false
    var process: (pid: Int, name: String)?
    /// A counter track, with its unit's name.
    var counterUnit: String?

    init(uuid: UInt64, parent: UInt64? = nil, name: String? = nil) {
        self.uuid = uuid
        self.parent = parent
        self.name = name
    }
}

/// The exporter's one packet sequence (`trusted_packet_sequence_id`): turns events and
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
/// sets it equal to the trace clock; a time earlier than the last (the arrows hold
/// events back a little) is written absolute, on the trace clock (`timestamp_clock_id`
/// 6). Small deltas instead of 64-bit times make the compressed file about a third
/// smaller.
private typealias A = PerfettoSchema.DebugAnnotation
private typealias D = PerfettoSchema.ProcessDescriptor

final class PerfettoSequence {
    static let sequenceID: UInt64 = 0x5053   // "PS"

    /// Its `trusted_packet_sequence_id`.
    let id: UInt64
    let file: PerfettoFileWriter
    private var interner: PerfettoInterner
    private var event = ProtoWriter(capacity: 512)
    private var packet = ProtoWriter(capacity: 1024)
    private(set) var eventCount = 0
    /// The incremental clock's last time, nil until a ClockSnapshot declares it after the
    /// sequence's latest clear.
    private var clock: Int64?

    init(file: PerfettoFileWriter, id: UInt64 = PerfettoSequence.sequenceID, interner: PerfettoInterner = PerfettoInterner()) {
        self.file = file
        self.id = id
        self.interner = interner
    }

    /// Another sequence into the same file, with its own (empty) intern tables of the
    /// same bounds and its own clock.
    func sibling() -> PerfettoSequence {
        PerfettoSequence(file: file, id: id + 1,
                         interner: PerfettoInterner(maximumEntries: interner.maximumEntries, maximumBytes: interner.maximumBytes))
    }

    /// Times the intern tables were full and cleared.
    var internResets: Int { interner.resets }

    func write(_ e: PerfettoEvent) throws {
        typealias F = PerfettoSchema.TrackEvent
        interner.resetIfFull()
        event.removeAll()
        event.varint(F.type, e.kind.rawValue)
        event.varint(F.trackUUID, e.track)
        if let name = e.name { event.varint(F.nameIID, interner.eventName(name)) }
        if let counter = e.counter { event.varint(F.counterValue, counter) }
        if let location = e.location { event.varint(F.sourceLocationIID, interner.location(location)) }
        for id in e.flows { event.fixed64(F.flowIDs, id) }
        for id in e.terminatingFlows { event.fixed64(F.terminatingFlowIDs, id) }
        for (name, value) in e.annotations {
            let nameIID = interner.annotationName(name)
            event.message(F.debugAnnotations) { a in
                a.varint(A.nameIID, nameIID)
                switch value {
                case .string(let text):
                    if let iid = interner.stringValue(text) { a.varint(A.stringValueIID, iid) } else { a.string(A.stringValue, text) }
                case .int(let n): a.varint(A.intValue, n)
                case .bool(let b): a.bool(A.boolValue, b)
                }
            }
        }
        let (interned, cleared) = interner.takePending()
        if cleared { try clear() }
        let time = max(0, e.time)
        if clock == nil { try declareClock(at: time) }
        typealias P = PerfettoSchema.TracePacket
        packet.removeAll()
        if let last = clock, time >= last {
            packet.varint(P.timestamp, UInt64(time - last))
            clock = time
        } else {
            packet.varint(P.timestamp, UInt64(time))
            packet.varint(P.timestampClockID, PerfettoSchema.ClockSnapshot.boottime)
        }
        packet.varint(P.trustedPacketSequenceID, id)
        packet.varint(P.sequenceFlags, P.seqNeedsIncrementalState)
        if !interned.isEmpty { packet.message(P.internedData, encoded: interned) }
        packet.message(P.trackEvent, encoded: event.bytes)
        try file.write(packet: packet.bytes)
        eventCount += 1
    }

    func describe(_ track: PerfettoTrack) throws {
        typealias T = PerfettoSchema.TrackDescriptor
        typealias P = PerfettoSchema.TracePacket
        interner.resetIfFull()
        let (_, cleared) = interner.takePending()
        if cleared { try clear() }
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
        try file.write(packet: packet.bytes)
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
        try file.write(packet: packet.bytes)
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
        try file.write(packet: packet.bytes)
        clock = time
    }
}
