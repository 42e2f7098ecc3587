/// Firebase's push ids (`childByAutoId`, REST POST): 8 characters of the millisecond timestamp and 12 random
/// characters, from an alphabet in ASCII order, so ids sort in creation order. Two ids in one millisecond keep
/// the same random part incremented by one.
///
/// ```swift
/// var generator = PushIDGenerator()
/// generator.next(timestamp: 1_700_000_000_000)   // "-NjJ...": 20 characters
/// ```
struct PushIDGenerator: Sendable {
    private static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
    private var lastTimestamp: Int64 = -1
    private var lastRandom: [Int] = []

    mutating func next(timestamp: Int64) -> String {
        if timestamp == lastTimestamp, !lastRandom.isEmpty {
            var index = lastRandom.count - 1
            while index >= 0, lastRandom[index] == 63 {
                lastRandom[index] = 0
                index -= 1
            }
            if index >= 0 { lastRandom[index] += 1 }
        } else {
            lastRandom = (0..<12).map { _ in Int.random(in: 0..<64) }
        }
        lastTimestamp = timestamp
        var time = max(timestamp, 0)
        var prefix: [Character] = []
        for _ in 0..<8 {
            prefix.append(Self.alphabet[Int(time % 64)])
            time /= 64
        }
        return String(prefix.reversed()) + String(lastRandom.map { Self.alphabet[$0] })
    }
}
