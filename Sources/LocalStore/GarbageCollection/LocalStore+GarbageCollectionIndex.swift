import CairnModel

/// Keeping ``GarbageCollectionIndex`` current: every path that changes whether a document is an orphan, or a
/// target's activity, calls one of these (Docs/LocalStore.md §5 defines the orphan sequence numbers).
///
/// ```swift
/// applyTargetEvent(.removed(4), reference: reference, sequence: lsn)   // its documents become orphans at lsn
/// noteReleased(batch.keys, sequence: removalLSN)                        // a pending write left them
/// ```
extension LocalStore {
    /// Whether `key` is cached, in no target and shown by no local view (pending writes are checked by the
    /// collector).
    func isOrphan(_ key: DocumentKey) -> Bool {
        remoteDocuments.entry(for: key) != nil && targets.membership.targets(containing: key).isEmpty
            && !viewReferences.contains(key)
    }

    /// Applies a target-cache event to the targets view, retires what it supersedes, and updates the index:
    /// documents that joined a target stop being orphans; documents that left their last target become orphans,
    /// at `sequence` for a membership change and at the target's own sequence number (its last use) for the
    /// target's removal — never before their own latest write. During replay the departures are only
    /// remembered; ``rebuildGarbageCollectionIndex()`` uses them once replay ends.
    func applyTargetEvent(_ event: TargetCacheEvent, reference: EventReference, sequence: UInt64, replaying: Bool = false) {
        var departed: Set<DocumentKey> = []
        var joined: [DocumentKey] = []
        var releasedAt = sequence
        switch event {
        case .removed(let targetID):
            departed = targets.membership.keys(of: targetID)
            releasedAt = targets.saved[targetID]?.data.sequenceNumber ?? sequence
        case .membershipChanged(let targetID, let change):
            departed = change.isSnapshot ? targets.membership.keys(of: targetID).subtracting(change.added) : Set(change.removed)
            joined = change.added
        case .saved, .globalsChanged:
            break
        }
        for superseded in targets.apply(event, reference: reference, sequence: sequence) { events.retire(superseded) }
        if case .removed = event, case .log(let location) = reference { compactionCoordinator.removals.track(location) }
        if replaying {
            garbage.noteReplayedRelease(departed, sequence: releasedAt)
            return
        }
        if case .removed(let targetID) = event {
            garbage.inactiveTargets.remove(targetID)
            events.removalApplied(reference)
        }
        for key in joined where !targets.membership.targets(containing: key).isEmpty { garbage.orphans.remove(key) }
        noteReleased(departed, sequence: releasedAt)
    }

    /// Documents that lost a reference (a target, a pending write, a local view) at `sequence`: those that are
    /// orphans now enter the orphan queue there, or at their latest write when that is later; in eager memory
    /// mode they are candidates for removal.
    func noteReleased<S: Sequence<DocumentKey>>(_ keys: S, sequence: UInt64) {
        for key in keys where targets.membership.targets(containing: key).isEmpty && !viewReferences.contains(key) {
            if let entry = remoteDocuments.entry(for: key) { garbage.orphans.set(key, sequence: max(sequence, entry.sequence)) }
            referenceDelegate.noteUnreferenced(key)
        }
    }

    /// Remote documents written at the given sequence numbers: an orphan moves to its write's number (it was
    /// just used).
    func noteDocumentsWritten(_ keys: [DocumentKey], sequences: [UInt64]) {
        for (key, sequence) in zip(keys, sequences) where isOrphan(key) { garbage.orphans.set(key, sequence: sequence) }
    }

    /// Documents a local write now pins: they leave the orphan queue.
    func noteDocumentsPinned<S: Sequence<DocumentKey>>(_ keys: S) {
        for key in keys { garbage.orphans.remove(key) }
    }

    /// Builds the index from the replayed views: every cached document in no target is an orphan at the later
    /// of its latest remote-document event and the latest event that took it out of a target; every saved
    /// target is inactive (activity is session state).
    func rebuildGarbageCollectionIndex() {
        var orphans: [(sequence: UInt64, element: DocumentKey)] = []
        orphans.reserveCapacity(remoteDocuments.foundCount)
        let anyMembers = targets.membership.hasMembers
        for (key, entry) in remoteDocuments.allEntries() where !anyMembers || targets.membership.targets(containing: key).isEmpty {
            orphans.append((max(entry.sequence, garbage.releasedDuringReplay[key] ?? 0), key))
        }
        // Ties (a removed target's members share its sequence number) in key order, not the hash order of the
        // views' dictionaries, so that identical caches collect identically (rebuild's sort is stable).
        garbage.orphans.rebuild(orphans.sorted { ($0.sequence, $0.element) < ($1.sequence, $1.element) })
        garbage.inactiveTargets.rebuild(targets.saved.map { ($0.value.data.sequenceNumber, $0.key) })
        garbage.releasedDuringReplay = [:]
    }
}
