import CairnModel
import CairnLocalStore

/// A query answered by the local cache alone (Firebase's `FirestoreClient::GetDocumentsFromLocalCache`): the
/// public API's `getDocuments(source: .cache)`. The API applies the other `Source` rules itself, over a listen.
///
/// ```swift
/// client.getDocumentsFromLocalCache(query: query) { result in
///     // .success(snapshot): the cached results, possibly none, with isFromCache == true
/// }
/// ```
extension FirestoreClient {
    /// The document as the cache has it (Firebase's `FirestoreClient::GetDocumentFromLocalCache`): a found
    /// document, a `noDocument` tombstone when the cache knows it does not exist, or `nil` when the cache knows
    /// nothing about it.
    package func getDocumentFromLocalCache(
        key: DocumentKey, completion: @escaping @Sendable (Result<Document?, FirestoreErrorCode>) -> Void
    ) {
        run({ [self] in try localStore.localDocument(key) }, completion: completion)
    }

    /// The query's result from the cache, possibly empty; never an error for a missing result.
    package func getDocumentsFromLocalCache(
        query: Query, completion: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
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
