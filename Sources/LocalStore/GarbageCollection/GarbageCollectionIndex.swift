import CairnModel
import SegmentLog

/// What garbage collection needs in memory so that a run reads only the entries it collects
/// (Docs/LocalStore.md §5): the orphaned documents and the inactive targets, each ordered by sequence number,
/// and the local-view references that pin documents. Not stored: replay rebuilds it.
///
/// An **orphan** here is a cached document that is in no target (active or not) and referenced by no local
/// view. Pending writes pin documents too, but the outbox is only decoded when it is used, so the collector
/// checks them on the entries it reads and drops the pinned ones from the queue; their batch's removal puts
/// them back.
///
/// ```swift
/// var index = GarbageCollectionIndex()
/// index.orphans.set(key, sequence: lsn)
/// index.addViewReferences([key], target: 2)    // pinned: the caller takes it out of the orphans
/// ```
struct GarbageCollectionIndex {
    /// Orphaned documents by orphan sequence number.
    var orphans = SequenceQueue<DocumentKey>()
    /// Saved targets that are not active, by sequence number.
    var inactiveTargets = SequenceQueue<Int32>()
    /// Target → the documents its local view shows (Firebase's `local_view_references_`).
    private(set) var viewReferences: [Int32: Set<DocumentKey>] = [:]
    /// Document → how many local views show it.
    private var viewReferenceCounts: [DocumentKey: Int] = [:]
    /// During replay only: document → the LSN of the latest event that took it out of a target.
    var releasedDuringReplay: [DocumentKey: UInt64] = [:]
    /// Persistent mode: the live eviction and target-removal records, and when each may retire.
    var removals = RemovalRecords()
    /// Persistent mode: the compaction garbage collection started and has not finished; each round advances
    /// it by a bounded number of bytes (`LocalStore.compactStep(minimumDeadRatio:budget:)`).
    var compaction: Compaction?
    /// Memory eager mode: documents whose last reference may have gone in the current operation.
    var eagerCandidates: Set<DocumentKey> = []
    /// Entries read by garbage collection since the store opened (orphans, targets, stale entries): the
    /// work the collector did, which must not grow with the number of documents it does not collect.
    var entriesExamined = 0

    func isReferencedByView(_ key: DocumentKey) -> Bool { viewReferenceCounts[key] != nil }

    /// Records that `target`'s view shows `keys`; returns the keys that were shown by no view before.
    mutating func addViewReferences(_ keys: Set<DocumentKey>, target: Int32) -> [DocumentKey] {
        var newlyPinned: [DocumentKey] = []
        for key in keys where viewReferences[target, default: []].insert(key).inserted {
            viewReferenceCounts[key, default: 0] += 1
            if viewReferenceCounts[key] == 1 { newlyPinned.append(key) }
        }
        return newlyPinned
    }

    /// Records that `target`'s view no longer shows `keys`; returns the keys no view shows any more.
    mutating func removeViewReferences(_ keys: Set<DocumentKey>, target: Int32) -> [DocumentKey] {
        var released: [DocumentKey] = []
        for key in keys where viewReferences[target]?.remove(key) != nil {
            let count = viewReferenceCounts[key, default: 1] - 1
            viewReferenceCounts[key] = count == 0 ? nil : count
            if count == 0 { released.append(key) }
        }
        if viewReferences[target]?.isEmpty == true { viewReferences[target] = nil }
        return released
    }

    /// Drops every reference of `target`'s view (the target is released); returns the keys no view shows now.
    mutating func removeAllViewReferences(of target: Int32) -> [DocumentKey] {
        removeViewReferences(viewReferences[target] ?? [], target: target)
    }

    /// Remembers, during replay, that an event with sequence number `sequence` took `keys` out of a target.
    mutating func noteReplayedRelease<S: Sequence<DocumentKey>>(_ keys: S, sequence: UInt64) {
        for key in keys { releasedDuringReplay[key] = max(releasedDuringReplay[key] ?? 0, sequence) }
    }
}
