import CairnModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One entry of a field index, materialized for tests and inspection: its sort key (``IndexEntry/sortKey``,
/// unique within the index) and the document it belongs to.
struct IndexViewEntry {
    var sortKey: [UInt8]
    var key: DocumentKey
}

/// The entries of one field index, ordered by sort key (unsigned bytes, lexicographically): a two-level B-tree
/// — a sorted array of sorted chunks of at most `2 × chunkCapacity` entries. Finding an entry is a binary search
/// over the chunks' last keys, then within one chunk, so insert, remove and seek cost O(log n + chunkCapacity)
/// however large the index grows, and a range scan reads its entries in order.
///
/// A chunk (``EntryChunk``) is plain bytes: the prefix its sort keys share, stored once, then the rest of each
/// back to back, where each ends, and where the document key starts in each (a sort key ends with its
/// document's encoded key, so the document is decoded from it when a scan reaches the entry). No array, key or
/// object per entry.
///
/// ```swift
/// var set = SortedEntrySet()
/// set.insert(entry.sortKey, keyStart: entry.sortKey.count - encodedKey.count)
/// set.forEach(in: range) { sortKey, keyStart in
///     keys.append(sortKey[keyStart...])
///     return keys.count < limit            // false stops the scan
/// }
/// ```
struct SortedEntrySet {
    /// Chunks split in two halves of this size when they outgrow twice it.
    static let chunkCapacity = 128

    /// Non-empty sorted chunks; every key of a chunk sorts before every key of the next.
    private var chunks: [EntryChunk] = []
    private(set) var count = 0

    /// The bytes the entries take in memory: every chunk's allocated arrays (an estimate: no allocator overhead).
    var allocatedBytes: Int { chunks.reduce(chunks.capacity * MemoryLayout<EntryChunk>.stride) { $0 + $1.allocatedBytes } }

    /// Inserts `sortKey`, whose document key starts at `keyStart`; false when it is present already.
    @discardableResult
    mutating func insert(_ sortKey: [UInt8], keyStart: Int) -> Bool {
        sortKey.withUnsafeBytes { sortKey in
            guard !chunks.isEmpty else {
                var chunk = EntryChunk()
                chunk.insert(sortKey, keyStart: keyStart, at: 0)
                chunks = [chunk]
                count = 1
                return true
            }
            let chunk = min(chunkIndex(atOrAfter: sortKey), chunks.count - 1)
            let position = chunks[chunk].lowerBound(sortKey)
            if position < chunks[chunk].count && chunks[chunk].compare(position, sortKey) == 0 {
                return false
            }
            chunks[chunk].insert(sortKey, keyStart: keyStart, at: position)
            count += 1
            if chunks[chunk].count > 2 * Self.chunkCapacity {
                chunks.insert(chunks[chunk].split(at: Self.chunkCapacity), at: chunk + 1)
            }
            return true
        }
    }

    /// Removes the entry with `sortKey`; false when there is none.
    @discardableResult
    mutating func remove(_ sortKey: [UInt8]) -> Bool {
        sortKey.withUnsafeBytes { sortKey in
            let chunk = chunkIndex(atOrAfter: sortKey)
            guard chunk < chunks.count else { return false }
            let position = chunks[chunk].lowerBound(sortKey)
            guard position < chunks[chunk].count, chunks[chunk].compare(position, sortKey) == 0 else {
                return false
            }
            chunks[chunk].remove(at: position)
            count -= 1
            if chunks[chunk].count == 0 { chunks.remove(at: chunk) }
            return true
        }
    }

    /// Calls `body` with the sort key and document-key offset of each entry in `range`, in sort-key order, while
    /// it returns true.
    func forEach(in range: IndexRange, _ body: (UnsafeRawBufferPointer, Int) throws -> Bool) rethrows {
        try range.lower.withUnsafeBytes { lower in
            try range.upper.withUnsafeBytes { upper in
                try forEach(from: lower) { sortKey, keyStart in
                    let fromLower = Self.compare(sortKey, lower)
                    // Only the lower bound itself can fail on the low side (an exclusive lower bound).
                    if fromLower == 0 && !range.lowerInclusive { return true }
                    let toUpper = Self.compare(sortKey, upper)
                    guard range.upperInclusive ? toUpper <= 0 : toUpper < 0 else { return false }
                    return try body(sortKey, keyStart)
                }
            }
        }
    }

    /// Calls `body` with each entry whose sort key starts with `prefix`, in order, while it returns true.
    func forEach(prefix: [UInt8], _ body: (UnsafeRawBufferPointer, Int) throws -> Bool) rethrows {
        try prefix.withUnsafeBytes { prefix in
            try forEach(from: prefix) { sortKey, keyStart in
                guard sortKey.count >= prefix.count, Self.compare(UnsafeRawBufferPointer(rebasing: sortKey[..<prefix.count]), prefix) == 0
                else { return false }
                return try body(sortKey, keyStart)
            }
        }
    }

    /// Calls `body` with the sort key and document-key offset of every entry, in sort-key order.
    func forEachEntry(_ body: (UnsafeRawBufferPointer, Int) -> Void) {
        forEach(from: UnsafeRawBufferPointer(start: nil, count: 0)) { sortKey, keyStart in
            body(sortKey, keyStart)
            return true
        }
    }

    /// Every entry, in sort-key order.
    var all: [(sortKey: [UInt8], keyStart: Int)] {
        var entries: [(sortKey: [UInt8], keyStart: Int)] = []
        forEachEntry { entries.append((Array($0), $1)) }
        return entries
    }

    /// Calls `body` with the entries at or after `lower`, in order, while it returns true; each sort key is
    /// made whole in one buffer, valid only during the call.
    private func forEach(from lower: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) throws -> Bool) rethrows {
        var chunk = chunkIndex(atOrAfter: lower)
        guard chunk < chunks.count else { return }
        var position = chunks[chunk].lowerBound(lower)
        var sortKey: [UInt8] = []
        while chunk < chunks.count {
            let entries = chunks[chunk]
            while position < entries.count {
                entries.sortKey(position, into: &sortKey)
                guard try sortKey.withUnsafeBytes({ try body($0, entries.keyStart(position)) }) else { return }
                position += 1
            }
            chunk += 1
            position = 0
        }
    }

    /// The first chunk whose last key is at or after `sortKey`; `chunks.count` when none is.
    private func chunkIndex(atOrAfter sortKey: UnsafeRawBufferPointer) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].compare(chunks[middle].count - 1, sortKey) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// Compares byte strings lexicographically as unsigned bytes, a proper prefix first: -1, 0 or 1.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let result = memcmp(a.baseAddress!, b.baseAddress!, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
