/// One event of the Chrome trace event format, the JSON that Perfetto
/// (ui.perfetto.dev) and chrome://tracing open. Only the fields Pipescope uses; nil
/// fields are left out of the JSON.
///
/// ```swift
/// TraceEvent(.complete, name: "Map", category: "stage", pid: 4242, tid: 101,
///            ts: 12.5, dur: 3_000.25, args: ["stage": 3, "status": "finished"])
/// // {"name":"Map","cat":"stage","ph":"X","pid":4242,"tid":101,"ts":12.5,"dur":3000.25,"args":{…}}
/// ```
///
/// Timestamps and durations are microseconds, with nanoseconds as three decimals.
public struct TraceEvent: Encodable, Equatable, Sendable {
    /// The `ph` field: what kind of event.
    public enum Phase: String, Encodable, Sendable {
        /// A slice with its duration: a stage's life.
        case complete = "X"
        /// A point in time: a value, a request, a completion, a cancel, a lint.
        case instant = "i"
        /// The start of an arrow, bound to the slice enclosing it.
        case flowStart = "s"
        /// The end of an arrow (with `bp: "e"`, bound to the slice enclosing it).
        case flowEnd = "f"
        /// A counter sample: each argument is one series.
        case counter = "C"
        /// Names and sort order of processes and threads.
        case metadata = "M"
    }

    /// An instant's scope: its thread's track, or its process.
    public enum Scope: String, Encodable, Sendable {
        case thread = "t", process = "p"
    }

    public var name: String
    public var cat: String?
    public var ph: Phase
    public var pid: Int
    public var tid: Int?
    public var ts: Double?
    public var dur: Double?
    /// Ties a flow's start to its end.
    public var id: UInt64?
    /// "e": a flow end binds to the slice enclosing it rather than the next one.
    public var bp: String?
    /// An instant's scope.
    public var s: Scope?
    public var args: TraceArgs?

    // MARK: - Encoding

    private enum Field: String, CodingKey {
        case name, cat, ph, pid, tid, ts, dur, id, bp, s, args
    }

    /// Encodes the fields that are set, each with the container's concrete method for
    /// its type (the encoder's fast paths: no generic wrapping, no dynamic casts).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Field.self)
        try container.encode(name, forKey: .name)
        if let cat { try container.encode(cat, forKey: .cat) }
        try container.encode(ph.rawValue, forKey: .ph)
        try container.encode(pid, forKey: .pid)
        if let tid { try container.encode(tid, forKey: .tid) }
        if let ts { try container.encode(ts, forKey: .ts) }
        if let dur { try container.encode(dur, forKey: .dur) }
        if let id { try container.encode(id, forKey: .id) }
        if let bp { try container.encode(bp, forKey: .bp) }
        if let s { try container.encode(s.rawValue, forKey: .s) }
        if let args {
            var nested = container.nestedContainer(keyedBy: TraceArgs.Name.self, forKey: .args)
            try args.encode(into: &nested)
        }
    }

    public init(_ ph: Phase, name: String, category: String? = nil, pid: Int, tid: Int? = nil,
                ts: Double? = nil, dur: Double? = nil, id: UInt64? = nil, bindsEnclosing: Bool = false,
                scope: Scope? = nil, args: TraceArgs? = nil) {
        self.name = name
        self.cat = category
        self.ph = ph
        self.pid = pid
        self.tid = tid
        self.ts = ts
        self.dur = dur
        self.id = id
        self.bp = bindsEnclosing ? "e" : nil
        self.s = scope
        self.args = args
    }
}

/// A trace event's `args`: named values, in the order they were added.
///
/// ```swift
/// var args: TraceArgs = ["stage": 3]
/// args["value"] = "\"quoted\"\n"      // escaped by the JSON encoder, like every string
/// ```
public struct TraceArgs: Encodable, Equatable, Sendable, ExpressibleByDictionaryLiteral {
    public typealias Key = String
    public typealias Value = TraceValue

    public private(set) var entries: [(key: String, value: TraceValue)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, TraceValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Setting nil removes the entry; setting a new key appends it.
    public subscript(key: String) -> TraceValue? {
        get { entries.first { $0.key == key }?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        try encode(into: &container)
    }

    func encode(into container: inout KeyedEncodingContainer<Name>) throws {
        for (key, value) in entries {
            let name = Name(key)
            switch value {
            case .string(let s): try container.encode(s, forKey: name)
            case .int(let n): try container.encode(n, forKey: name)
            case .double(let d): try container.encode(d, forKey: name)
            case .bool(let b): try container.encode(b, forKey: name)
            }
        }
    }

    public static func == (lhs: TraceArgs, rhs: TraceArgs) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// One argument's value.
public enum TraceValue: Encodable, Equatable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let s): try container.encode(s)
        case .int(let n): try container.encode(n)
        case .double(let d): try container.encode(d)
        case .bool(let b): try container.encode(b)
        }
    }
}
