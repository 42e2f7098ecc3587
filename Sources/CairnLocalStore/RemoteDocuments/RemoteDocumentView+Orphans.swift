import CairnModel

/// The LRU orphan queue over the view's entries (Docs/LocalStore.md §5): the garbage collector says which
/// cached documents are orphans and at which sequence number; the queue keeps a ``DocumentHandle`` per orphan and
/// each orphan's entry keeps its id in the queue, so no key is stored twice and a queued document that moves in
/// the view (``RemoteDocumentView/set(_:for:)``, a removal's move of a bucket's last entry) stays queued. A
/// document removed from the view leaves the queue with it.
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
        guard let handle = handle(of: key), let id = Self.orphanID(self[handle]) else { return nil }
        return orphans.sequence(of: id)
    }

    /// Queues the cached document `key` at `sequence`, or moves it there; nothing when it is not cached.
    mutating func setOrphan(_ key: DocumentKey, sequence: UInt64) {
        guard let handle = handle(of: key) else { return }
        let id = orphans.set(Self.orphanID(self[handle]), at: handle, sequence: sequence)
        setOrphan(UInt32(id) + 1, at: handle)
    }

    /// Takes `key` out of the queue; returns whether it was there.
    @discardableResult
    mutating func removeOrphan(_ key: DocumentKey) -> Bool {
        guard let handle = handle(of: key), let id = Self.orphanID(self[handle]) else { return false }
        orphans.remove(id)
        setOrphan(0, at: handle)
        return true
    }

    /// The `limit` queued orphans with the lowest sequence numbers that `accept` takes, ascending; the orphans it
    /// refused on the way; how many slots were read (live and stale); and the queue's new front, past the stale
    /// slots met there (``dropStaleOrphans(before:)``). Reads only: `accept` may read the view.
    func lowestOrphans(
        _ limit: Int, accept: (DocumentKey) -> Bool = { _ in true }
    ) -> (entries: [(sequence: UInt64, element: DocumentKey)], refused: [DocumentKey], examined: Int, front: Int) {
        var front = orphans.start
        let pick = orphans.lowest(limit, front: &front, element: key(at:), accept: accept)
        return (pick.entries, pick.refused, pick.examined, front)
    }

    /// Drops for good the stale slots ``lowestOrphans(_:accept:)`` met at the queue's front.
    mutating func dropStaleOrphans(before front: Int) { orphans.dropStale(before: front) }

    /// Replaces the queue with the documents `orphanSequence` gives a number (nil: not an orphan), ordered by it
    /// and ties in key order, so that identical caches collect identically. Keys are built once per document
    /// for the call, and again only to break ties; the queue's arrays are allocated once.
    mutating func rebuildOrphans(_ orphanSequence: (DocumentKey, RemoteDocumentEntry) -> UInt64?) {
        orphans = OrphanQueue()
        var queue = OrphanQueue(capacity: foundCount + absentCount)
        for number in buckets.indices {
            for position in 0..<buckets[number].count {
                let handle = DocumentHandle(bucket: number, position: position)
                let id = orphanSequence(key(at: handle), self[handle]).map { queue.append(handle, sequence: $0) }
                setOrphan(id.map { UInt32($0) + 1 } ?? 0, at: handle)
            }
        }
        queue.sort { key(at: $0) < key(at: $1) }
        orphans = queue
    }

    private static func orphanID(_ entry: RemoteDocumentEntry) -> Int32? {
        entry.orphan == 0 ? nil : Int32(entry.orphan - 1)
    }
}
