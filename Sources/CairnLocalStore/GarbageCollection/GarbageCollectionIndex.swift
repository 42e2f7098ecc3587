import CairnModel

/// What LRU garbage collection keeps in memory so that a run reads only the entries it collects
/// (Docs/LocalStore.md §5), besides the orphan queue the remote documents view holds
/// (`RemoteDocumentView+Orphans.swift`): the inactive targets, ordered by sequence number.
/// Not stored: replay rebuilds it. Local views pin documents too (``LocalViewReferences``), and so do pending
/// writes, but the outbox is only decoded when it is used, so the collector checks them on the entries it reads
/// and drops the pinned ones from the queue; their batch's removal puts them back.
///
/// An **orphan** here is a cached document that is in no target (active or not) and shown by no local view.
///
/// ```swift
/// var index = GarbageCollectionIndex()
/// index.inactiveTargets.set(4, sequence: savedLSN)
/// ```
struct GarbageCollectionIndex {
    /// Saved targets that are not active, by sequence number.
    var inactiveTargets = SequenceQueue<Int32>()
    /// During replay only: document → the LSN of the latest event that took it out of a target.
    var releasedDuringReplay: [DocumentKey: UInt64] = [:]
    /// Entries read by garbage collection since the store opened (orphans, targets, stale entries): the
    /// work the collector did, which must not grow with the number of documents it does not collect.
    var entriesExamined = 0

    /// Remembers, during replay, that an event with sequence number `sequence` took `keys` out of a target.
    mutating func noteReplayedRelease<S: Sequence<DocumentKey>>(_ keys: S, sequence: UInt64) {
        for key in keys { releasedDuringReplay[key] = max(releasedDuringReplay[key] ?? 0, sequence) }
    }
}
