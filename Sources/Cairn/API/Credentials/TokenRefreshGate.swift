/// Serialises a credentials provider's refreshes: while one runs, every other caller waits for its result instead
/// of starting another (one request to the token endpoint however many streams start at once).
///
/// ```swift
/// let gate = TokenRefreshGate<Grant>()
/// let grant = try await gate.run { try await exchange() }   // concurrent callers share one exchange
/// ```
actor TokenRefreshGate<Value: Sendable> {
    private var running: Task<Value, any Error>?

    /// The result of the refresh running now, or of a new one made with `refresh`.
    func run(_ refresh: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let running { return try await running.value }
        let task = Task { try await refresh() }
        running = task
        defer { running = nil }
        return try await task.value
    }
}
