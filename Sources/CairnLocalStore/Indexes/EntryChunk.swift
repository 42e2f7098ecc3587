/// A run of sorted field-index entries in plain bytes (one chunk of a ``SortedEntrySet``): the bytes every
/// entry's sort key starts with are stored once (`prefix`), then the rest of each sort key back to back, and
/// per entry two offsets (where its rest ends, where its document key starts in the whole sort key), 2 bytes
/// each while they fit. No array, key or object per entry.
///
/// Neighbouring sort keys share much: an `array-contains` index's entries of one element share the element and
/// the collection path of the document key after it, a range index's entries the high bytes of close values.
/// The prefix is at least the common prefix of the first and last entry when the chunk was built or last
/// split (a sorted run shares what its ends share); inserting a new first or last entry that shares less
/// shortens it. A sort key is whole again only when a caller needs it (`sortKey(_:into:)`); comparisons read
/// the prefix and the rest in place.
///
/// ```swift
/// var chunk = EntryChunk()
/// chunk.insert(sortKey, keyStart: keyStart, at: chunk.lowerBound(sortKey))
/// chunk.compare(0, sortKey)      // 0
/// let tail = chunk.split(at: chunk.count / 2)
/// ```
struct EntryChunk {
    /// The bytes every entry's sort key starts with.
    private(set) var prefix: [UInt8] = []
    /// The rest of each entry's sort key, back to back.
    private var rests: [UInt8] = []
    /// Per entry: where its rest ends in `rests` (it starts where the previous one ends), and where its
    /// document key starts in its whole sort key.
    private var offsets = ChunkOffsets()

    var count: Int { offsets.count }

    /// The bytes the chunk's arrays have allocated (capacities, not counts).
    var allocatedBytes: Int { prefix.capacity + rests.capacity + offsets.allocatedBytes }

    /// Where the document key starts in the whole sort key at `position`.
    func keyStart(_ position: Int) -> Int { offsets.keyStart(position) }

    private func start(_ position: Int) -> Int { position == 0 ? 0 : offsets.end(position - 1) }

    private func withRest<T>(_ position: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let start = start(position)
        return try rests.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<offsets.end(position)])) }
    }

    /// Compares the sort key at `position` with `key` as unsigned bytes, a proper prefix first: -1, 0 or 1.
    func compare(_ position: Int, _ key: UnsafeRawBufferPointer) -> Int {
        let shared = prefix.count
        let head = prefix.withUnsafeBytes { SortedEntrySet.compare($0, UnsafeRawBufferPointer(rebasing: key[..<min(shared, key.count)])) }
        // Not 0 when the prefix differs from the key's start, or the key is shorter than the prefix.
        guard head == 0 else { return head }
        return withRest(position) { SortedEntrySet.compare($0, UnsafeRawBufferPointer(rebasing: key[shared...])) }
    }

    /// Replaces `buffer`'s contents with the whole sort key at `position`.
    func sortKey(_ position: Int, into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: prefix)
        withRest(position) { buffer.append(contentsOf: $0) }
    }

    /// The position of the first entry whose sort key is at or after `key`.
    func lowerBound(_ key: UnsafeRawBufferPointer) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if compare(middle, key) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func insert(_ sortKey: UnsafeRawBufferPointer, keyStart: Int, at position: Int) {
        if count == 0 {
            prefix = Array(sortKey)
        } else {
            let shared = prefix.withUnsafeBytes { Self.commonPrefixLength($0, sortKey) }
            if shared < prefix.count { shortenPrefix(to: shared) }
        }
        let rest = UnsafeRawBufferPointer(rebasing: sortKey[prefix.count...])
        // Grow by an eighth, not by doubling: a chunk fills to twice its capacity before it splits, and
        // doubled arrays would leave a third of the index's memory unused on average.
        if rests.capacity < rests.count + rest.count {
            rests.reserveCapacity(rests.count + rest.count + max(rest.count, rests.count / 8))
        }
        let start = start(position)
        rests.insert(contentsOf: rest, at: start)
        for later in position..<count { offsets.setEnd(later, offsets.end(later) + rest.count) }
        offsets.insert(end: start + rest.count, keyStart: keyStart, at: position)
    }

    mutating func remove(at position: Int) {
        let start = start(position)
        let length = offsets.end(position) - start
        rests.removeSubrange(start..<(start + length))
        offsets.remove(at: position)
        for later in position..<count { offsets.setEnd(later, offsets.end(later) - length) }
    }

    /// Moves the entries from `position` on into a new chunk; each half's prefix becomes what its first and
    /// last entries share, and its arrays are allocated at their size.
    mutating func split(at position: Int) -> EntryChunk {
        let tail = copy(position..<count)
        self = copy(0..<position)
        return tail
    }

    /// A chunk of the entries in `range` (not empty), with the longest prefix they share.
    private func copy(_ range: Range<Int>) -> EntryChunk {
        var first: [UInt8] = []
        var last: [UInt8] = []
        sortKey(range.lowerBound, into: &first)
        sortKey(range.upperBound - 1, into: &last)
        let shared = first.withUnsafeBytes { first in last.withUnsafeBytes { Self.commonPrefixLength(first, $0) } }
        // Each rest loses the bytes the longer prefix now holds.
        let dropped = shared - prefix.count
        var chunk = EntryChunk()
        chunk.prefix = Array(first[..<shared])
        chunk.rests.reserveCapacity(start(range.upperBound) - start(range.lowerBound) - dropped * range.count)
        chunk.offsets.reserveCapacity(range.count)
        for position in range {
            withRest(position) { chunk.rests.append(contentsOf: $0[dropped...]) }
            chunk.offsets.insert(end: chunk.rests.count, keyStart: offsets.keyStart(position), at: chunk.count)
        }
        return chunk
    }

    /// Makes the prefix its first `length` bytes: the bytes after them move to the front of every rest.
    private mutating func shortenPrefix(to length: Int) {
        let moved = prefix[length...]
        var rebuilt: [UInt8] = []
        rebuilt.reserveCapacity(rests.count + moved.count * count + max(rests.count / 8, 64))
        var start = 0
        for position in 0..<count {
            let end = offsets.end(position)
            rebuilt.append(contentsOf: moved)
            rests.withUnsafeBytes { rebuilt.append(contentsOf: $0[start..<end]) }
            offsets.setEnd(position, rebuilt.count)
            start = end
        }
        rests = rebuilt
        prefix.removeSubrange(length...)
    }

    private static func commonPrefixLength(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        var length = 0
        let limit = min(a.count, b.count)
        while length < limit && a[length] == b[length] { length += 1 }
        return length
    }
}

