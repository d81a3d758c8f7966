import PipescopeGraph

/// Which values get text, when, and on which thread.
///
/// **The rule: no user value outlives its callback.** The tap never stores a delivered
/// value or error. What it keeps is text made on the delivering thread, inside the
/// callback, or a copy of a standard-library scalar whose text needs no user code. So the
/// program's objects are released exactly when they would be without Pipescope, and
/// their `description` and `deinit` run on the program's own threads only.
///
/// The policy, per value (decided under the registry lock from plain flags; any text is
/// made after the lock is released):
///
/// | value | default (`sampled`) | watched stage, or program paused | `none` |
/// | --- | --- | --- | --- |
/// | `Int`…, `UInt`…, `Double`, `Float`, `Bool`, `String`, `Void` | every value, copied as data, formatted at the flush | every value | no text |
/// | anything else | the first value per stage per flush window (25 ms), `String(describing:)` on the delivering thread | every value, described | no text |
///
/// So a stage receiving a million structs a second pays for one description every
/// 25 ms; the other values in that window carry no text, and the inspector says so.
/// Texts are cut to ``maxLength`` characters, on one line, ending in `…` when cut.
/// Errors are described once, when the failure is delivered.
enum ValueCapture {
    static let maxLength = 200

    /// What the tap records for one value.
    enum Decision {
        /// No text.
        case bare
        /// The scalar, copied.
        case scalar
        /// A description, made after the lock is released.
        case describe
    }

    /// The switches the inspector controls (`SetCapture` commands) and the window.
    struct Policy {
        /// False: no value text at all.
        var enabled = true
        /// Stages whose every value is described.
        var watched = Set<NodeID>()
        /// The flush window; bumped at every drain, so a sampled stage is described again
        /// in the next one.
        var window: UInt32 = 1

        /// The decision for a value of stage `node`, last described in window
        /// `described`. `paused`: the gate is closed, so the user is stepping and wants
        /// every value.
        @inline(__always)
        func decide(node: NodeID, described: UInt32, isScalar: Bool, paused: Bool) -> Decision {
            guard enabled else { return .bare }
            if isScalar { return .scalar }
            if paused || described != window || (!watched.isEmpty && watched.contains(node)) { return .describe }
            return .bare
        }
    }

    /// `String(describing:)`, cut to one line of at most ``maxLength`` characters. Runs
    /// user code (`description`): call it only on the thread that delivered the value.
    static func describe(_ value: Any) -> String {
        clip(String(describing: value))
    }

    /// One line, at most ``maxLength`` characters, with an ellipsis when cut.
    static func clip(_ text: String) -> String {
        var line = text
        if line.utf8.count > maxLength || line.contains(where: \.isNewline) {
            line = line.replacingOccurrences(of: "\r\n", with: "⏎").replacingOccurrences(of: "\n", with: "⏎")
            if line.count > maxLength { line = String(line.prefix(maxLength - 1)) + "…" }
        }
        return line
    }
}

/// A value of a standard-library type whose text is plain data: copying it keeps no
/// user object, and formatting it later, on the flush thread, runs no user code.
enum ScalarValue {
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case float(Float)
    case bool(Bool)
    case string(String)
    case void

    /// The scalar for `value`, or nil when `T` is not one of these types. A few pointer
    /// comparisons of type metadata; no dynamic casts.
    @inline(__always)
    init?<T>(_ value: T) {
        if T.self == Int.self { self = .int(Int64(unsafeBitCast(value, to: Int.self))) }
        else if T.self == String.self { self = .string(unsafeBitCast(value, to: String.self)) }
        else if T.self == Double.self { self = .double(unsafeBitCast(value, to: Double.self)) }
        else if T.self == Bool.self { self = .bool(unsafeBitCast(value, to: Bool.self)) }
        else if T.self == Int64.self { self = .int(unsafeBitCast(value, to: Int64.self)) }
        else if T.self == Int32.self { self = .int(Int64(unsafeBitCast(value, to: Int32.self))) }
        else if T.self == Int16.self { self = .int(Int64(unsafeBitCast(value, to: Int16.self))) }
        else if T.self == Int8.self { self = .int(Int64(unsafeBitCast(value, to: Int8.self))) }
        else if T.self == UInt.self { self = .uint(UInt64(unsafeBitCast(value, to: UInt.self))) }
        else if T.self == UInt64.self { self = .uint(unsafeBitCast(value, to: UInt64.self)) }
        else if T.self == UInt32.self { self = .uint(UInt64(unsafeBitCast(value, to: UInt32.self))) }
        else if T.self == UInt16.self { self = .uint(UInt64(unsafeBitCast(value, to: UInt16.self))) }
        else if T.self == UInt8.self { self = .uint(UInt64(unsafeBitCast(value, to: UInt8.self))) }
        else if T.self == Float.self { self = .float(unsafeBitCast(value, to: Float.self)) }
        else if T.self == Void.self { self = .void }
        else { return nil }
    }

    /// The text the inspector shows, as `String(describing:)` would print it.
    var text: String {
        switch self {
        case .int(let v): return String(v)
        case .uint(let v): return String(v)
        case .double(let v): return String(describing: v)
        case .float(let v): return String(describing: v)
        case .bool(let v): return v ? "true" : "false"
        case .string(let s): return ValueCapture.clip(s)
        case .void: return "()"
        }
    }
}
