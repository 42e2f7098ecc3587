/// Firebase's reconnect delays (iOS `FIRRetryHelper`, `FPersistentConnection`): the first attempt after a
/// success is immediate; then 1 s, growing ×1.3 per failed attempt up to 30 s, each with jitter: the delay is
/// `0.3 × d + 0.7 × d × random` for a random number in 0..<1. A connection that lasted 30 s counts as a success
/// and starts the sequence again, as do `goOffline`/`goOnline` and a server's reset.
///
/// ```swift
/// var backoff = ReconnectBackoff()
/// backoff.nextDelay(random: 1)   // 0
/// backoff.nextDelay(random: 1)   // 1
/// backoff.nextDelay(random: 1)   // 1.3
/// backoff.signalSuccess()        // next: 0 again
/// ```
struct ReconnectBackoff: Equatable, Sendable {
    static let minDelay = 1.0
    static let maxDelay = 30.0
    static let multiplier = 1.3
    static let jitter = 0.7
    /// How long a connection must have lasted to count as a success.
    static let successfulConnectionDuration = 30.0

    private var lastWasSuccess = true
    private var currentDelay = 0.0

    /// The delay before the next attempt; `random` is in 0..<1.
    mutating func nextDelay(random: Double) -> Double {
        defer { lastWasSuccess = false }
        if lastWasSuccess { return 0 }
        currentDelay = currentDelay == 0 ? Self.minDelay : min(currentDelay * Self.multiplier, Self.maxDelay)
        let unit = min(max(random, 0), 1)
        return (1 - Self.jitter) * currentDelay + Self.jitter * currentDelay * unit
    }

    mutating func signalSuccess() {
        lastWasSuccess = true
        currentDelay = 0
    }
}
