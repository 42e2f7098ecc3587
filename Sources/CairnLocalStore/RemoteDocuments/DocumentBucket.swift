/// One collection's existing documents in the remote documents view, in plain arrays: the packed entries, the
/// document ids as UTF-8 bytes in one arena (each after its length as a LEB128 varint; where each starts), and an
/// open-addressing table of entry positions (linear probing, at most 3/4 full) to find an id. About 40 + 4 + 4–11
/// bytes per document plus its id's bytes and their length's one byte (two from 128 bytes); no `String` or object
/// per document.
///
/// Removing a document moves the last entry into its place (positions are stable only while the bucket is not
/// changed) and leaves its id's bytes in the arena until the garbage is half of it, when the arena is rewritten.
///
/// ```swift
/// var bucket = DocumentBucket()
/// bucket.set(entry, for: "m1")                   // nil: it is new
/// bucket["m1"]?.sequence
/// for position in 0..<bucket.count { print(bucket.id(at: position), bucket.entries[position].reference) }
/// bucket.remove("m1")
/// ```
struct DocumentBucket {
    /// The entries, in no particular order, packed (``PackedEntries``).
    private(set) var entries = PackedEntries()
    /// Per entry: where its id's length starts in `arena` (the id's bytes follow it).
    private var idStarts: [UInt32] = []
    private var arena: [UInt8] = []
    /// Arena bytes no entry uses any more.
    private var garbage = 0
    /// Entry positions by their ids' hashes.
    private var table = SlotTable(capacity: 8)

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The id of the document at `position`, as a string.
    func id(at position: Int) -> String { withID(at: position) { String(decoding: $0, as: UTF8.self) } }