/// Two offsets per entry of a chunk, side by side: UInt16 while every offset of the chunk fits (ordinary sort
/// keys: 256 entries of up to 255 bytes), UInt32 from the first that does not (large values or keys).
struct ChunkOffsets {
    private var narrow: [UInt16] = []
    /// The offsets once one outgrew UInt16 (`narrow` is empty then).
    private var wide: [UInt32]?

    var count: Int { (wide?.count ?? narrow.count) / 2 }

    var allocatedBytes: Int { wide.map { 4 * $0.capacity } ?? 2 * narrow.capacity }

    func end(_ position: Int) -> Int { wide.map { Int($0[2 * position]) } ?? Int(narrow[2 * position]) }

    func keyStart(_ position: Int) -> Int { wide.map { Int($0[2 * position + 1]) } ?? Int(narrow[2 * position + 1]) }

    mutating func reserveCapacity(_ entries: Int) {
        if wide == nil { narrow.reserveCapacity(2 * entries) } else { wide!.reserveCapacity(2 * entries) }
    }

    mutating func setEnd(_ position: Int, _ end: Int) {
        widen(toHold: end)
        if wide == nil { narrow[2 * position] = UInt16(end) } else { wide![2 * position] = UInt32(end) }
    }

    mutating func insert(end: Int, keyStart: Int, at position: Int) {
        widen(toHold: max(end, keyStart))
        let capacity = wide?.capacity ?? narrow.capacity
        // Grow by an eighth, as the chunk's bytes do.
        if capacity < 2 * count + 2 { reserveCapacity(count + max(4, count / 8)) }
        if wide == nil {
            narrow.insert(UInt16(keyStart), at: 2 * position)
            narrow.insert(UInt16(end), at: 2 * position)
        } else {
            wide!.insert(UInt32(keyStart), at: 2 * position)
            wide!.insert(UInt32(end), at: 2 * position)
        }
    }

    mutating func remove(at position: Int) {
        if wide == nil { narrow.removeSubrange((2 * position)..<(2 * position + 2)) } else { wide!.removeSubrange((2 * position)..<(2 * position + 2)) }
    }

    private mutating func widen(toHold value: Int) {
        guard wide == nil, value > Int(UInt16.max) else { return }
        precondition(value <= Int(UInt32.max), "a chunk of index entries holds less than 4 GiB")
        wide = narrow.map(UInt32.init)
        narrow = []
    }
}
