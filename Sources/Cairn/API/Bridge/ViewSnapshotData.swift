import CairnModel

/// What the core's `View` produces for one listen event (iOS `core/view_snapshot.h` `ViewSnapshot`): the
/// query's documents in query order, the documents of the previous snapshot, the changes between them, and the
/// metadata. The public ``QuerySnapshot`` and ``DocumentSnapshot`` are computed from it.
///
/// ```swift
/// let first = ViewSnapshotData(query: query, documents: [doc], oldDocuments: [],
///                              documentChanges: [.init(kind: .added, document: doc)], isFromCache: true)
/// ```
struct ViewSnapshotData: Sendable {
    /// One change between ``oldDocuments`` and ``documents`` (core `DocumentViewChange`).
    struct Change: Sendable {
        enum Kind: Sendable, Hashable {
            case added, removed, modified
            /// Only the document's metadata (`hasPendingWrites`) changed.
            case metadata
        }

        var kind: Kind
        var document: CairnModel.Document

        init(kind: Kind, document: CairnModel.Document) {
            self.kind = kind
            self.document = document
        }
    }

    var query: CairnModel.Query
    /// The matching documents, in query order.
    var documents: [CairnModel.Document]
    /// The documents of the previous snapshot of this listen, in query order (empty for the first).
    var oldDocuments: [CairnModel.Document]
    var documentChanges: [Change]
    var isFromCache: Bool
    /// Documents with local writes not yet acknowledged.
    var mutatedKeys: Set<DocumentKey>
    var syncStateChanged: Bool
    /// True when the listener did not ask for metadata-only changes, so metadata changes were dropped.
    var excludesMetadataChanges: Bool
    var hasCachedResults: Bool

    init(
        query: CairnModel.Query, documents: [CairnModel.Document], oldDocuments: [CairnModel.Document],
        documentChanges: [Change], isFromCache: Bool, mutatedKeys: Set<DocumentKey> = [],
        syncStateChanged: Bool = false, excludesMetadataChanges: Bool = true, hasCachedResults: Bool = false
    ) {
        self.query = query
        self.documents = documents
        self.oldDocuments = oldDocuments
        self.documentChanges = documentChanges
        self.isFromCache = isFromCache
        self.mutatedKeys = mutatedKeys
        self.syncStateChanged = syncStateChanged
        self.excludesMetadataChanges = excludesMetadataChanges
        self.hasCachedResults = hasCachedResults
    }

    /// The snapshot of a query on a first read from the cache: every document added.
    static func initial(
        query: CairnModel.Query, documents: [CairnModel.Document], isFromCache: Bool,
        mutatedKeys: Set<DocumentKey>, excludesMetadataChanges: Bool
    ) -> ViewSnapshotData {
        ViewSnapshotData(
            query: query, documents: documents, oldDocuments: [],
            documentChanges: documents.map { Change(kind: .added, document: $0) }, isFromCache: isFromCache,
            mutatedKeys: mutatedKeys, syncStateChanged: true, excludesMetadataChanges: excludesMetadataChanges,
            hasCachedResults: false)
    }
}
