import Foundation

/// A number a person sets in the environment (`PIPESCOPE_RETAIN_SECONDS=90`): read, or,
/// when it is not one the setting can take, the default with a sentence that names the
/// variable, what it holds, what would be accepted, and what is used instead. A bad
/// value is never ignored silently.
///
/// ```swift
/// let (seconds, problem) = EnvironmentNumber.read("PIPESCOPE_RETAIN_SECONDS", in: env, default: 60.0,
///                                                 minimum: 0, unit: "seconds")
/// if let problem { EnvironmentNumber.say(problem) }
/// // "PIPESCOPE_RETAIN_SECONDS=abc is not a number of seconds (expected 0 or more, for example 60); using 60"
/// ```
public enum EnvironmentNumber {
    /// `name`'s value in `environment` when it is a number at least `minimum` (more than
    /// it when `exclusive`); else `fallback` and what was wrong. Unset or empty: the
    /// default, no problem.
    public static func read<N: LosslessStringConvertible & Comparable & Sendable>(
        _ name: String, in environment: [String: String], default fallback: N, minimum: N, exclusive: Bool = false,
        unit: String
    ) -> (value: N, problem: String?) {
        guard let text = environment[name], !text.isEmpty else { return (fallback, nil) }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = N(trimmed), exclusive ? value > minimum : value >= minimum, isFinite(value) { return (value, nil) }
        let range = exclusive ? "more than \(shown(minimum))" : "\(shown(minimum)) or more"
        return (fallback, "\(name)=\(text) is not a number of \(unit) (expected \(range), for example \(shown(fallback))); "
                    + "using \(shown(fallback))")
    }

    /// A whole number of seconds without its ".0".
    private static func shown<N>(_ value: N) -> String {
        if let d = value as? Double, d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return "\(value)"
    }

    private static func isFinite<N>(_ value: N) -> Bool {
        (value as? Double).map(\.isFinite) ?? true
    }

    /// Says `problem` on standard error, as Pipescope says what it could not do.
    public static func say(_ problem: String) {
        FileHandle.standardError.write(Data("pipescope: \(problem)\n".utf8))
    }
}
