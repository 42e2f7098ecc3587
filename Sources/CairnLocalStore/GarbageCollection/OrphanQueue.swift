/// Where a cached document's entry is in the remote documents view: the number of its bucket and its position
/// in it (``RemoteDocumentView``).
struct DocumentHandle: Equatable {
    var bucket: Int32
    var position: Int32

    init(bucket: Int, position: Int) {
        self.bucket = Int32(bucket)
        self.position = Int32(position)
    }
}

/// The orphaned documents by orphan sequence number (Docs/LocalStore.md §5), held by the remote documents view:
/// ``SequenceQueue``'s sorted array with lazy deletion over small integer ids, each naming a queued document by
/// its ``DocumentHandle`` — no key is stored here, the view has it. The document's entry keeps its id
/// (``RemoteDocumentEntry/orphan``), so the view tells the queue when an entry moves (``move(_:to:)``): a
/// bucket's removal moves its last entry into the hole, and a document may move between the buckets of existing
/// and absent documents. A slot is 16 bytes; per id, its handle, live sequence number and stamp are 20 more.
///
/// ```swift
/// var queue = OrphanQueue()
/// let id = queue.set(nil, at: handle, sequence: 7)       // queued
/// queue.lowest(1, front: &front, element: { $0 }).entries  // [(7, handle)]
/// queue.remove(id)
/// ```
struct OrphanQueue {
    private struct Slot: SequenceOrderedSlot {
        var sequence: UInt64
        /// Tells a live slot from a stale one of the same id: each `set` of an id gives it a new stamp.
        var stamp: UInt32
        var id: Int32
    }

    /// Sorted by sequence number; slots before `start` are all stale.
    private var slots: [Slot] = []
    private(set) var start = 0
    /// Per id: where its document is (`bucket` -1: the id is free), its live sequence number and the stamp of its
    /// live slot.
    private var handles: [DocumentHandle] = []
    private var sequences: [UInt64] = []
    private var stamps: [UInt32] = []
    private var released: [Int32] = []

    private static let free = DocumentHandle(bucket: -1, position: -1)

    /// The number of orphans.
    var count: Int { handles.count - released.count }

    func sequence(of id: Int32) -> UInt64 { sequences[Int(id)] }

    /// Queues the document at `handle` (`id` nil: not queued yet) at `sequence`, or moves it there; returns its id.
    mutating func set(_ id: Int32?, at handle: DocumentHandle, sequence: UInt64) -> Int32 {
        if let id, sequences[Int(id)] == sequence { return id }
        let id = id ?? allocate(handle)
        slots.insertInSequenceOrder(stamp(id, sequence), start: &start)
        compactIfSparse()
        return id
    }

    /// Takes the document with `id` out of the queue; the id may be given to another document.
    mutating func remove(_ id: Int32) {
        handles[Int(id)] = Self.free
        released.append(id)
        compactIfSparse()
    }

    /// The document with `id` is now at `handle`.
    mutating func move(_ id: Int32, to handle: DocumentHandle) { handles[Int(id)] = handle }

    /// The `limit` orphans with the lowest sequence numbers whose elements (`element` of their handles) `accept`
    /// takes, ascending; the elements it refused on the way; and how many slots were read (live and stale).
    /// `front` (from ``start``) moves past the stale slots met at the front: pass it to ``dropStale(before:)``.
    /// Reads only, so `element` and `accept` may read the view that holds the queue.
    func lowest<Element>(
        _ limit: Int, front: inout Int, element: (DocumentHandle) -> Element, accept: (Element) -> Bool = { _ in true }
    ) -> (entries: [(sequence: UInt64, element: Element)], refused: [Element], examined: Int) {
        slots.lowest(limit, start: &front, isLive: isLive, element: { element(handles[Int($0.id)]) }, accept: accept)
    }

    /// Drops for good the slots before `front`, all stale (from ``lowest(_:front:element:accept:)``).
    mutating func dropStale(before front: Int) { start = max(start, min(front, slots.count)) }

    init() {}

    /// An empty queue with room for `capacity` orphans, to be filled by ``append(_:sequence:)`` and put in order
    /// by ``sort(precedes:)`` (a rebuild: each array allocated once, at its final size when all are orphans).
    init(capacity: Int) {
        slots.reserveCapacity(capacity)
        handles.reserveCapacity(capacity)
        sequences.reserveCapacity(capacity)
        stamps.reserveCapacity(capacity)
    }

    /// Adds the document at `handle`, not queued yet, at `sequence` without keeping the order; returns its id.
    /// ``sort(precedes:)`` restores the order before any other use.
    mutating func append(_ handle: DocumentHandle, sequence: UInt64) -> Int32 {
        let id = allocate(handle)
        slots.append(stamp(id, sequence))
        return id
    }

    /// Orders the slots by sequence number, ties by `precedes` (the view passes key order, so that identical
    /// caches collect identically).
    mutating func sort(precedes: (DocumentHandle, DocumentHandle) -> Bool) {
        let handles = handles
        slots.sort { a, b in a.sequence != b.sequence ? a.sequence < b.sequence : precedes(handles[Int(a.id)], handles[Int(b.id)]) }
    }

    private mutating func allocate(_ handle: DocumentHandle) -> Int32 {
        if let id = released.popLast() {
            handles[Int(id)] = handle
            return id
        }
        precondition(handles.count < Int(Int32.max), "more than 2^31 orphans")
        handles.append(handle)
        sequences.append(0)
        stamps.append(0)
        return Int32(handles.count - 1)
    }

    /// Gives `id` a new stamp and `sequence` as its live number; returns its new live slot.
    private mutating func stamp(_ id: Int32, _ sequence: UInt64) -> Slot {
        let index = Int(id)
        sequences[index] = sequence
        stamps[index] &+= 1
        return Slot(sequence: sequence, stamp: stamps[index], id: id)
    }

    private func isLive(_ slot: Slot) -> Bool {
        handles[Int(slot.id)].bucket >= 0 && stamps[Int(slot.id)] == slot.stamp
    }

    /// Rewrites the array without its stale slots once they are more than the live ones (and some).
    private mutating func compactIfSparse() {
        let (handles, stamps) = (handles, stamps)
        slots.compactIfSparse(start: &start, live: count) { handles[Int($0.id)].bucket >= 0 && stamps[Int($0.id)] == $0.stamp }
    }
}
