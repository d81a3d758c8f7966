/// A benchmark's input, made the first time a benchmark asks for it: registering every
/// benchmark then builds nothing, so a filtered run pays only for what it runs, and the
/// inspector-memory benchmark run alone (`--filter "inspector/.*"`) reads its resident
/// figure in a process no other fixture has used. (Benchmarks run one at a time.)
final class Fixture<Value>: @unchecked Sendable {
    private var made: Value?
    private let make: () -> Value

    init(_ make: @escaping () -> Value) { self.make = make }

    var value: Value {
        if let made { return made }
        let value = make()
        made = value
        return value
    }
}
