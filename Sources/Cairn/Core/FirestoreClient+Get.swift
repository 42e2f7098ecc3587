import CairnModel
import LocalStore
import Synchronization

/// Where a one-time read takes its answer from (Firebase's `FirestoreSource`).
enum GetSource: Sendable, Equatable {
    /// The server when online, else the cache.
    case `default`
    /// The server only: an `unavailable` error when offline.
    case server
    /// The cache only.
    case cache
}

/// One-time reads with a source (Firebase's `DocumentReference::GetDocument`, `Query::GetDocuments` and
/// `FirestoreClient::GetDocumentFromLocalCache` / `GetDocumentsFromLocalCache`).
///
/// ```swift
/// client.getDocument(key: key, source: .cache) { result in
///     // .failure(unavailable) when the cache knows nothing about the document
/// }
/// ```
extension FirestoreClient {
    static let documentNotInCacheMessage =
        "Failed to get document from cache. (However, this document may exist on the server. Run again without "
        + "setting source to FirestoreSourceCache to attempt to retrieve the document from the server.)"
    static let clientOfflineMessage = "Failed to get document because the client is offline."
    static let documentOnlyInCacheMessage =
        "Failed to get document from server. (However, this document does exist in the local cache. Run again "
        + "without setting source to FirestoreSourceServer to retrieve the cached document.)"
    static let documentsOnlyInCacheMessage =
        "Failed to get documents from server. (However, these documents may exist in the local cache. Run again "
        + "without setting source to FirestoreSourceServer to retrieve the cached documents.)"

    /// The document as the cache knows it: a snapshot of one document (found, or known deleted), from the cache.
    /// Fails with `unavailable` when the cache knows nothing about it.
    func getDocumentFromLocalCache(
        key: DocumentKey, completion: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) {
        run({ [self] () throws -> ViewSnapshot in
            let query = CairnModel.Query(path: key.path)
            guard let document = try localStore.localDocument(key) else {
                throw FirestoreErrorCode(.unavailable, Self.documentNotInCacheMessage)
            }
            var documents = DocumentSet(query: query)
            if document.exists { documents.insert(document) }
            return ViewSnapshot.initial(
                query: query, documents: documents, mutatedKeys: document.hasLocalMutations ? [key] : [],
                isFromCache: true, excludesMetadataChanges: false, hasCachedResults: false)
        }, completion: completion)
    }

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

    /// Reads one document from `source`. With `.default` and `.server` it listens once, waiting for the server
    /// while the client may be online; a document neither cached nor reachable is an `unavailable` error.
    func getDocument(
        key: DocumentKey, source: GetSource,
        completion: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) {
        if source == .cache { return getDocumentFromLocalCache(key: key, completion: completion) }
        listenOnce(query: CairnModel.Query(path: key.path)) { result in
            completion(result.flatMap { snapshot in
                let exists = snapshot.documents.contains(key)
                if !exists && snapshot.isFromCache {
                    return .failure(FirestoreErrorCode(.unavailable, Self.clientOfflineMessage))
                }
                if exists && snapshot.isFromCache && source == .server {
                    return .failure(FirestoreErrorCode(.unavailable, Self.documentOnlyInCacheMessage))
                }
                return .success(snapshot)
            })
        }
    }

    /// Runs `query` once against `source`. From the cache the result may be empty; `.server` fails with
    /// `unavailable` when only the cache can answer.
    func getDocuments(
        query: CairnModel.Query, source: GetSource,
        completion: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) {
        if source == .cache { return getDocumentsFromLocalCache(query: query, completion: completion) }
        listenOnce(query: query) { result in
            completion(result.flatMap { snapshot in
                if snapshot.isFromCache && source == .server {
                    return .failure(FirestoreErrorCode(.unavailable, Self.documentsOnlyInCacheMessage))
                }
                return .success(snapshot)
            })
        }
    }

    /// Listens until the first snapshot that is in sync with the server, or from the cache once offline.
    private func listenOnce(
        query: CairnModel.Query, completion: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) {
        let options = ListenOptions(
            includeDocumentMetadataChanges: true, includeQueryMetadataChanges: true, waitForSyncWhenOnline: true)
        let state = Mutex<(handle: ListenerHandle?, done: Bool)>((nil, false))
        let handle = listen(query: query, options: options) { result in
            let (isFirst, handle) = state.withLock { current in
                defer { current.done = true }
                return (!current.done, current.handle)
            }
            guard isFirst else { return }
            handle?.remove()
            completion(result)
        }
        let alreadyDone = state.withLock { current in
            current.handle = handle
            return current.done
        }
        if alreadyDone { handle.remove() }
    }
}
