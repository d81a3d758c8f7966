import PipescopeGraph

/// An event as the hot path records it: 64 bytes of plain data, and never a user object.
///
/// Every value copies one into the buffer, so it holds no reference at all (copying it
/// is a `memcpy`, with no retain or release): a text or a new stage's node info sits in
/// the buffer's side arrays and the event holds its index. Whatever those hold is ours or
/// the standard library's (`String`s, node info we built), so keeping it until the flush
/// extends no user object's lifetime, and formatting it there runs no user code.
package struct RawEvent {
    /// What `bits` holds.
    enum Payload: UInt8 {
        case none
        /// The index of a subscribe's new stage in the buffer's `stages`.
        case info
        /// The index of words already made on the recording thread (a value's or an
        /// error's description, an owner's name, a broken contract) in `texts`.
        case text
        /// The index of a value that is a `String` in `texts`: cut to length at the flush.
        case string
        /// Values whose text needs no user code, kept as their bits, and passed on as
        /// numbers (``EventValue``): formatted only where they are shown (see ``ValueCapture``).
        case int, uint, double, float, bool, void
    }

    var node: NodeID
    /// When it happened, in ``eventTicks()``.
    var time: Int64
    /// The demand's bit pattern or the other stage, as the kind's ``EventKind/payload`` says.
    private var word: UInt64
    var bits: UInt64 = 0
    /// The event this one happened because of (``StageEvent/causedBy``), 0 for none.
    var causedBy: EventID = 0
    /// A value's delivery, in ticks: in the receiving operator's own code, and in all.
    var selfTicks: Int64 = 0
    var totalTicks: Int64 = 0
    /// ``ThreadDirectory``'s number for the thread it happened on; 0 unknown.
    var thread: UInt32 = 0
    private var kindRaw: UInt8
    private var causeRaw: UInt8
    var payload: Payload = .none

    package init(kind: EventKind, node: NodeID, time: Int64, demand: Int64 = 0, other: NodeID = 0,
         cause: CancelCause? = nil) {
        self.node = node
        self.time = time
        word = demand != 0 ? UInt64(bitPattern: demand) : other
        kindRaw = kind.rawValue
        causeRaw = cause?.code ?? 0
    }

    var kind: EventKind {
        get { EventKind(rawValue: kindRaw) ?? .unknown }
        set { kindRaw = newValue.rawValue }
    }

    var cause: CancelCause? { CancelCause(code: causeRaw) }

    /// Sets a scalar payload: the value's type, and its bits.
    @inline(__always)
    mutating func setScalar(_ scalar: Scalar) {
        payload = scalar.payload
        bits = scalar.bits
    }

    /// The domain's event numbered `id`, its time in wall-clock nanoseconds from `clock`,
    /// reading texts and new stages from `buffers` and thread names from `threads`
    /// (indexed by ``thread``). `nodes` receives a subscribe's node info, made here, its
    /// ``NodeInfo/createdNanos`` this event's time.
    package func stageEvent(id: EventID, clock: TickClock.Anchor, buffers: borrowing EventRing.Buffers,
                            threads: [String], nodes: inout [NodeInfo]) -> StageEvent {
        let kind = self.kind
        var event = StageEvent(kind, node: node, time: clock.wallNanos(ofTicks: time), cause: cause)
        event.id = id
        let carries = kind.payload
        if carries.caused {
            event.causedBy = causedBy < id ? causedBy : 0
            if Int(thread) < threads.count { event.thread = threads[Int(thread)] }
        }
        if carries.timed, totalTicks > 0 {
            event.selfNanos = clock.nanos(ofTicks: selfTicks)
            event.totalNanos = clock.nanos(ofTicks: totalTicks)
        }
        switch carries.field {
        case .demand: event.demand = Demand(wire: Int64(bitPattern: word))
        case .other: event.other = word
        case .cause, .none: break
        }
        switch payload {
        case .none: break
        case .info:
            // A stage made on the program's thread left its creation time to be its
            // subscribe's, in the same wall clock.
            nodes.append(buffers.stages[Int(bits)].nodeInfo(id: node, createdNanos: event.time, threads: threads))
        case .text: event.text = buffers.texts[Int(bits)]
        case .string: event.text = ValueCapture.clip(buffers.texts[Int(bits)])
        // Scalars stay numbers: their words are made by whatever shows them.
        case .int: event.value = .int(Int64(bitPattern: bits))
        case .uint: event.value = .uint(bits)
        case .double: event.value = .double(Double(bitPattern: bits))
        case .float: event.value = .float(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
        case .bool: event.value = .bool(bits != 0)
        case .void: event.value = .void
        }
        return event
    }
}

/// A value of a standard-library type whose text is plain data: copying its bits keeps
/// no user object, and formatting it later, on the flush thread, runs no user code.
struct Scalar {
    var payload: RawEvent.Payload
    var bits: UInt64

    /// The scalar for `value`, or nil when `T` is not a number, `Bool` or `Void`
    /// (`String`s are kept whole, in the buffer's texts). A few pointer comparisons of
    /// type metadata; no dynamic casts.
    @inline(__always)
    package init?<T>(_ value: T) {
        if T.self == Int.self { self.init(.int, UInt64(bitPattern: Int64(unsafeBitCast(value, to: Int.self)))) }
        else if T.self == Double.self { self.init(.double, unsafeBitCast(value, to: Double.self).bitPattern) }
        else if T.self == Bool.self { self.init(.bool, unsafeBitCast(value, to: Bool.self) ? 1 : 0) }
        else if T.self == Int64.self { self.init(.int, UInt64(bitPattern: unsafeBitCast(value, to: Int64.self))) }
        else if T.self == Int32.self { self.init(.int, UInt64(bitPattern: Int64(unsafeBitCast(value, to: Int32.self)))) }
        else if T.self == Int16.self { self.init(.int, UInt64(bitPattern: Int64(unsafeBitCast(value, to: Int16.self)))) }
        else if T.self == Int8.self { self.init(.int, UInt64(bitPattern: Int64(unsafeBitCast(value, to: Int8.self)))) }
        else if T.self == UInt.self { self.init(.uint, UInt64(unsafeBitCast(value, to: UInt.self))) }
        else if T.self == UInt64.self { self.init(.uint, unsafeBitCast(value, to: UInt64.self)) }
        else if T.self == UInt32.self { self.init(.uint, UInt64(unsafeBitCast(value, to: UInt32.self))) }
        else if T.self == UInt16.self { self.init(.uint, UInt64(unsafeBitCast(value, to: UInt16.self))) }
        else if T.self == UInt8.self { self.init(.uint, UInt64(unsafeBitCast(value, to: UInt8.self))) }
        else if T.self == Float.self { self.init(.float, UInt64(unsafeBitCast(value, to: Float.self).bitPattern)) }
        else if T.self == Void.self { self.init(.void, 0) }
        else { return nil }
    }

    private init(_ payload: RawEvent.Payload, _ bits: UInt64) {
        self.payload = payload
        self.bits = bits
    }
}
