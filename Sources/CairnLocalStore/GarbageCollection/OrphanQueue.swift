import CairnModel

/// The orphaned documents by sequence number (``GarbageCollectionIndex/orphans``): ``SequenceQueue``'s sorted
/// array with lazy deletion, specialised to small integer ids — each orphan's key is stored once, as the UTF-8
/// bytes of its path in one arena, under a stable id found again through an open-addressing table; its live
/// sequence number and stamp sit in arrays indexed by that id, and a slot of the array is 16 bytes. No
/// `DocumentKey` (an array of strings) and no dictionary entry per orphan; keys are built only for the entries
/// garbage collection reads.
///
/// ```swift
/// var orphans = OrphanQueue()
/// orphans.set(key, sequence: 7)
/// orphans.lowest(1).entries.map(\.element)        // [key]
/// orphans.remove(key)
/// ```
struct OrphanQueue {
    private struct Slot: SequenceOrderedSlot {
        var sequence: UInt64
        /// Tells a live slot from a stale one of the same id: each `set` of an id gives it a new stamp.
        var stamp: UInt32
        var id: Int32
    }

    private var keys = InternedKeys()
    /// Sorted by sequence number; slots before `start` are all stale.
    private var slots: [Slot] = []
    private var start = 0
    /// Per id: the live sequence number and the stamp of the live slot (ids not interned have none).
    private var sequences: [UInt64] = []
    private var stamps: [UInt32] = []

    /// The number of orphans.
    var count: Int { keys.count }

    func sequence(of key: DocumentKey) -> UInt64? { keys.id(of: key).map { sequences[Int($0)] } }

    func contains(_ key: DocumentKey) -> Bool { keys.id(of: key) != nil }

    /// Adds `key` with `sequence`, or moves it there.
    mutating func set(_ key: DocumentKey, sequence: UInt64) {
        let (id, isNew) = keys.intern(key)
        if !isNew && sequences[Int(id)] == sequence { return }
        let slot = stamp(id, sequence)
        slots.insertInSequenceOrder(slot, start: &start)
        compactIfSparse()
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: DocumentKey) -> Bool {
        guard let id = keys.id(of: key) else { return false }
        keys.release(id)
        compactIfSparse()
        return true
    }

    /// The `limit` orphans with the lowest sequence numbers that `accept` takes, ascending; the orphans it
    /// refused on the way; and how many slots were read (live and stale). Stale slots met at the front are
    /// dropped for good.
    mutating func lowest(
        _ limit: Int, accept: (DocumentKey) -> Bool = { _ in true }
    ) -> (entries: [(sequence: UInt64, element: DocumentKey)], refused: [DocumentKey], examined: Int) {
        var entries: [(sequence: UInt64, element: DocumentKey)] = []
        var refused: [DocumentKey] = []
        var examined = 0
        var index = start
        while index < slots.count && entries.count < limit {
            let slot = slots[index]
            examined += 1
            if isLive(slot) {
                let key = keys.key(slot.id)
                if accept(key) { entries.append((slot.sequence, key)) } else { refused.append(key) }
            } else if index == start {
                start += 1
            }
            index += 1
        }
        return (entries, refused, examined)
    }

    /// Replaces the contents with the orphans `collect` adds (a key added twice keeps its last sequence
    /// number), ordered by sequence number and ties in key order, so that identical caches collect identically.
    /// Keys are built only to break ties.
    mutating func rebuild(_ collect: (_ add: (DocumentKey, UInt64) -> Void) -> Void) {
        keys = InternedKeys()
        sequences = []
        stamps = []
        slots = []
        start = 0
        collect { key, sequence in slots.append(stamp(keys.intern(key).id, sequence)) }
        let interned = keys
        slots.sort { a, b in a.sequence != b.sequence ? a.sequence < b.sequence : interned.key(a.id) < interned.key(b.id) }
        compactIfSparse()
    }

    /// Gives `id` a new stamp and `sequence` as its live number; returns its new live slot.
    private mutating func stamp(_ id: Int32, _ sequence: UInt64) -> Slot {
        let index = Int(id)
        if index == sequences.count {
            sequences.append(sequence)
            stamps.append(0)
        }
        sequences[index] = sequence
        stamps[index] &+= 1
        return Slot(sequence: sequence, stamp: stamps[index], id: id)
    }

