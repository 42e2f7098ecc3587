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
/// an array of 16-byte slots in sequence order, each an orphan's sequence number and its ``DocumentHandle`` —
/// no key, no id: the view has the key, and the orphan's entry keeps its slot's number plus one
/// (``RemoteDocumentEntry/orphan``). So the queue reads an orphan's sequence number from its slot, and the view
/// tells the queue when an entry moves (``move(_:to:)``): a bucket's removal moves its last entry into the
/// hole, and a document may move between the buckets of existing and absent documents.
///
/// Deletion is lazy: a document that leaves the queue, or moves to a new sequence number (a new slot), leaves its
/// old slot stale (handle ``free``). The stale slots are one run at a time, the *gap*: at rest it is the front
/// the collector has walked past (``dropStale(before:)`` only moves its end, so no slot changes number). Once
/// the stale slots outnumber the live ones (and some), a compaction moves the gap to the back, a few slots per
/// change (``compactionStep``): each live slot after the gap moves down to its start and its entry is
/// renumbered, so no single change renumbers more than a few entries; at the back the gap is cut off. An older
/// sequence number (a removed target's documents) is inserted by moving the slots between its place and the
/// nearest stale slot (the gap, or the one before the front) by one, renumbering those. The walks and searches
/// read the slots before the gap and those after it.
///
/// ```swift
/// var queue = OrphanQueue()
/// queue.set(nil, at: handle, sequence: 7, entries: &buckets)    // queued; the entry's `orphan` is its slot + 1
/// queue.lowest(1, front: &front, element: { $0 }).entries         // [(7, handle)]
/// queue.remove(OrphanQueue.slot(named: entry.orphan)!, entries: &buckets)
/// ```
struct OrphanQueue {
    struct Slot {
        var sequence: UInt64
        /// The orphan's entry in the view; ``OrphanQueue/free`` when the slot is stale.
        var handle: DocumentHandle
    }

    static let free = DocumentHandle(bucket: -1, position: -1)
    /// The slots a compaction reads (moving the live ones) per change to the queue: more than the one slot a
    /// change can add, so that a compaction ends.
    static let compactionStep = 8

    /// In sequence order, the gap (`gapStart..<gapEnd`) left out; slots before `start` are stale.
    var slots: [Slot] = []
    /// The gap: stale slots no walk or search reads. At rest it is `0..<start` (the stale front); while
    /// compacting, the slots before it are those already moved down (from `start` on, possibly live), those
    /// after it those not read yet.
    var gapStart = 0
    var gapEnd = 0
    /// The first slot that may be live: before the gap (`start < gapStart`), or the gap's end (`gapStart == 0`).
    /// The state above is changed only by the queue (`OrphanQueue+Gap.swift` too).
    var start = 0
    /// Whether a compaction is moving the gap to the back.
    var compacting = false
    /// The number of orphans (live slots).
    private(set) var count = 0

    /// The slot an entry's ``RemoteDocumentEntry/orphan`` field names; nil when it is not queued.
    static func slot(named field: UInt32) -> Int? { field == 0 ? nil : Int(field) - 1 }

    /// The ``RemoteDocumentEntry/orphan`` field that names slot `number`.
    static func field(naming number: Int) -> UInt32 { UInt32(number + 1) }

    /// The slots stored, live and stale (the gap included).
    var storedSlots: Int { slots.count }

    func sequence(of number: Int) -> UInt64 { slots[number].sequence }

    /// Queues the document at `handle` (`number` nil: not queued yet) at `sequence`, or moves it there (a new slot;
    /// the old one goes stale), and writes its slot's number into its entry in `buckets`.
    mutating func set(_ number: Int?, at handle: DocumentHandle, sequence: UInt64, entries buckets: inout [DocumentBucket]) {
        if let number {
            if slots[number].sequence == sequence { return }
            slots[number].handle = Self.free
            count -= 1
        }
        precondition(slots.count < Int(UInt32.max) - 1, "more than 2^32 - 2 orphan slots")
        let placed = insert(Slot(sequence: sequence, handle: handle), entries: &buckets)
        buckets.setOrphan(Self.field(naming: placed), at: handle)
        count += 1
        compactStep(&buckets)
    }

    /// Takes the document in slot `number` out of the queue (its entry is the caller's to clear or remove).
    mutating func remove(_ number: Int, entries buckets: inout [DocumentBucket]) {
        slots[number].handle = Self.free
        count -= 1
        compactStep(&buckets)
    }

