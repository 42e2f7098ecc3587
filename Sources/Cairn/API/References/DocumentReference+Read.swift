import CairnCore
import CairnModel
import Foundation

/// Reading and listening to one document. Completions and listeners run on `settings.dispatchQueue`.
///
/// ```swift
/// ref.getDocument { snapshot, error in ... }                 // server when online, cache when offline
/// ref.getDocument(source: .cache) { snapshot, error in ... } // cache only
/// let registration = ref.addSnapshotListener { snapshot, error in ... }
/// ```
///
/// Offline errors, with Firebase's messages (all `unavailable`): a `.default` read of a document the cache does
/// not have ("Failed to get document because the client is offline."); a `.server` read answered from the cache;
/// a `.cache` read of a document the cache knows nothing about.
extension DocumentReference {
    /// Reads the document once (from the server when online, from the cache when offline).
    public func getDocument(completion: @escaping (DocumentSnapshot?, Error?) -> Void) {
        getDocument(source: .default, completion: completion)
    }

    /// Reads the document once from `source`.
    public func getDocument(source: FirestoreSource, completion: @escaping (DocumentSnapshot?, Error?) -> Void) {
        let box = UncheckedSendable(completion)
        let deliver: @Sendable (Result<DocumentSnapshot, FirestoreErrorCode>) -> Void = { [self] result in
            firestore.deliver {
                switch result {
                case .success(let snapshot): box.value(snapshot, nil)
                case .failure(let error): box.value(nil, error)
                }
            }
        }
        if source == .cache {
            getFromCache(deliver)
            return
        }
        firestore.listenOnce(query: documentQuery, options: Firestore.getOptions) { [self] result in
            deliver(result.flatMap { snapshot in
                let document = self.snapshot(from: snapshot)
                if !document.exists && document.metadata.isFromCache {
                    return .failure(FirestoreErrorCode(
                        .unavailable, "Failed to get document because the client is offline."))
                }
                if document.exists && document.metadata.isFromCache && source == .server {
                    return .failure(FirestoreErrorCode(
                        .unavailable,
                        "Failed to get document from server. (However, this document does exist in the local cache. "
                            + "Run again without setting source to FirestoreSourceServer to retrieve the cached "
                            + "document.)"))
                }
                return .success(document)
            })
        }
    }

    private func getFromCache(_ deliver: @escaping @Sendable (Result<DocumentSnapshot, FirestoreErrorCode>) -> Void) {
        let prepared = key.flatMap { key in firestore.client().map { (key, $0) } }
        guard case .success(let (key, client)) = prepared else {
            deliver(.failure(prepared.failure!))
            return
        }
        client.getDocumentFromLocalCache(key: key) { [self] result in
            deliver(result.flatMap { document in
                guard let document else {
                    return .failure(FirestoreErrorCode(
                        .unavailable,
                        "Failed to get document from cache. (However, this document may exist on the server. Run "
                            + "again without setting source to FirestoreSourceCache to attempt to retrieve the "
                            + "document from the server.)"))
                }
                return .success(DocumentSnapshot(
                    reference: self, document: document,
                    metadata: SnapshotMetadata(hasPendingWrites: document.hasLocalMutations, isFromCache: true)))
            })
        }
    }

    /// Listens to the document: `listener` gets a snapshot now and after every change, or one error.
    @discardableResult
    public func addSnapshotListener(_ listener: @escaping (DocumentSnapshot?, Error?) -> Void) -> ListenerRegistration {
        addSnapshotListener(options: SnapshotListenOptions(), listener: listener)
    }

    /// Listens to the document; with `includeMetadataChanges`, also when only the metadata changes.
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool, listener: @escaping (DocumentSnapshot?, Error?) -> Void
    ) -> ListenerRegistration {
        addSnapshotListener(
            options: SnapshotListenOptions().withIncludeMetadataChanges(includeMetadataChanges), listener: listener)
    }

    /// Listens to the document with `options` (metadata changes, source).
    @discardableResult
    public func addSnapshotListener(
        options: SnapshotListenOptions, listener: @escaping (DocumentSnapshot?, Error?) -> Void
    ) -> ListenerRegistration {
        firestore.addListener(query: documentQuery, options: options.clientOptions) { [self] result in
            switch result {
            case .success(let snapshot): listener(self.snapshot(from: snapshot), nil)
            case .failure(let error): listener(nil, error)
            }
        }
    }

    /// The single-document query a document reference listens to.
    var documentQuery: Result<CairnModel.Query, FirestoreErrorCode> {
        key.map { CairnModel.Query(path: $0.path) }
    }

    /// The document's snapshot within a view snapshot of its document query.
    func snapshot(from view: ViewSnapshot) -> DocumentSnapshot {
        let found = (try? key.get()).flatMap(view.documents.document)
        return DocumentSnapshot(
            reference: self, document: found,
            metadata: SnapshotMetadata(
                hasPendingWrites: found.map { view.mutatedKeys.contains($0.key) } ?? false, isFromCache: view.isFromCache))
    }
}
