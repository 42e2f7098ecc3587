/// The `async` form of ``AggregateQuery/getAggregation(source:completion:)``.
///
/// ```swift
/// let count = try await db.collection("cities").count.getAggregation(source: .server).count
/// ```
extension AggregateQuery {
    public func getAggregation(source: AggregateSource) async throws -> AggregateQuerySnapshot {
        try await awaitValue { getAggregation(source: source, completion: $0) }
    }
}
