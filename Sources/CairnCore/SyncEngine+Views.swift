import CairnModel
import CairnLocalStore

/// Recomputing the views after changes (Firebase's `SyncEngine::EmitNewSnapshotsAndNotifyLocalStore`).
extension SyncEngine {
    /// Recomputes every view after `changed` documents (their new local views) and the remote event, raises the
    /// snapshots, and tells the cache which documents the views hold (Firebase's
    /// `EmitNewSnapshotsAndNotifyLocalStore`).
    package func emitNewSnapshots(_ changed: [DocumentKey: Document?], remoteEvent: RemoteEvent?) throws {
        var snapshots: [ViewSnapshot] = []
        var viewChanges: [(targetID: Int32, snapshot: ViewSnapshot)] = []
        for queryView in queryViewsByQuery.values.sorted(by: { $0.targetID < $1.targetID }) {
            let view = queryView.view
            var changes = view.computeDocumentChanges(changed)
            if changes.needsRefill {
                let (documents, _) = try queryLocally(queryView.query, targetID: queryView.targetID, usePreviousResults: false)
                changes = view.computeDocumentChanges(Self.keyed(documents), previous: changes)
            }
            let targetChange = remoteEvent?.targetChanges[queryView.targetID]
            let update = targetChange.map {
                ViewTargetUpdate(current: $0.current, added: $0.added, modified: $0.modified, removed: $0.removed)
            }
            let result = view.applyChanges(
                changes, targetUpdate: update,
                targetIsPendingReset: remoteEvent?.targetMismatches[queryView.targetID] != nil,
                hasCachedResults: !(targetChange?.resumeToken.isEmpty ?? true))
            updateTrackedLimboDocuments(result.limboChanges, targetID: queryView.targetID)
            if let snapshot = result.snapshot {
                snapshots.append(snapshot)
                viewChanges.append((queryView.targetID, snapshot))
            }
        }
        callback?.onViewSnapshots(snapshots)
        notifyLocalViewChanges(viewChanges)
    }

    /// Tells the cache which documents each view gained and lost (they are pinned against garbage collection)
    /// and which views are in sync, whose targets can then answer from their previous results.
    private func notifyLocalViewChanges(_ changes: [(targetID: Int32, snapshot: ViewSnapshot)]) {
        for (targetID, snapshot) in changes {
            var added = Set<DocumentKey>()
            var removed = Set<DocumentKey>()
            for change in snapshot.documentChanges {
                if change.kind == .added { added.insert(change.document.key) }
                if change.kind == .removed { removed.insert(change.document.key) }
            }
            localStore.notifyLocalViewChanges(targetID: targetID, added: added, removed: removed)
            if !snapshot.isFromCache { localStore.noteLimboFree(targetID: targetID) }
        }
    }

    /// The query's documents in the local view and the keys the server confirmed for its target.
    package func queryLocally(
        _ query: Query, targetID: Int32, usePreviousResults: Bool = true
    ) throws -> (documents: [Document], remoteKeys: Set<DocumentKey>) {
        let result = try localStore.executeQuery(query, usePreviousResults: usePreviousResults)
        return (result.documents, localStore.remoteKeys(forTarget: targetID))
    }

    /// Documents by key, as the views take them.
    package static func keyed(_ documents: [Document]) -> [DocumentKey: Document?] {
        var keyed: [DocumentKey: Document?] = [:]
        for document in documents { keyed.updateValue(document, forKey: document.key) }
        return keyed
    }
}
