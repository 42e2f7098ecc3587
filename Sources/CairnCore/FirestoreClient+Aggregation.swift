import CairnModel

/// Aggregation queries (count, sum, average), as Firebase runs them: on the server only. The cache is never
/// consulted and local writes not yet acknowledged are not counted (Firebase's `AggregateSource.server`).
///
/// Offline they fail with `unavailable`, as Firebase's do:
/// - with the network disabled (`disableNetwork()`), at once, without a request: "Failed to get result from
///   server." (Firebase's `RemoteStore::RunAggregateQuery`), followed by what to do;
/// - with the network enabled but the server unreachable, the RPC fails with gRPC's `unavailable` and its
///   message, passed on unchanged (Firebase's `Datastore::RunAggregateQuery`). Aggregations are not retried.
///
/// ```swift
/// client.runAggregateQuery(query, aggregates: [.count, .sum(pages)]) { result in
///     // .success(["count": .integer(2), "sum_pages": .integer(150)])
/// }
/// ```
extension FirestoreClient {
    /// Runs `aggregates` over the results of `query` on the server; `completion` gets each aggregation's value
    /// keyed by its alias, or the error.
    package func runAggregateQuery(
        _ query: Query, aggregates: [AggregateField],
        completion: @escaping @Sendable (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { completion(.failure(Self.terminatedError)) } }
            remoteStore.runAggregateQuery(query, aggregates: aggregates) { [weak self] result in
                self?.deliver { completion(result) }
            }
        }
    }
}

extension RemoteStore {
    /// Firebase's error for an aggregation while the network is disabled, with what to do about it.
    package static let aggregationOfflineError = FirestoreErrorCode(
        .unavailable,
        "Failed to get result from server. Aggregations run on the server only, and the network is disabled: "
            + "call enableNetwork() and run the aggregation again.")

    /// Sends the aggregation to the datastore, or fails it at once while the network is disabled. On the queue.
    package func runAggregateQuery(
        _ query: Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        verifyOnQueue()
        guard canUseNetwork else { return completion(.failure(Self.aggregationOfflineError)) }
        datastore.runAggregateQuery(query, aggregates: aggregates, completion: completion)
    }
}
