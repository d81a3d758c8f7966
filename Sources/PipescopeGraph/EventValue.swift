/// What an event says in words, kept as the tap recorded it: words already made (a
/// failure, a described value, an owner's name), or a scalar value kept as its number,
/// whose words are made only when something shows them (``text``).
///
/// The probe's flush and the inspector's decoding move numbers; the event log, the detail
/// pane and the exports call ``text`` for the few events they show. 16 bytes, the size of
/// a `String` in its place in ``StageEvent``.
///
/// ```swift
/// EventValue.int(42).text                  // "42"
/// EventValue.double(0.1).text              // "0.1", as Swift describes a Double
/// EventValue.bool(true).text               // "true"
/// EventValue(text: "Failure(timeout)").text  // "Failure(timeout)"
/// ```
public enum EventValue: Sendable {
    /// No words: not a value, or a value that was not described.
    case none
    /// Words made when the event was recorded. Never empty (see ``init(text:)``).
    case text(String)
    /// An `Int`, `Int64`, `Int32`, `Int16` or `Int8` value.
    case int(Int64)
    /// A `UInt`, `UInt64`, `UInt32`, `UInt16` or `UInt8` value.
    case uint(UInt64)
    case double(Double)
    case float(Float)
    case bool(Bool)
    /// A `Void` value: "()".
    case void

    /// `text`, or ``none`` when it is empty, so an empty text and no text are one value.
    @inlinable
    public init(text: String) {
        self = text.isEmpty ? .none : .text(text)
    }

    /// The words shown for it: the same words the value's own `description` gives.
    public var text: String {
        switch self {
        case .none: return ""
        case .text(let s): return s
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .double(let v): return String(describing: v)
        case .float(let v): return String(describing: v)
        case .bool(let v): return v ? "true" : "false"
        case .void: return "()"
        }
    }

    /// Whether it says anything (``text`` is not empty).
    @inlinable
    public var isEmpty: Bool {
        if case .none = self { return true }
        if case .text(let s) = self { return s.isEmpty }
        return false
    }

    /// A scalar: kept as a number, its words made on demand.
    @inlinable
    public var isScalar: Bool {
        switch self {
        case .none, .text: return false
        case .int, .uint, .double, .float, .bool, .void: return true
        }
    }
}

// Two values are equal when they show the same words: a recording of version 3 carries
// "42" where version 4 carries 42, and an event is the same event either way. Two
// numbers of one kind compare by their bits, without making words.
extension EventValue: Hashable {
    public static func == (a: EventValue, b: EventValue) -> Bool {
        switch (a, b) {
        case (.none, .none), (.void, .void): return true
        case let (.text(x), .text(y)): return x == y
        case let (.int(x), .int(y)): return x == y
        case let (.uint(x), .uint(y)): return x == y
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.float(x), .float(y)): return x.bitPattern == y.bitPattern
        case let (.bool(x), .bool(y)): return x == y
        default: return a.text == b.text
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}
