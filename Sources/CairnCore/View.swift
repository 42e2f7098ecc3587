import CairnModel

/// A document entering or leaving limbo: in a view's result by the cache, but not (yet) confirmed by the target.
package struct LimboDocumentChange: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case added
        case removed
    }

    package var kind: Kind
    package var key: DocumentKey
}

/// What the watch stream said about the view's target in one remote event (the part of a `TargetChange` a view
/// needs), or the synthesized change of a view's first computation.
package struct ViewTargetUpdate: Sendable {
    package var current: Bool
    package var added: Set<DocumentKey> = []
    package var modified: Set<DocumentKey> = []
    package var removed: Set<DocumentKey> = []
}

/// The result of `View.computeDocumentChanges`: the would-be new result, before it is applied.
package struct ViewDocumentChanges: Sendable {
    package var documents: DocumentSet
    package var changes: DocumentViewChangeSet
    package var mutatedKeys: Set<DocumentKey>
    /// True when a limit query lost documents at its edge and must be computed again from the full local result.
    package var needsRefill: Bool
}

/// What applying changes to a view produced: a snapshot when anything visible changed, and the limbo changes.
package struct ViewChange: Sendable {
    package var snapshot: ViewSnapshot?
    package var limboChanges: [LimboDocumentChange]
}