    /// The document in slot `number` is now at `handle`.
    mutating func move(_ number: Int, to handle: DocumentHandle) { slots[number].handle = handle }

    /// The `limit` orphans with the lowest sequence numbers whose elements (`element` of their handles) `accept`
    /// takes, ascending; the elements it refused on the way; and how many slots were read (live and stale).
    /// `front` (from ``start``) moves past the stale slots met at the front: pass it to ``dropStale(before:)``
    /// before any other change. Reads only, so `element` and `accept` may read the view that holds the queue.
    func lowest<Element>(
        _ limit: Int, front: inout Int, element: (DocumentHandle) -> Element, accept: (Element) -> Bool = { _ in true }
    ) -> (entries: [(sequence: UInt64, element: Element)], refused: [Element], examined: Int) {
        var entries: [(sequence: UInt64, element: Element)] = []
        var refused: [Element] = []
        var examined = 0
        var index = front
        while index < slots.count && entries.count < limit {
            if index == gapStart && gapStart < gapEnd {
                if front == index { front = gapEnd }
                index = gapEnd
                continue
            }
            let slot = slots[index]
            examined += 1
            if slot.handle != Self.free {
                let made = element(slot.handle)
                if accept(made) { entries.append((slot.sequence, made)) } else { refused.append(made) }
            } else if index == front {
                front += 1
            }
            index += 1
        }
        return (entries, refused, examined)
    }

    /// Leaves out for good the slots before `front`, all stale (from ``lowest(_:front:element:accept:)``): the
    /// gap grows over them when the walk passed it. No slot changes number.
    mutating func dropStale(before front: Int) {
        if front < gapStart {
            start = max(start, front)
        } else if front > start {
            gapStart = 0
            gapEnd = front
            start = front
            finishCompaction()
        }
    }

    init() {}

    /// An empty queue with room for `capacity` orphans, to be filled by ``append(_:sequence:)`` and put in order
    /// by ``sort(precedes:)`` (a rebuild: the array allocated once, at its final size when all are orphans). It
    /// starts with a stale front of up to ``rebuiltFrontRoom`` slots (a 64th of `capacity`).
    init(capacity: Int) {
        let room = min(Self.rebuiltFrontRoom, capacity / 64)
        slots.reserveCapacity(room + capacity)
        slots.append(contentsOf: repeatElement(Slot(sequence: 0, handle: Self.free), count: room))
        start = room
        gapEnd = room
    }

    /// The stale slots a rebuilt queue starts with at its front: room for the older sequence numbers a session's
    /// first collection round inserts near the front (a removed target's documents) before its evictions make
    /// more, each moving only the slots between its place and the front instead of every slot after it.
    static let rebuiltFrontRoom = 1024

    /// Adds the document at `handle`, not queued yet, at `sequence` without keeping the order.
    /// ``sort(precedes:)`` and ``renumber(_:_:)`` restore the order and number the entries before any other use.
    mutating func append(_ handle: DocumentHandle, sequence: UInt64) {
        precondition(slots.count < Int(UInt32.max) - 1, "more than 2^32 - 2 orphan slots")
        slots.append(Slot(sequence: sequence, handle: handle))
        count += 1
    }

    /// Orders the slots by sequence number, ties by `precedes` (the view passes key order, so that identical
    /// caches collect identically); ``renumber(_:_:)`` then writes each slot's number into its entry.
    mutating func sort(precedes: (DocumentHandle, DocumentHandle) -> Bool) {
        slots[start...].sort { a, b in a.sequence != b.sequence ? a.sequence < b.sequence : precedes(a.handle, b.handle) }
    }

    /// Writes the numbers of the live slots in `range` into their entries.
    mutating func renumber(_ range: Range<Int>, _ buckets: inout [DocumentBucket]) {
        for number in range where slots[number].handle != Self.free {
            buckets.setOrphan(Self.field(naming: number), at: slots[number].handle)
        }
    }
}

extension [DocumentBucket] {
    /// Writes `field` (``RemoteDocumentEntry/orphan``) into the entry at `handle`.
    mutating func setOrphan(_ field: UInt32, at handle: DocumentHandle) {
        self[Int(handle.bucket)].setOrphan(field, at: Int(handle.position))
    }
}
