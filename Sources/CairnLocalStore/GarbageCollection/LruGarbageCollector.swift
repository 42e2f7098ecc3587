import CairnModel

/// The LRU garbage collector's bookkeeping (Firebase's `LruGarbageCollector` with its reference delegate): owns
/// the ``GarbageCollectionIndex`` (inactive targets by sequence number), the ``LocalViewReferences`` and the
/// ``ReferenceDelegate`` (eager or LRU), and keeps the remote documents view's orphan queue
/// (`RemoteDocumentView+Orphans.swift`). Every path that changes whether a document is an orphan tells it here;
/// it reads the targets' membership and changes no document. Collection rounds, which append removals and compact, are in `LocalStore+GarbageCollection.swift`.
///
/// ```swift
/// collector.noteReleased(batch.keys, sequence: removalLSN)   // a pending write left them
/// collector.isOrphan(key)                                     // cached, in no target, in no local view
/// ```
final class LruGarbageCollector {
    /// Orphans and inactive targets by sequence number.
    var index = GarbageCollectionIndex()
    /// The documents each active target's local view shows.
    var viewReferences = LocalViewReferences()
    /// Eager removal or LRU collection of documents that lost their last reference.
    let referenceDelegate: any ReferenceDelegate
    private let documents: RemoteDocumentCache
    private let targets: TargetCache

    init(documents: RemoteDocumentCache, targets: TargetCache, referenceDelegate: any ReferenceDelegate) {
        self.documents = documents
        self.targets = targets
        self.referenceDelegate = referenceDelegate
    }

    /// Whether `key` is cached, in no target and shown by no local view (pending writes are checked by the
    /// collector).
    func isOrphan(_ key: DocumentKey) -> Bool {
        documents.view.entry(for: key) != nil && targets.view.membership.targets(containing: key).isEmpty
            && !viewReferences.contains(key)
    }

    /// Documents that lost a reference (a target, a pending write, a local view) at `sequence`: those that are
    /// orphans now enter the orphan queue there, or at their latest write when that is later; in eager memory
    /// mode they are candidates for removal.
    func noteReleased<S: Sequence<DocumentKey>>(_ keys: S, sequence: UInt64) {
        for key in keys where targets.view.membership.targets(containing: key).isEmpty && !viewReferences.contains(key) {
            if let entry = documents.view.entry(for: key) { documents.view.setOrphan(key, sequence: max(sequence, entry.sequence)) }
            referenceDelegate.noteUnreferenced(key)
        }
    }

    /// Remote documents written at the given sequence numbers: an orphan moves to its write's number (it was
    /// just used).
    func noteDocumentsWritten(_ keys: [DocumentKey], sequences: [UInt64]) {
        for (key, sequence) in zip(keys, sequences) where isOrphan(key) { documents.view.setOrphan(key, sequence: sequence) }
    }

    /// Documents a local write now pins: they leave the orphan queue.
    func noteDocumentsPinned<S: Sequence<DocumentKey>>(_ keys: S) {
        for key in keys { documents.view.removeOrphan(key) }
    }

    /// Builds the index from the replayed views: every cached document in no target is an orphan at the later
    /// of its latest remote-document event and the latest event that took it out of a target; every saved
    /// target is inactive (activity is session state).
    func rebuild() {
        let anyMembers = targets.view.membership.hasMembers
        let released = index.releasedDuringReplay
        // Ties (a removed target's members share its sequence number) in key order, not the hash order of the
        // views' dictionaries, so that identical caches collect identically.
        documents.view.rebuildOrphans { key, entry in
            guard !anyMembers || targets.view.membership.targets(containing: key).isEmpty else { return nil }
            return max(entry.sequence, released[key] ?? 0)
        }
        index.inactiveTargets.rebuild(targets.view.saved.map { ($0.value.data.sequenceNumber, $0.key) })
        index.releasedDuringReplay = [:]
    }

    /// The sequence numbers a round collects: n = 10% of the inactive targets and orphans, at least 1 (0 when
    /// there are none), at most ``LocalStore/maximumSequenceNumbersPerRound``.
    func roundSize() -> Int {
        let candidates = index.inactiveTargets.count + documents.view.orphanCount
        guard candidates > 0 else { return 0 }
        return min(max(candidates * LocalStore.collectionPercentile / 100, 1), LocalStore.maximumSequenceNumbersPerRound)
    }

    /// The `n` least-recently-used inactive targets and unpinned orphans. Orphans found under a pending write
    /// leave the orphan queue (the batch's removal brings them back); entries no longer valid are dropped. The
    /// work is bounded by `n` and the stale entries met, so a round takes its n in slices, each reading from
    /// the queues' fronts.
    func chooseRound(
        _ n: Int, pinned: Set<DocumentKey>
    ) -> (targets: [Int32], documents: [DocumentKey], upperBound: UInt64, examined: Int) {
        guard n > 0 else { return ([], [], 0, 0) }
        let targetPick = index.inactiveTargets.lowest(n) { targets.view.active[$0] == nil && targets.view.saved[$0] != nil }
        let orphanPick = documents.view.lowestOrphans(n) { isOrphan($0) && !pinned.contains($0) }
        documents.view.dropStaleOrphans(before: orphanPick.front)
        for id in targetPick.refused { index.inactiveTargets.remove(id) }
        for key in orphanPick.refused { documents.view.removeOrphan(key) }
        // Merge the two ascending lists and keep the n lowest.
        var chosenTargets: [Int32] = []
        var chosenDocuments: [DocumentKey] = []
        var upperBound: UInt64 = 0
        var t = targetPick.entries[...]
        var d = orphanPick.entries[...]
        while chosenTargets.count + chosenDocuments.count < n, !(t.isEmpty && d.isEmpty) {
            if let target = t.first, d.first.map({ target.sequence <= $0.sequence }) ?? true {
                chosenTargets.append(target.element)
                upperBound = target.sequence
                t = t.dropFirst()
            } else if let document = d.first {
                chosenDocuments.append(document.element)
                upperBound = document.sequence
                d = d.dropFirst()
            }
        }
        return (chosenTargets, chosenDocuments, upperBound, targetPick.examined + orphanPick.examined)
    }
}
