/// Dense ids for byte strings, for replay: a record's key is looked up straight from the decoded frame, with no
/// `String`, array or path made for it (Docs/LocalStore.md §3, "replay must not decode document bodies" — nor
/// build a path per record). Open addressing with linear probing over a power-of-two slot array; the keys are
/// copied once, into one arena, when first seen.
///
/// The hash is a multiply-xor mix over 8-byte words: fast, and good enough for keys this process wrote itself
/// (no adversary chooses them).
///
/// ```swift
/// var table = ByteKeyTable()
/// let a = Array("users/ada".utf8).withUnsafeBytes { table.id(for: $0) }   // (0, true)
/// let b = Array("users/ada".utf8).withUnsafeBytes { table.id(for: $0) }   // (0, false)
/// table.withKey(0) { String(decoding: $0, as: UTF8.self) }                // "users/ada"
/// ```
struct ByteKeyTable {
    private var arena: [UInt8] = []
    /// Per id: where its key starts in `arena`, its length and its hash.
    private var starts: [Int] = []
    private var lengths: [Int] = []
    private var hashes: [UInt64] = []
    /// Slot → id + 1 (0: empty).
    private var slots: [Int32]

    init(expectedCount: Int = 64) {
        var capacity = 16
        while capacity < expectedCount * 2 { capacity <<= 1 }
        slots = Array(repeating: 0, count: capacity)
    }

    /// The number of distinct keys.
    var count: Int { starts.count }

    /// The id of `key`, and whether this call added it.
    mutating func id(for key: UnsafeRawBufferPointer) -> (id: Int, isNew: Bool) {
        let hash = Self.hash(key)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let stored = Int(slots[slot])
            if stored == 0 { break }
            let id = stored - 1
            if hashes[id] == hash && lengths[id] == key.count && equals(id, key) { return (id, false) }
            slot = (slot + 1) & mask
        }
        let id = starts.count
        starts.append(arena.count)
        lengths.append(key.count)
        hashes.append(hash)
        arena.append(contentsOf: key)
        slots[slot] = Int32(id + 1)
        if starts.count * 2 > slots.count { grow() }
        return (id, true)
    }

    /// The id of `key` if the table has it (nothing is added).
    func existingID(for key: UnsafeRawBufferPointer) -> Int? {
        let hash = Self.hash(key)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let id = Int(slots[slot]) - 1
            if hashes[id] == hash && lengths[id] == key.count && equals(id, key) { return id }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Calls `body` with the bytes of key `id`.
    func withKey<T>(_ id: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try arena.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[starts[id]..<(starts[id] + lengths[id])])) }
    }

    private func equals(_ id: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        arena.withUnsafeBytes { arena in
            let start = starts[id]
            var i = 0
            while i + 8 <= key.count {
                if arena.loadUnaligned(fromByteOffset: start + i, as: UInt64.self)
                    != key.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
                i += 8
            }
            while i < key.count {
                if arena[start + i] != key[i] { return false }
                i += 1
            }
            return true
        }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for id in 0..<starts.count {
            var slot = Int(truncatingIfNeeded: hashes[id]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id + 1)
        }
    }

    static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        var i = 0
        while i + 8 <= key.count {
            hash = mix(hash ^ key.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        if i < key.count {
            var tail: UInt64 = 0
            for (shift, j) in (i..<key.count).enumerated() { tail |= UInt64(key[j]) << UInt64(8 * shift) }
            hash = mix(hash ^ tail)
        }
        return hash ^ (hash >> 32)
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        let product = value &* 0xFF51_AFD7_ED55_8CCD
        return product ^ (product >> 29)
    }
}
