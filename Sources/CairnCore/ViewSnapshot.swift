import CairnModel

/// The state of a query's result at one moment, with the changes from the previous snapshot (Firebase's
/// `ViewSnapshot`). Listeners receive these; the public API turns them into `QuerySnapshot`s.
package struct ViewSnapshot: Sendable {
    package var query: Query
    package var documents: DocumentSet
    package var oldDocuments: DocumentSet
    /// The changes, removals first, then additions, then modifications, each in query order.
    package var documentChanges: [DocumentViewChange]
    /// True when the result may not match the server: the target is not current, or documents are in limbo.
    package var isFromCache: Bool
    /// The documents of the result that have local writes not yet acknowledged.
    package var mutatedKeys: Set<DocumentKey>
    /// True when `isFromCache` changed with this snapshot.
    package var syncStateChanged: Bool
    /// True when metadata-only changes were removed from `documentChanges` (listener without
    /// `includeDocumentMetadataChanges`).
    package var excludesMetadataChanges: Bool
    /// True when the target had a resume token: the cache has a result the server confirmed once.
    package var hasCachedResults: Bool

    package var hasPendingWrites: Bool { !mutatedKeys.isEmpty }

    /// The first snapshot a listener sees: every document added (Firebase's `ViewSnapshot::FromInitialDocuments`).
    package static func initial(
        query: Query, documents: DocumentSet, mutatedKeys: Set<DocumentKey>, isFromCache: Bool,
        excludesMetadataChanges: Bool, hasCachedResults: Bool
    ) -> ViewSnapshot {
        ViewSnapshot(
            query: query, documents: documents, oldDocuments: DocumentSet(query: query),
            documentChanges: documents.documents.map { DocumentViewChange(kind: .added, document: $0) },
            isFromCache: isFromCache, mutatedKeys: mutatedKeys, syncStateChanged: true,
            excludesMetadataChanges: excludesMetadataChanges, hasCachedResults: hasCachedResults)
    }

    /// The same snapshot without metadata-only document changes.
    package func withoutMetadataChanges() -> ViewSnapshot {
        var snapshot = self
        snapshot.documentChanges = documentChanges.filter { $0.kind != .metadata }
        snapshot.excludesMetadataChanges = true
        return snapshot
    }
}

/// A document change as the public API shows it (Firebase's `DocumentChange`): its kind and its positions in the
/// old and the new result, -1 where it is absent.
package struct IndexedDocumentChange: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case added
        case modified
        case removed
    }

    package var kind: Kind
    package var document: Document
    package var oldIndex: Int
    package var newIndex: Int

    package static func == (a: IndexedDocumentChange, b: IndexedDocumentChange) -> Bool {
        a.kind == b.kind && a.oldIndex == b.oldIndex && a.newIndex == b.newIndex
            && a.document.isSameSnapshotContent(as: b.document)
    }
}

extension ViewSnapshot {
    /// The changes with their indexes, as Firebase's `GenerateChangesFromSnapshot` computes them: for the first
    /// snapshot (no old documents) every document is added at 0, 1, 2, …; afterwards each change is applied in
    /// order to the old result, so each index is the position at the moment of that change. Metadata-only
    /// changes appear as modifications, and only when `includeMetadataChanges` is true.
    package func indexedChanges(includeMetadataChanges: Bool) -> [IndexedDocumentChange] {
        if oldDocuments.isEmpty {
            return documentChanges.enumerated().map { index, change in
                IndexedDocumentChange(kind: .added, document: change.document, oldIndex: -1, newIndex: index)
            }
        }
        var current = oldDocuments
        var result: [IndexedDocumentChange] = []
        for change in documentChanges {
            if change.kind == .metadata && !includeMetadataChanges { continue }
            let key = change.document.key
            var oldIndex = -1
            var newIndex = -1
            if change.kind != .added {
                oldIndex = current.index(of: key) ?? -1
                current.remove(key)
            }
            if change.kind != .removed {
                current.insert(change.document)
                newIndex = current.index(of: key) ?? -1
            }
            let kind: IndexedDocumentChange.Kind =
                switch change.kind {
                case .added: .added
                case .removed: .removed
                case .modified, .metadata: .modified
                }
            result.append(IndexedDocumentChange(kind: kind, document: change.document, oldIndex: oldIndex, newIndex: newIndex))
        }
        return result
    }
}
