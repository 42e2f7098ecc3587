/// Where an ``AggregateQuery`` gets its results: the server, the only source, as in Firebase.
///
/// The server's answer is presented unaltered: documents in the cache and local writes the server has not yet
/// acknowledged are not taken into account. Every aggregation is a round trip to the server, and fails with
/// `unavailable` when the server cannot be reached (the network disabled, or no connection).
///
/// ```swift
/// let snapshot = try await db.collection("cities").count.getAggregation(source: .server)
/// ```
public enum AggregateSource: UInt, Sendable, Hashable {
    /// Compute the aggregation on the server and download only its result.
    case server
}
