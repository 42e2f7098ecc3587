import CairnModel

/// The orphaned documents by sequence number (``GarbageCollectionIndex/orphans``): a ``SequenceQueue`` of small
/// integer ids, and each orphan's key stored once, as the UTF-8 bytes of its path in one arena, under a stable
/// id found again through an open-addressing table — no `DocumentKey` (an array of strings) per orphan. Keys
/// are built only for the entries garbage collection reads.
///
/// ```swift
/// var orphans = OrphanQueue()
/// orphans.set(key, sequence: 7)
/// orphans.lowest(1).entries.map(\.element)        // [key]
/// orphans.remove(key)
/// ```
struct OrphanQueue {
    private var keys = InternedKeys()
    private var queue = SequenceQueue<Int32>()

    /// The number of orphans.
    var count: Int { queue.count }

    func sequence(of key: DocumentKey) -> UInt64? { keys.id(of: key).flatMap { queue.sequence(of: $0) } }

    func contains(_ key: DocumentKey) -> Bool { sequence(of: key) != nil }

    /// Adds `key` with `sequence`, or moves it there.
    mutating func set(_ key: DocumentKey, sequence: UInt64) {
        queue.set(keys.intern(key), sequence: sequence)
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: DocumentKey) -> Bool {
        guard let id = keys.id(of: key), queue.remove(id) else { return false }
        keys.release(id)
        return true
    }

    /// ``SequenceQueue/lowest(_:accept:)`` with the orphans' keys.
    mutating func lowest(
        _ limit: Int, accept: (DocumentKey) -> Bool = { _ in true }
    ) -> (entries: [(sequence: UInt64, element: DocumentKey)], refused: [DocumentKey], examined: Int) {
        let interned = keys
        let pick = queue.lowest(limit) { accept(interned.key($0)) }
        return (pick.entries.map { ($0.sequence, interned.key($0.element)) }, pick.refused.map(interned.key), pick.examined)
    }

    /// Replaces the contents with the orphans `collect` adds (each key once), ordered by sequence number and
    /// ties in key order, so that identical caches collect identically. Keys are built only to break ties.
    mutating func rebuild(_ collect: (_ add: (DocumentKey, UInt64) -> Void) -> Void) {
        keys = InternedKeys()
        var elements: [(sequence: UInt64, element: Int32)] = []
        collect { key, sequence in elements.append((sequence, keys.intern(key))) }
        let interned = keys
        elements.sort { a, b in
            a.sequence != b.sequence ? a.sequence < b.sequence : interned.key(a.element) < interned.key(b.element)
        }
        queue = SequenceQueue()
        queue.rebuild(elements)
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
    /// Slot → id + 1 (0: empty); a power of two long.
    private var slots: [Int32] = Array(repeating: 0, count: 16)

    /// The id of `key`, adding it if new.
    mutating func intern(_ key: DocumentKey) -> Int32 {
        let path = Array(key.path.canonicalString.utf8)
        return path.withUnsafeBytes { path in
            let (slot, found) = find(path)
            if found { return slots[slot] - 1 }
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
            slots[slot] = id + 1
            if (starts.count - released.count) * 4 > slots.count * 3 { rehash(slots.count * 2) }
            return id
        }
    }

    func id(of key: DocumentKey) -> Int32? {
        let path = Array(key.path.canonicalString.utf8)
        return path.withUnsafeBytes { path in
            let (slot, found) = find(path)
            return found ? slots[slot] - 1 : nil
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
        let mask = slots.count - 1
        var slot = home(of: id)
        while slots[slot] != id + 1 { slot = (slot + 1) & mask }
        clear(slot)
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
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: ByteKeyTable.hash(path)) & mask
        while slots[slot] != 0 {
            if withPath(slots[slot] - 1, { $0.elementsEqual(path) }) { return (slot, true) }
            slot = (slot + 1) & mask
        }
        return (slot, false)
    }

    private func home(of id: Int32) -> Int {
        withPath(id) { Int(truncatingIfNeeded: ByteKeyTable.hash($0)) } & (slots.count - 1)
    }

    /// Empties `slot`, moving later entries of its probe run back so every id stays reachable from its home.
    private mutating func clear(_ slot: Int) {
        let mask = slots.count - 1
        var hole = slot
        var next = slot
        while true {
            next = (next + 1) & mask
            guard slots[next] != 0 else { break }
            let home = home(of: slots[next] - 1)
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !stays {
                slots[hole] = slots[next]
                hole = next
            }
        }
        slots[hole] = 0
    }

    private mutating func rehash(_ capacity: Int) {
        slots = Array(repeating: 0, count: capacity)
        let mask = capacity - 1
        for id in starts.indices where lengths[id] != .max {
            var slot = home(of: Int32(id))
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id + 1)
        }
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
