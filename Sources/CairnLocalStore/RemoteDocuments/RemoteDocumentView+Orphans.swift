import CairnModel

/// The LRU orphan queue over the view's entries (Docs/LocalStore.md §5): the garbage collector says which
/// cached documents are orphans and at which sequence number; the queue keeps a slot per orphan (its sequence
/// number and ``DocumentHandle``) and each orphan's entry keeps its slot's number, so no key is stored twice and a
/// queued document that moves in the view (``RemoteDocumentView/set(_:for:)``, a removal's move of a bucket's last
/// entry) stays queued; the queue writes the new number into every entry whose slot it moves. A document removed
/// from the view leaves the queue with it.
///
/// ```swift
/// view.setOrphan(key, sequence: lsn)
/// view.orphanSequence(of: key)                         // lsn
/// let pick = view.lowestOrphans(10) { !pinned.contains($0) }
/// view.dropStaleOrphans(before: pick.front)
/// ```
extension RemoteDocumentView {
    /// The number of queued orphans.
    var orphanCount: Int { orphans.count }

    /// The orphan sequence number of `key`, if it is queued.
    func orphanSequence(of key: DocumentKey) -> UInt64? {
        guard let handle = handle(of: key), let slot = OrphanQueue.slot(named: self[handle].orphan) else { return nil }
        return orphans.sequence(of: slot)
    }

    /// Queues the cached document `key` at `sequence`, or moves it there; nothing when it is not cached.
    mutating func setOrphan(_ key: DocumentKey, sequence: UInt64) {
        guard let handle = handle(of: key) else { return }
        let slot = OrphanQueue.slot(named: self[handle].orphan)
        updateOrphans { $0.set(slot, at: handle, sequence: sequence, entries: &$1) }
    }

    /// Takes `key` out of the queue; returns whether it was there.
    @discardableResult
    mutating func removeOrphan(_ key: DocumentKey) -> Bool {
        guard let handle = handle(of: key), let slot = OrphanQueue.slot(named: self[handle].orphan) else { return false }
        updateOrphans { orphans, buckets in
            orphans.remove(slot, entries: &buckets)
            buckets.setOrphan(0, at: handle)
        }
        return true
    }

    /// The `limit` queued orphans with the lowest sequence numbers that `accept` takes, ascending; the orphans it
    /// refused on the way; how many slots were read (live and stale); and the queue's new front, past the stale
    /// slots met there (``dropStaleOrphans(before:)``, before any other change). Reads only: `accept` may read
    /// the view.
    func lowestOrphans(
        _ limit: Int, accept: (DocumentKey) -> Bool = { _ in true }
    ) -> (entries: [(sequence: UInt64, element: DocumentKey)], refused: [DocumentKey], examined: Int, front: Int) {
        var front = orphans.start
        let pick = orphans.lowest(limit, front: &front, element: key(at:), accept: accept)
        return (pick.entries, pick.refused, pick.examined, front)
    }

    /// Drops for good the stale slots ``lowestOrphans(_:accept:)`` met at the queue's front; no entry changes.
    mutating func dropStaleOrphans(before front: Int) { updateOrphans { orphans, _ in orphans.dropStale(before: front) } }

    /// Replaces the queue with the documents `orphanSequence` gives a number (nil: not an orphan), ordered by it
    /// and ties in key order, so that identical caches collect identically. Keys are built once per document
    /// for the call, and again only to break ties; the queue's array is allocated once.
    mutating func rebuildOrphans(_ orphanSequence: (DocumentKey, RemoteDocumentEntry) -> UInt64?) {
        updateOrphans { orphans, _ in orphans = OrphanQueue() }
        var queue = OrphanQueue(capacity: foundCount + absentCount)
        for number in buckets.indices {
            for position in 0..<buckets[number].count {
                let handle = DocumentHandle(bucket: number, position: position)
                if let sequence = orphanSequence(key(at: handle), self[handle]) {
                    queue.append(handle, sequence: sequence)
                } else if self[handle].orphan != 0 {
                    updateOrphans { _, buckets in buckets.setOrphan(0, at: handle) }
                }
            }
        }
        queue.sort { key(at: $0) < key(at: $1) }
        updateOrphans { orphans, buckets in
            swap(&orphans, &queue)
            orphans.renumber(orphans.slots.indices, &buckets)
        }
    }

    /// What breaks the orphan queue's invariants, the entries' side included: every live slot's entry names it,
    /// and every entry that names a slot is that slot's document (tests; empty when nothing does).
    func orphanInvariantViolations() -> [String] {
        var problems = orphans.invariantViolations { self[$0].orphan }
        var named = 0
        for number in buckets.indices {
            for position in 0..<buckets[number].count {
                let handle = DocumentHandle(bucket: number, position: position)
                guard self[handle].orphan != 0 else { continue }
                named += 1
                let slot = Int(self[handle].orphan) - 1
                if slot >= orphans.slots.count || orphans.slots[slot].handle != handle {
                    problems.append("the entry at \(handle) names slot \(self[handle].orphan - 1) of another document")
                }
            }
        }
        if named != orphans.count { problems.append("\(named) entries name slots, \(orphans.count) orphans") }
        return problems
    }
}
