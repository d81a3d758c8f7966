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

/// A value delivered to a stage, as its instant shows it (``PerfettoEventEncoder``).
struct ValueInstant {
    var track: UInt64
    var time: Int64
    /// Whether the stage's life slice is still open ("value", else "value after end").
    var live: Bool
    var text: String
    /// The stage it mirrors (type erasure), if it is a mirror's copy.
    var mirroredFrom: NodeID?
    var thread: String
    var selfNanos: Int64
    var totalNanos: Int64
    /// The event's number, as the inspector gives it (0: unnumbered).
    var event: EventID = 0
}
