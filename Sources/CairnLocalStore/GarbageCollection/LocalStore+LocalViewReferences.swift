import CairnModel

extension LocalStore {
    /// Records which documents a target's view now shows (Firebase's `LocalStore::NotifyLocalViewChanges` over
    /// its `local_view_references_`): the core's SyncEngine calls it after each view change. Garbage collection
    /// never removes a document a local view shows. References are session state (nothing is written), and
    /// ``releaseTarget(_:keepPersisted:)`` drops the target's references. References added for a target that is
    /// not active are ignored, as they could never be released. A document no view shows any more becomes an
    /// orphan when it is in no target (Docs/LocalStore.md §5), and in eager memory mode it leaves the cache then
    /// unless a pending write holds it. A closed cache ignores the call.
    ///
    /// ```swift
    /// store.notifyLocalViewChanges(targetID: 2, added: [key], removed: [])
    /// try store.collectGarbage(threshold: 0)          // key stays
    /// store.notifyLocalViewChanges(targetID: 2, added: [], removed: [key])
    /// ```
    package func notifyLocalViewChanges(targetID: Int32, added: Set<DocumentKey>, removed: Set<DocumentKey>) {
        guard (try? checkOpen()) != nil else { return }
        if targets.active[targetID] != nil {
            collector.noteDocumentsPinned(collector.viewReferences.add(added, target: targetID))
        }
        collector.noteReleased(collector.viewReferences.remove(removed, target: targetID), sequence: events.nextSequence)
        // A memory cache's eviction is an in-memory append, which cannot fail once the cache is open.
        try? collectEagerly()
    }

    /// The documents the target's local view shows, as last notified.
    package func localViewReferences(of targetID: Int32) -> Set<DocumentKey> {
        collector.viewReferences.byTarget[targetID] ?? []
    }

    /// Drops a released target's local-view references; its documents that no view shows any more may become
    /// orphans now.
    func dropLocalViewReferences(of targetID: Int32) {
        collector.noteReleased(collector.viewReferences.removeAll(of: targetID), sequence: events.nextSequence)
    }
}
