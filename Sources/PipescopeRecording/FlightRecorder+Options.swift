import Foundation
import PipescopeWire

extension FlightRecorder {
    /// Where the flight recorder keeps a program's recent events, and how much of them:
    /// at most ``budget`` bytes on disk, and what happened in the last ``window`` seconds
    /// (more when the budget allows a little more; less when the budget is reached first:
    /// the budget always wins).
    ///
    /// ```swift
    /// Pipescope.start(flightRecorder: .init(directory: "/var/tmp/app-flight",
    ///                                       budget: 16 << 20, window: 300))
    /// ```
    /// In the environment: `PIPESCOPE_FLIGHT=DIR`, `PIPESCOPE_FLIGHT_BUDGET=64MB`,
    /// `PIPESCOPE_FLIGHT_WINDOW=10m` (see ``fromEnvironment(_:)``).
    public struct Options: Sendable, Equatable {
        /// The directory of the segment files (made if missing).
        public var directory: String
        /// The most bytes the segments may take on disk, all of them counted, the one being
        /// written too. Default 64 MiB; at least ``minimumBudget``.
        public var budget: Int
        /// Seconds of events to keep: an older segment is deleted once its newest event
        /// is older than this. Default 600 (10 minutes).
        public var window: Double

        public static let defaultBudget = 64 << 20
        public static let defaultWindow: Double = 600
        /// The smallest budget that holds a snapshot and some events: 16 KiB.
        public static let minimumBudget = 16 << 10

        public init(directory: String, budget: Int = Options.defaultBudget, window: Double = Options.defaultWindow) {
            self.directory = directory
            self.budget = budget
            self.window = window
        }

        /// The options `PIPESCOPE_FLIGHT`, `PIPESCOPE_FLIGHT_BUDGET` and
        /// `PIPESCOPE_FLIGHT_WINDOW` ask for, or nil without `PIPESCOPE_FLIGHT`. A setting
        /// that cannot be read is said on standard error, and its default is used.
        public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
            -> Options? {
            let (options, problems) = parse(environment)
            for problem in problems { FlightRecorder.say(problem) }
            return options
        }

        /// ``fromEnvironment(_:)`` without the saying: the options, and what was wrong.
        package static func parse(_ environment: [String: String]) -> (Options?, [String]) {
            guard let directory = environment["PIPESCOPE_FLIGHT"], !directory.isEmpty else { return (nil, []) }
            var options = Options(directory: directory)
            var problems: [String] = []
            if let text = environment["PIPESCOPE_FLIGHT_BUDGET"], !text.isEmpty {
                if let bytes = size(text) {
                    options.budget = bytes
                } else {
                    problems.append("PIPESCOPE_FLIGHT_BUDGET=\(text) is not a size (expected a number of bytes with KB, MB "
                        + "or GB, for example 64MB); using \(describe(bytes: defaultBudget))")
                }
            }
            if let text = environment["PIPESCOPE_FLIGHT_WINDOW"], !text.isEmpty {
                if let seconds = duration(text) {
                    options.window = seconds
                } else {
                    problems.append("PIPESCOPE_FLIGHT_WINDOW=\(text) is not a duration (expected a number with s, m "
                        + "or h, for example 10m or 90s); using 10m")
                }
            }
            let (checked, more) = options.checked()
            return (checked, problems + more)
        }

        /// These options with a budget and window that can work, and what was changed.
        package func checked() -> (Options, [String]) {
            var options = self
            var problems: [String] = []
            if budget < Self.minimumBudget {
                problems.append("a flight recorder budget of \(budget) bytes is too small for a snapshot and some "
                    + "events; using the minimum, \(Self.describe(bytes: Self.minimumBudget))")
                options.budget = Self.minimumBudget
            }
            if !(window > 0 && window.isFinite) {
                problems.append("a flight recorder window of \(window) s is not a positive duration; using 10m")
                options.window = Self.defaultWindow
            }
            return (options, problems)
        }

        /// "64MB", "512 KiB", "1g", "65536": bytes (K, M and G are powers of 1024).
        package static func size(_ text: String) -> Int? {
            let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
            let digits = trimmed.prefix { $0.isNumber || $0 == "." }
            var unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
            guard let number = Double(digits), number.isFinite, number >= 0 else { return nil }
            if unit.hasSuffix("ib") { unit = String(unit.dropLast(2)) } else if unit.hasSuffix("b") { unit = String(unit.dropLast()) }
            let scale: Double
            switch unit {
            case "": scale = 1
            case "k": scale = 1024
            case "m": scale = 1024 * 1024
            case "g": scale = 1024 * 1024 * 1024
            default: return nil
            }
            let bytes = number * scale
            guard bytes < Double(Int.max / 2) else { return nil }
            return Int(bytes)
        }

        /// "10m", "90s", "1h", "500ms", "2.5": seconds.
        package static func duration(_ text: String) -> Double? {
            let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
            let digits = trimmed.prefix { $0.isNumber || $0 == "." }
            let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
            guard let number = Double(digits), number.isFinite else { return nil }
            switch unit {
            case "", "s", "sec", "secs", "second", "seconds": return number
            case "ms": return number / 1000
            case "m", "min", "mins", "minute", "minutes": return number * 60
            case "h", "hour", "hours": return number * 3600
            default: return nil
            }
        }

        /// Bytes for a person: "64 MiB", "16 KiB", "900 bytes".
        package static func describe(bytes: Int) -> String {
            if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
            if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
            return "\(bytes) bytes"
        }
    }
}