    /// Calls `body` with the UTF-8 bytes of the id at `position`.
    func withID<T>(at position: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try arena.withUnsafeBytes { arena in
            var offset = Int(idStarts[position])
            var length = 0
            var shift = 0
            while true {
                let byte = arena[offset]
                offset += 1
                length |= Int(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return try body(UnsafeRawBufferPointer(rebasing: arena[offset..<(offset + length)]))
        }
    }

    /// The position of the document with id `id`, if present.
    func position(of id: UnsafeRawBufferPointer) -> Int? {
        let (slot, found) = find(id)
        return found ? Int(table.value(at: slot)) : nil
    }

    func position(of id: String) -> Int? {
        var id = id
        return id.withUTF8 { position(of: UnsafeRawBufferPointer($0)) }
    }

    subscript(id: String) -> RemoteDocumentEntry? { position(of: id).map { entries[$0] } }

    /// Records `entry` for `id`; returns the entry it replaces, if any.
    @discardableResult
    mutating func set(_ entry: RemoteDocumentEntry, for id: UnsafeRawBufferPointer) -> RemoteDocumentEntry? {
        let (slot, found) = find(id)
        if found {
            let position = Int(table.value(at: slot))
            defer { entries.set(entry, at: position) }
            return entries[position]
        }
        insert(entry, for: id, at: slot)
        return nil
    }

    @discardableResult
    mutating func set(_ entry: RemoteDocumentEntry, for id: String) -> RemoteDocumentEntry? {
        var id = id
        return id.withUTF8 { set(entry, for: UnsafeRawBufferPointer($0)) }
    }

    /// Keeps for `id` whichever of `entry` and the entry it has carries the higher sequence number (`entry` on a
    /// tie); returns the other one, or nil when `id` is new. One lookup: replay calls it once per record.
    mutating func keepLatest(_ entry: RemoteDocumentEntry, for id: UnsafeRawBufferPointer) -> RemoteDocumentEntry? {
        let (slot, found) = find(id)
        guard found else {
            insert(entry, for: id, at: slot)
            return nil
        }
        let position = Int(table.value(at: slot))
        let current = entries[position]
        if current.sequence > entry.sequence { return entry }
        entries.set(entry, at: position)
        return current
    }

    /// Points the entry of `id` at `to` if it still points at `from` (compaction moved its record); returns
    /// whether it did. Called in place through the view's dictionary, so the entries are never copied.
    mutating func relocate(_ id: UnsafeRawBufferPointer, from: EventReference, to: EventReference) -> Bool {
        guard let position = position(of: id), entries[position].reference == from else { return false }
        var entry = entries[position]
        entry.reference = to
        entries.set(entry, at: position)
        return true
    }

    mutating func relocate(_ id: String, from: EventReference, to: EventReference) -> Bool {
        var id = id
        return id.withUTF8 { relocate(UnsafeRawBufferPointer($0), from: from, to: to) }
    }

    /// Forgets `id`; returns the entry it had. The last entry moves into its position (when it was not the last).
    @discardableResult
    mutating func remove(_ id: UnsafeRawBufferPointer) -> RemoteDocumentEntry? {
        let (slot, found) = find(id)
        guard found else { return nil }
        return remove(slot: slot, position: Int(table.value(at: slot)))
    }

    /// Forgets the document at `position`; returns its entry. The last entry moves into `position` (when it was
    /// not the last).
    @discardableResult
    mutating func remove(at position: Int) -> RemoteDocumentEntry {
        remove(slot: table.slot(holding: Int32(position), hash: hash(of: Int32(position))), position: position)
    }

    private mutating func remove(slot: Int, position: Int) -> RemoteDocumentEntry {
        garbage += withID(at: position) { Self.lengthSize($0.count) + $0.count }
        var moved = SlotTable.empty
        swap(&moved, &table)
        moved.clear(slot, hash: hash(of:))
        swap(&moved, &table)
        let last = entries.count - 1
        if position != last {
            table.store(Int32(position), at: table.slot(holding: Int32(last), hash: hash(of: Int32(last))))
            idStarts[position] = idStarts[last]
        }
        let removed = entries.swapRemove(at: position)
        idStarts.removeLast()
        if garbage > 4096 && garbage * 2 > arena.count { rewriteArena() }
        return removed
    }

    @discardableResult
    mutating func remove(_ id: String) -> RemoteDocumentEntry? {
        var id = id
        return id.withUTF8 { remove(UnsafeRawBufferPointer($0)) }
    }

    /// Replaces the entry at `position` (its id stays).
    mutating func replace(_ entry: RemoteDocumentEntry, at position: Int) { entries.set(entry, at: position) }

    /// Records in the entry at `position` its place in the orphan queue (``RemoteDocumentEntry/orphan``).
    mutating func setOrphan(_ orphan: UInt32, at position: Int) { entries.setOrphan(orphan, at: position) }

    /// Gives up the arrays' spare capacity when it is more than an eighth of what they hold (replay grows a
    /// bucket by doubling; the view keeps it for the session), and the table's slots beyond the smallest
    /// power of two that holds the entries at most 3/4 full (replay met every id, removed ones included). The
    /// bucket's arrays are copied one at a time.
    mutating func shrinkToFit() {
        entries.shrinkToFit()
        Self.shrink(&idStarts)
        if garbage > 0 || arena.capacity - arena.count > arena.count / 8 { rewriteArena() }
        var capacity = 8
        while entries.count * 4 > capacity * 3 { capacity <<= 1 }
        if capacity < table.capacity { rehash(capacity) }
    }

    /// Slots in the id table (for tests of its size).
    var tableCapacity: Int { table.capacity }

    private static func shrink<T>(_ array: inout [T]) {
        guard array.capacity - array.count > array.count / 8 else { return }
        var exact: [T] = []
        exact.reserveCapacity(array.count)
        exact.append(contentsOf: array)
        array = exact
    }

    private mutating func insert(_ entry: RemoteDocumentEntry, for id: UnsafeRawBufferPointer, at slot: Int) {
        table.store(Int32(entries.count), at: slot)
        entries.append(entry)
        idStarts.append(UInt32(arena.count))
        Self.appendID(id, to: &arena)
        if entries.count * 4 > table.capacity * 3 { rehash(table.capacity * 2) }
    }

    /// The slot holding `id`, or the empty slot where it would go.
    private func find(_ id: UnsafeRawBufferPointer) -> (slot: Int, found: Bool) {
        table.find(hash: ByteKeyTable.hash(id)) { position in withID(at: Int(position)) { $0.elementsEqual(id) } }
    }

    private func hash(of position: Int32) -> UInt64 { withID(at: Int(position)) { ByteKeyTable.hash($0) } }

    private mutating func rehash(_ capacity: Int) {
        table = SlotTable(capacity: capacity, values: entries.indices.lazy.map { Int32($0) }, hash: hash(of:))
    }

    /// Appends `id`'s length (LEB128: seven bits a byte, low first, the high bit set on all but the last) and bytes.
    private static func appendID(_ id: UnsafeRawBufferPointer, to arena: inout [UInt8]) {
        var length = id.count
        while length >= 0x80 {
            arena.append(UInt8(truncatingIfNeeded: length) | 0x80)
            length >>= 7
        }
        arena.append(UInt8(length))
        arena.append(contentsOf: id)
    }

    /// The bytes ``appendID(_:to:)`` writes for a length of `count`.
    private static func lengthSize(_ count: Int) -> Int {
        var size = 1
        var rest = count >> 7
        while rest > 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    /// Copies the ids in use into a new arena, dropping the garbage.
    private mutating func rewriteArena() {
        var compacted: [UInt8] = []
        compacted.reserveCapacity(arena.count - garbage)
        for position in entries.indices {
            let start = UInt32(compacted.count)
            withID(at: position) { Self.appendID($0, to: &compacted) }
            idStarts[position] = start
        }
        arena = compacted
        garbage = 0
    }
}
