import CairnCore
import CairnModel
import Foundation

/// Reading and listening to a query. Completions and listeners run on `settings.dispatchQueue`; an invalid query
/// reports its `invalidArgument` error there (see ``Query``).
///
/// ```swift
/// cities.getDocuments { snapshot, error in ... }
/// cities.getDocuments(source: .cache) { snapshot, error in ... }
/// let registration = cities.addSnapshotListener(includeMetadataChanges: true) { snapshot, error in ... }
/// ```
extension Query {
    /// Reads the results once (from the server when online, from the cache when offline).
    public func getDocuments(completion: @escaping (QuerySnapshot?, Error?) -> Void) {
        getDocuments(source: .default, completion: completion)
    }

    /// Reads the results once from `source`. With `.server`, a result that could only come from the cache fails
    /// with `unavailable`; with `.cache`, the cached results (possibly none) are the answer.
    public func getDocuments(source: FirestoreSource, completion: @escaping (QuerySnapshot?, Error?) -> Void) {
        let box = UncheckedSendable(completion)
        let deliver: @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void = { [self] result in
            firestore.deliver {
                switch result {
                case .success(let snapshot): box.value(QuerySnapshot(query: self, snapshot: snapshot), nil)
                case .failure(let error): box.value(nil, error)
                }
            }
        }
        if source == .cache {
            switch firestore.prepareListen(state) {
            case .failure(let error): deliver(.failure(error))
            case .success(let (query, client)): client.getDocumentsFromLocalCache(query: query, completion: deliver)
            }
            return
        }
        firestore.listenOnce(query: state, options: Firestore.getOptions) { result in
            if case .success(let snapshot) = result, snapshot.isFromCache, source == .server {
                deliver(.failure(FirestoreErrorCode(
                    .unavailable,
                    "Failed to get documents from server. (However, these documents may exist in the local cache. "
                        + "Run again without setting source to FirestoreSourceServer to retrieve the cached "
                        + "documents.)")))
                return
            }
            deliver(result)
        }
    }

    /// Listens to the results: `listener` gets a snapshot now and after every change, or one error.
    @discardableResult
    public func addSnapshotListener(_ listener: @escaping (QuerySnapshot?, Error?) -> Void) -> ListenerRegistration {
        addSnapshotListener(options: SnapshotListenOptions(), listener: listener)
    }

    /// Listens to the results; with `includeMetadataChanges`, also when only the metadata changes.
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (QuerySnapshot?, Error?) -> Void
    ) -> ListenerRegistration {
        addSnapshotListener(
            options: SnapshotListenOptions().withIncludeMetadataChanges(includeMetadataChanges), listener: listener)
    }

    /// Listens to the results with `options` (metadata changes, source).
    @discardableResult
    public func addSnapshotListener(
        options: SnapshotListenOptions, listener: @escaping (QuerySnapshot?, Error?) -> Void
    ) -> ListenerRegistration {
        firestore.addListener(query: state, options: options.clientOptions) { result in
            switch result {
            case .success(let snapshot): listener(QuerySnapshot(query: self, snapshot: snapshot), nil)
            case .failure(let error): listener(nil, error)
            }
        }
    }
}
