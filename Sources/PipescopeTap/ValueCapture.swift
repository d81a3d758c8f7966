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
/// | `Int`…, `UInt`…, `Double`, `Float`, `Bool`, `String`, `Void` | every value, copied as data (``Scalar``, or the `String`); a scalar travels as a number, its words made where it is shown | every value | no text |
/// | anything else | the first value per stage per flush window (``FlushInterval``, 25 ms), `String(describing:)` on the delivering thread | every value, described | no text |
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
