import CairnModel
import CairnLocalStore

/// The network boundary of the core (Firebase's `Datastore`): the two long-lived streams and the one-shot RPCs.
///
/// The real implementation speaks gRPC to Cloud Firestore; tests script it (`MockDatastore` in the spec tests).
/// Every completion and every stream delegate callback is called on the core's ``AsyncQueue``.
///
/// ```swift
/// let stream = datastore.makeWatchStream(delegate: remoteStore)
/// stream.start()                        // → delegate.watchStreamDidOpen()
/// stream.watch(targetData)              // → delegate.watchStreamDidChange(.targetChange(.added, [2], ...), ...)
/// ```
package protocol Datastore: AnyObject {
    /// The database the datastore talks to; bloom filters hash document names under it.
    var databaseID: DatabaseID { get }
    /// A new, closed watch (Listen) stream reporting to `delegate`.
    func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream
    /// A new, closed write stream reporting to `delegate`.
    func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream
    /// Reads documents by key (BatchGetDocuments): found documents and `noDocument` for missing ones, in the
    /// order of `keys`.
    func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void)
    /// Runs a query once on the server (RunQuery) and returns the matching documents.
    func runQuery(_ query: Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void)
    /// Runs the aggregations on the server over the results of `query` (RunAggregationQuery, with the query's
    /// ``Query/aggregateTarget``) and returns each aggregation's value keyed by its ``AggregateField/alias``;
    /// equal aggregations are computed once.
    func runAggregateQuery(
        _ query: Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void)
    /// Commits `mutations` atomically, inside the transaction `transactionID` when given.
    func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void)
    /// Starts a transaction and returns its id.
    func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void)
    /// Abandons the transaction `transactionID`; the answer does not matter.
    func rollback(transactionID: [UInt8])
}

/// The server's answer to a commit: the commit time and one result per mutation, in order.
package struct CommitResponse: Sendable, Hashable {
    package var commitVersion: Timestamp
    package var results: [MutationResult]

    package init(commitVersion: Timestamp, results: [MutationResult]) {
        self.commitVersion = commitVersion
        self.results = results
    }
}
