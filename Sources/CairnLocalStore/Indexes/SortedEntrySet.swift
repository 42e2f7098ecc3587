import CairnModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One entry of a field index in memory: its sort key (``IndexEntry/sortKey``, unique within the index) and the
/// document it belongs to.
struct IndexViewEntry {
    var sortKey: [UInt8]
    var key: DocumentKey
}

/// The entries of one field index, ordered by sort key (unsigned bytes, lexicographically): a two-level B-tree
/// — a sorted array of sorted chunks of at most `2 × chunkCapacity` entries. Finding an entry is a binary search
/// over the chunks' last keys, then within one chunk, so insert, remove and seek cost O(log n + chunkCapacity)
/// however large the index grows, and a range scan reads its entries in order.
///
/// ```swift
/// var set = SortedEntrySet()
/// set.insert(IndexViewEntry(sortKey: entry.sortKey, key: entry.key))
/// set.forEach(in: range) { entry in
///     keys.insert(entry.key)
///     return keys.count < limit            // false stops the scan
/// }
/// ```
struct SortedEntrySet {
    /// Chunks split in two halves of this size when they outgrow twice it.
    static let chunkCapacity = 128

    /// Non-empty sorted chunks; every key of a chunk sorts before every key of the next.
    private var chunks: [[IndexViewEntry]] = []
    private(set) var count = 0

    /// Inserts `entry`; false when an entry with its sort key is present already.
    @discardableResult
    mutating func insert(_ entry: IndexViewEntry) -> Bool {
        guard !chunks.isEmpty else {
            chunks = [[entry]]
            count = 1
            return true
        }
        let chunk = min(chunkIndex(atOrAfter: entry.sortKey), chunks.count - 1)
        let position = Self.lowerBound(entry.sortKey, in: chunks[chunk])
        if position < chunks[chunk].count && Self.compare(chunks[chunk][position].sortKey, entry.sortKey) == 0 {
            return false
        }
        chunks[chunk].insert(entry, at: position)
        count += 1
        if chunks[chunk].count > 2 * Self.chunkCapacity {
            let tail = Array(chunks[chunk][Self.chunkCapacity...])
            chunks[chunk].removeSubrange(Self.chunkCapacity...)
            chunks.insert(tail, at: chunk + 1)
        }
        return true
    }

    /// Removes the entry with `sortKey`; false when there is none.
    @discardableResult
    mutating func remove(_ sortKey: [UInt8]) -> Bool {
        let chunk = chunkIndex(atOrAfter: sortKey)
        guard chunk < chunks.count else { return false }
        let position = Self.lowerBound(sortKey, in: chunks[chunk])
        guard position < chunks[chunk].count, Self.compare(chunks[chunk][position].sortKey, sortKey) == 0 else {
            return false
        }
        chunks[chunk].remove(at: position)
        count -= 1
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
        return true
    }

    /// Calls `body` with the entries in `range`, in sort-key order, while it returns true.
    func forEach(in range: IndexRange, _ body: (IndexViewEntry) throws -> Bool) rethrows {
        var chunk = chunkIndex(atOrAfter: range.lower)
        guard chunk < chunks.count else { return }
        var position = Self.lowerBound(range.lower, in: chunks[chunk])
        while chunk < chunks.count {
            let entries = chunks[chunk]
            while position < entries.count {
                let entry = entries[position]
                guard range.contains(entry.sortKey) else {
                    // Only the lower bound itself can fail on the low side (an exclusive lower bound).
                    if Self.compare(entry.sortKey, range.lower) == 0 {
                        position += 1
                        continue
                    }
                    return
                }
                guard try body(entry) else { return }
                position += 1
            }
            chunk += 1
            position = 0
        }
    }

    /// Every entry, in sort-key order.
    var all: [IndexViewEntry] { chunks.flatMap { $0 } }

    /// The first chunk whose last key is at or after `sortKey`; `chunks.count` when none is.
    private func chunkIndex(atOrAfter sortKey: [UInt8]) -> Int {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if Self.compare(chunks[middle][chunks[middle].count - 1].sortKey, sortKey) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The position of the first entry of `entries` whose key is at or after `sortKey`.
    private static func lowerBound(_ sortKey: [UInt8], in entries: [IndexViewEntry]) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if compare(entries[middle].sortKey, sortKey) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// Compares byte strings lexicographically as unsigned bytes, a proper prefix first: -1, 0 or 1.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                let common = min(a.count, b.count)
                if common > 0 {
                    let result = memcmp(a.baseAddress!, b.baseAddress!, common)
                    if result != 0 { return result < 0 ? -1 : 1 }
                }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
        }
    }
}
