import ArgumentParser

/// A whole number from 1 up (an event number, a stage id) as typed. The parser takes any
/// text for it, so that a wrong one is refused by the command in words that name its
/// option and what it takes (``checked(_:takes:example:)``), not with the parser's
/// "the value 'abc' is invalid"; and, parsed unconditionally, `-3` is a number to refuse,
/// not a missing value.
///
/// ```swift
/// @Option(name: .customLong("at"), parsing: .unconditional) var at: WholeNumberArgument?
/// let k = try at?.checked("--at", takes: "an event number", example: "120")
/// ```
struct WholeNumberArgument: ExpressibleByArgument, Sendable {
    let text: String

    init?(argument: String) { text = argument }

    /// The number; nil when the text is not a whole number from 1 up.
    var value: UInt64? { UInt64(text).flatMap { $0 > 0 ? $0 : nil } }

    /// The number, or an error that names `option`, says what it takes and gives an example.
    func checked(_ option: String, takes what: String, example: String) throws -> UInt64 {
        guard let value else {
            throw ValidationError("\(option) takes \(what), a whole number from 1 up (got \(text)); "
                + "for example \(option) \(example)")
        }
        return value
    }
}
