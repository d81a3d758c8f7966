/// Encodes TrackEvents for one ``PerfettoSequence``, with its intern tables: each event's
/// fields and the intern entries it made go into a ``HeldPackets``, to become a packet
/// now or later.
///
/// A struct the sequence holds, so that encoding an event is one access to the sequence's
/// state rather than one for each field.
///
/// ```swift
/// var encoder = PerfettoEventEncoder(interner: PerfettoInterner())
/// var held = HeldPackets()
/// let entry = encoder.encode(PerfettoEvent(.instant, track: 9, time: 5, name: "value"), into: &held)
/// ```
struct PerfettoEventEncoder {
    private(set) var interner: PerfettoInterner
    private var fields = ProtoWriter(capacity: 512)

    init(interner: PerfettoInterner) {
        self.interner = interner
    }

    mutating func encode(_ e: PerfettoEvent, into held: inout HeldPackets) -> HeldPackets.Entry {
        typealias F = PerfettoSchema.TrackEvent
        typealias A = PerfettoSchema.DebugAnnotation
        interner.resetIfFull()
        fields.removeAll()
        fields.varint(F.type, e.kind.rawValue)
        fields.varint(F.trackUUID, e.track)
        if let name = e.name { fields.varint(F.nameIID, interner.eventName(name)) }
        if let counter = e.counter { fields.varint(F.counterValue, counter) }
        if let location = e.location { fields.varint(F.sourceLocationIID, interner.location(location)) }
        for id in e.flows { fields.fixed64(F.flowIDs, id) }
        for id in e.terminatingFlows { fields.fixed64(F.terminatingFlowIDs, id) }
        for (name, value) in e.annotations {
            let nameIID = interner.annotationName(name)
            let start = fields.beginMessage(F.debugAnnotations)
            fields.varint(A.nameIID, nameIID)
            switch value {
            case .string(let text):
                if let iid = interner.stringValue(text) {
                    fields.varint(A.stringValueIID, iid)
                } else {
                    fields.string(A.stringValue, text)
                }
            case .int(let n): fields.varint(A.intValue, n)
            case .bool(let b): fields.bool(A.boolValue, b)
            }
            fields.endMessage(start)
        }
        let cleared = interner.cleared
        return held.append(time: e.time, cleared: cleared, interned: interner.takePending().interned, body: fields.bytes)
    }

    /// A value's instant, straight from its fields: what ``encode(_:into:)`` writes for
    /// the ``PerfettoEvent`` ``PerfettoWriter/value(_:on:track:live:mirroredFrom:)`` would make
    /// (values are most of a recording: they skip building one), with the arrow from its
    /// cause when `terminatingFlow` is not 0.
    mutating func encode(_ v: ValueInstant, terminatingFlow: UInt64, into held: inout HeldPackets) -> HeldPackets.Entry {
        typealias F = PerfettoSchema.TrackEvent
        typealias A = PerfettoSchema.DebugAnnotation
        interner.resetIfFull()
        fields.removeAll()
        fields.varint(F.type, PerfettoEvent.Kind.instant.rawValue)
        fields.varint(F.trackUUID, v.track)
        fields.varint(F.nameIID, interner.eventName(v.live ? "value" : "value after end"))
        if terminatingFlow != 0 { fields.fixed64(F.terminatingFlowIDs, terminatingFlow) }
        if v.event != 0 { intAnnotation(.event, Int64(bitPattern: v.event)) }
        if !v.text.isEmpty { stringAnnotation(.value, v.text) }
        if let source = v.mirroredFrom { intAnnotation(.mirroredFrom, Int64(source)) }
        if !v.thread.isEmpty { stringAnnotation(.thread, v.thread) }
        if v.selfNanos > 0 || v.totalNanos > 0 {
            intAnnotation(.selfNanos, v.selfNanos)
            intAnnotation(.totalNanos, v.totalNanos)
        }
        let cleared = interner.cleared
        return held.append(time: v.time, cleared: cleared, interned: interner.takePending().interned, body: fields.bytes)
    }

    /// A string annotation: the text's iid when it repeats, else the text.
    private mutating func stringAnnotation(_ name: PerfettoInterner.FixedName, _ text: String) {
        typealias A = PerfettoSchema.DebugAnnotation
        let start = fields.beginMessage(PerfettoSchema.TrackEvent.debugAnnotations)
        fields.varint(A.nameIID, interner.annotationName(name))
        if let iid = interner.stringValue(text) {
            fields.varint(A.stringValueIID, iid)
        } else {
            fields.string(A.stringValue, text)
        }
        fields.endMessage(start)
    }

    private mutating func intAnnotation(_ name: PerfettoInterner.FixedName, _ value: Int64) {
        let start = fields.beginMessage(PerfettoSchema.TrackEvent.debugAnnotations)
        fields.varint(PerfettoSchema.DebugAnnotation.nameIID, interner.annotationName(name))
        fields.varint(PerfettoSchema.DebugAnnotation.intValue, value)
        fields.endMessage(start)
    }

    /// Whether the tables were cleared (full, or new) since the last packet; for a packet
    /// that uses no interned data, which must still come after the clear is said.
    mutating func takeClear() -> Bool {
        interner.resetIfFull()
        return interner.takePending().cleared
    }
}