/// The in-memory result of one query (Firebase's `core::View`): the documents the local view says match, which of
/// them the server confirmed (`syncedDocuments`), which are in limbo, and whether the result is in sync.
///
/// ```swift
/// let view = View(query: query, remoteKeys: localStore.remoteKeys(forTarget: id))
/// let changes = view.computeDocumentChanges(localDocuments)
/// let result = view.applyChanges(changes, targetUpdate: ViewTargetUpdate(current: false))
/// ```
package final class View {
    package enum SyncState: Sendable {
        case none
        case local
        case synced
    }

    package let query: Query
    package private(set) var syncState = SyncState.none
    /// True when the target is current on the watch stream (the server sent everything up to a snapshot).
    private var current = false
    package private(set) var documents: DocumentSet
    /// The keys the server says are in the target's result.
    package private(set) var syncedDocuments: Set<DocumentKey>
    package private(set) var limboDocuments: Set<DocumentKey> = []
    package private(set) var mutatedKeys: Set<DocumentKey> = []

    package init(query: Query, remoteKeys: Set<DocumentKey>) {
        self.query = query
        self.documents = DocumentSet(query: query)
        self.syncedDocuments = remoteKeys
    }

    /// The documents the server confirmed for the target (what existence filters count).
    package var remoteKeys: Set<DocumentKey> { syncedDocuments }

    /// Computes the new result after `changed` documents (their new local views; `nil` for a document that no
    /// longer exists anywhere), starting from `previous` when a refill computes again (Firebase's
    /// `View::ComputeDocumentChanges`).
    package func computeDocumentChanges(
        _ changed: [DocumentKey: Document?], previous: ViewDocumentChanges? = nil
    ) -> ViewDocumentChanges {
        var changeSet = previous?.changes ?? DocumentViewChangeSet()
        let oldDocuments = previous?.documents ?? documents
        var newDocuments = oldDocuments
        var newMutatedKeys = previous?.mutatedKeys ?? mutatedKeys
        var needsRefill = false
        let limit = query.limit
        let lastInLimit = limit != nil && query.limitType == .first && oldDocuments.count == limit ? oldDocuments.last : nil
        let firstInLimit = limit != nil && query.limitType == .last && oldDocuments.count == limit ? oldDocuments.first : nil

        for key in changed.keys.sorted() {
            let oldDocument = oldDocuments.document(key)
            let newDocument = changed[key].flatMap { $0 }.flatMap { query.matches($0) ? $0 : nil }
            let oldHadPending = oldDocument != nil && mutatedKeys.contains(key)
            let newHasPending = newDocument.map {
                $0.hasLocalMutations || (mutatedKeys.contains(key) && $0.hasCommittedMutations)
            } ?? false
            var applied = false
            if let oldDocument, let newDocument {
                if oldDocument.data != newDocument.data {
                    if !Self.shouldWaitForSyncedDocument(old: oldDocument, new: newDocument) {
                        changeSet.add(DocumentViewChange(kind: .modified, document: newDocument))
                        applied = true
                        if let lastInLimit, query.compareDocuments(newDocument, lastInLimit) > 0 { needsRefill = true }
                        if let firstInLimit, query.compareDocuments(newDocument, firstInLimit) < 0 { needsRefill = true }
                    }
                } else if oldHadPending != newHasPending {
                    changeSet.add(DocumentViewChange(kind: .metadata, document: newDocument))
                    applied = true
                }
            } else if let newDocument {
                changeSet.add(DocumentViewChange(kind: .added, document: newDocument))
                applied = true
            } else if let oldDocument {
                changeSet.add(DocumentViewChange(kind: .removed, document: oldDocument))
                applied = true
                if lastInLimit != nil || firstInLimit != nil { needsRefill = true }
            }
            guard applied else { continue }
            if let newDocument {
                newDocuments.insert(newDocument)
                if newHasPending { newMutatedKeys.insert(key) } else { newMutatedKeys.remove(key) }
            } else {
                newDocuments.remove(key)
                newMutatedKeys.remove(key)
            }
        }

        if let limit {
            while newDocuments.count > limit {
                let dropped = query.limitType == .first ? newDocuments.last! : newDocuments.first!
                newDocuments.remove(dropped.key)
                newMutatedKeys.remove(dropped.key)
                changeSet.add(DocumentViewChange(kind: .removed, document: dropped))
            }
        }
        // A refill computes from the full local result, which needs no further refill (Firebase asserts it).
        return ViewDocumentChanges(
            documents: newDocuments, changes: changeSet, mutatedKeys: newMutatedKeys,
            needsRefill: needsRefill && previous == nil)
    }

    /// A document with local writes whose acknowledged version arrives before the watch stream's echo: keep the
    /// local version until the server's copy comes, so the view does not flicker.
    private static func shouldWaitForSyncedDocument(old: Document, new: Document) -> Bool {
        old.hasLocalMutations && new.hasCommittedMutations && !new.hasLocalMutations
    }

    /// Makes `changes` the view's result and applies the target's update; returns the snapshot, if anything
    /// visible changed, and the documents that entered or left limbo (Firebase's `View::ApplyChanges`).
    package func applyChanges(
        _ changes: ViewDocumentChanges, targetUpdate: ViewTargetUpdate? = nil, limboResolutionEnabled: Bool = true,
        targetIsPendingReset: Bool = false, hasCachedResults: Bool = false
    ) -> ViewChange {
        precondition(!changes.needsRefill, "a view's changes that need a refill cannot be applied")
        let oldDocuments = documents
        documents = changes.documents
        mutatedKeys = changes.mutatedKeys
        let sorted = changes.changes.all.sorted { a, b in
            if a.kind.sortPosition != b.kind.sortPosition { return a.kind.sortPosition < b.kind.sortPosition }
            return query.compareDocuments(a.document, b.document) < 0
        }
        if let targetUpdate {
            syncedDocuments.formUnion(targetUpdate.added)
            syncedDocuments.subtract(targetUpdate.removed)
            current = targetUpdate.current
        }
        // A target waiting for its full re-query after an existence-filter mismatch says nothing about limbo.
        let limboChanges = limboResolutionEnabled && !targetIsPendingReset ? updateLimboDocuments() : []
        let synced = limboDocuments.isEmpty && current && !targetIsPendingReset
        let newState: SyncState = synced ? .synced : .local
        let syncStateChanged = newState != syncState
        syncState = newState
        guard !sorted.isEmpty || syncStateChanged else { return ViewChange(snapshot: nil, limboChanges: limboChanges) }
        let snapshot = ViewSnapshot(
            query: query, documents: documents, oldDocuments: oldDocuments, documentChanges: sorted,
            isFromCache: newState == .local, mutatedKeys: mutatedKeys, syncStateChanged: syncStateChanged,
            excludesMetadataChanges: false, hasCachedResults: hasCachedResults)
        return ViewChange(snapshot: snapshot, limboChanges: limboChanges)
    }

    /// Going offline makes the view not current, so its snapshots are from the cache until the target is current
    /// again (Firebase's `View::ApplyOnlineStateChange`).
    package func applyOnlineStateChange(_ state: OnlineState) -> ViewChange {
        guard current, state == .offline else { return ViewChange(snapshot: nil, limboChanges: []) }
        current = false
        let unchanged = ViewDocumentChanges(
            documents: documents, changes: DocumentViewChangeSet(), mutatedKeys: mutatedKeys, needsRefill: false)
        return applyChanges(unchanged, limboResolutionEnabled: false)
    }

    /// The documents in the result that the target does not confirm and that have no local writes.
    private func updateLimboDocuments() -> [LimboDocumentChange] {
        guard current else { return [] }
        let old = limboDocuments
        limboDocuments = []
        for document in documents.documents where shouldBeInLimbo(document) {
            limboDocuments.insert(document.key)
        }
        var changes: [LimboDocumentChange] = []
        for key in old.subtracting(limboDocuments).sorted() { changes.append(LimboDocumentChange(kind: .removed, key: key)) }
        for key in limboDocuments.subtracting(old).sorted() { changes.append(LimboDocumentChange(kind: .added, key: key)) }
        return changes
    }

    private func shouldBeInLimbo(_ document: Document) -> Bool {
        !syncedDocuments.contains(document.key) && !document.hasLocalMutations
    }
}