    private func isLive(_ slot: Slot) -> Bool { keys.contains(slot.id) && stamps[Int(slot.id)] == slot.stamp }

    /// Rewrites the array without its stale slots once they are more than the live ones (and some).
    private mutating func compactIfSparse() {
        let stored = slots.count - start
        guard stored > 64 && stored > 2 * keys.count else { return }
        slots = slots[start...].filter(isLive)
        start = 0
    }
}

/// Document keys under stable dense ids: the UTF-8 bytes of each path (segments joined by `/`) in one arena,
/// found again through an open-addressing table of ids (linear probing, at most 3/4 full, backward-shift
/// deletion). A released id is reused; its bytes stay in the arena until the garbage is half of it.
private struct InternedKeys {
    private var arena: [UInt8] = []
    private var starts: [UInt32] = []
    /// `UInt32.max` marks a released id.
    private var lengths: [UInt32] = []
    private var released: [Int32] = []
    private var garbage = 0
    /// Ids by their paths' hashes.
    private var table = SlotTable(capacity: 16)

    /// The number of keys interned and not released.
    var count: Int { starts.count - released.count }

    /// Whether `id` holds a key (it was interned and not released since).
    func contains(_ id: Int32) -> Bool { Int(id) < lengths.count && lengths[Int(id)] != .max }

    /// The id of `key`, adding it if new, and whether this call added it.
    mutating func intern(_ key: DocumentKey) -> (id: Int32, isNew: Bool) {
        let path = Array(key.path.canonicalString.utf8)
        return path.withUnsafeBytes { path in
            let (slot, found) = find(path)
            if found { return (table.value(at: slot), false) }
            let id: Int32
            if let reused = released.popLast() {
                id = reused
                starts[Int(id)] = UInt32(arena.count)
                lengths[Int(id)] = UInt32(path.count)
            } else {
                id = Int32(starts.count)
                starts.append(UInt32(arena.count))
                lengths.append(UInt32(path.count))
            }
            arena.append(contentsOf: path)
            table.store(id, at: slot)
            if count * 4 > table.capacity * 3 { rehash(table.capacity * 2) }
            return (id, true)
        }
    }

    func id(of key: DocumentKey) -> Int32? {
        let path = Array(key.path.canonicalString.utf8)
        return path.withUnsafeBytes { path in
            let (slot, found) = find(path)
            return found ? table.value(at: slot) : nil
        }
    }

    /// The key of `id` (interned, not released).
    func key(_ id: Int32) -> DocumentKey {
        withPath(id) { path in
            DocumentKey(path: ResourcePath(segments: path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }))
        }
    }

    /// Forgets `id`; it may be given to another key.
    mutating func release(_ id: Int32) {
        var moved = SlotTable.empty
        swap(&moved, &table)
        moved.clear(moved.slot(holding: id, hash: hash(of: id)), hash: hash(of:))
        swap(&moved, &table)
        garbage += Int(lengths[Int(id)])
        lengths[Int(id)] = .max
        released.append(id)
        if garbage > 4096 && garbage * 2 > arena.count { rewriteArena() }
    }

    private func withPath<T>(_ id: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let start = Int(starts[Int(id)])
        return arena.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + Int(lengths[Int(id)]))])) }
    }

    private func find(_ path: UnsafeRawBufferPointer) -> (slot: Int, found: Bool) {
        table.find(hash: ByteKeyTable.hash(path)) { id in withPath(id) { $0.elementsEqual(path) } }
    }

    private func hash(of id: Int32) -> UInt64 { withPath(id) { ByteKeyTable.hash($0) } }

    private mutating func rehash(_ capacity: Int) {
        let live = starts.indices.filter { lengths[$0] != .max }.map { Int32($0) }
        table = SlotTable(capacity: capacity, values: live, hash: hash(of:))
    }

    /// Copies the paths in use into a new arena, dropping the garbage.
    private mutating func rewriteArena() {
        var compacted: [UInt8] = []
        compacted.reserveCapacity(arena.count - garbage)
        for id in starts.indices where lengths[id] != .max {
            let start = UInt32(compacted.count)
            withPath(Int32(id)) { compacted.append(contentsOf: $0) }
            starts[id] = start
        }
        arena = compacted
        garbage = 0
    }
}
