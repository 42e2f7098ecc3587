import CairnModel

/// Target events and the garbage collector: a target event changes which documents are in a target, so each
/// one also tells the ``LruGarbageCollector`` (Docs/LocalStore.md §5 defines the orphan sequence numbers).
///
/// ```swift
/// applyTargetEvent(.removed(4), reference: reference, sequence: lsn)   // its documents become orphans at lsn
/// ```
extension LocalStore {

    /// Applies a target-cache event to the targets view, retires what it supersedes, and updates the index:
    /// documents that joined a target stop being orphans; documents that left their last target become orphans,
    /// at `sequence` for a membership change and at the target's own sequence number (its last use) for the
    /// target's removal — never before their own latest write. During replay the departures are only
    /// remembered; ``LruGarbageCollector/rebuild()`` uses them once replay ends.
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
            collector.index.noteReplayedRelease(departed, sequence: releasedAt)
            return
        }
        if case .removed(let targetID) = event {
            collector.index.inactiveTargets.remove(targetID)
            events.removalApplied(reference)
        }
        for key in joined where !targets.membership.targets(containing: key).isEmpty { remoteDocuments.removeOrphan(key) }
        collector.noteReleased(departed, sequence: releasedAt)
    }




}
