/// SplitMix64: a tiny, fast, seedable generator whose whole state is one integer, so every randomized test
/// and every benchmark data set replays exactly from its seed. Not for cryptography.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let n = random.below(10)              // 0..<10
/// let x = Int.random(in: 1...6, using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (bound > 0); the modulo bias is negligible for tests and data sets.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// The first output of a generator seeded with `value`: a cheap way to derive independent seeds.
    public static func mix(_ value: UInt64) -> UInt64 {
        var random = SeededRandom(seed: value)
        return random.next()
    }
}
