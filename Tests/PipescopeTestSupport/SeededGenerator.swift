/// A small deterministic generator (SplitMix64), so random inputs are the same every run.
///
/// ```swift
/// var random = SeededGenerator(seed: 42)
/// let roll = random.below(100)          // 0..<100, the same every run
/// let pick = [1, 2, 3].randomElement(using: &random)
/// ```
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` (`n` > 0).
    public mutating func below(_ n: UInt64) -> UInt64 { next() % n }
}
