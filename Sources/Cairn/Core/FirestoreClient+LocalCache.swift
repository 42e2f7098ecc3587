import CairnModel
import LocalStore

/// A query answered by the local cache alone (Firebase's `FirestoreClient::GetDocumentsFromLocalCache`): the
/// public API's `getDocuments(source: .cache)`. The API applies the other `Source` rules itself, over a listen.
///
/// ```swift
/// client.getDocumentsFromLocalCache(query: query) { result in
///     // .success(snapshot): the cached results, possibly none, with isFromCache == true
/// }
/// ```
extension FirestoreClient {
    /// The query's result from the cache, possibly empty; never an error for a missing result.
    func getDocumentsFromLocalCache(
        query: CairnModel.Query, completion: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) {
        run({ [self] () throws -> ViewSnapshot in
            let result = try localStore.executeQuery(query, usePreviousResults: true)
            let view = View(query: query, remoteKeys: result.remoteKeys)
            let changes = view.computeDocumentChanges(SyncEngine.keyed(result.documents))
            guard let snapshot = view.applyChanges(changes, limboResolutionEnabled: false).snapshot else {
                preconditionFailure("a new view always produces a first snapshot")
            }
            return snapshot
        }, completion: completion)
    }
}
