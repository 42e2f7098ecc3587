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
/// A chunk is plain bytes: its sort keys back to back in one array, where each ends, and where the document
/// key starts in each (a sort key ends with its document's encoded key, so the document is decoded from it
/// when a scan reaches the entry). No array, key or object per entry.
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

    /// Sorted entries packed in three arrays.
    private struct Chunk {
        var bytes: [UInt8] = []
        /// Where each entry's sort key ends in `bytes` (it starts where the previous one ends).
        var ends: [UInt32] = []
        /// Where the document key starts within each entry's sort key.
        var keyStarts: [UInt32] = []

        var count: Int { ends.count }

        func start(_ position: Int) -> Int { position == 0 ? 0 : Int(ends[position - 1]) }

        func withSortKey<T>(_ position: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            let start = start(position)
            return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<Int(ends[position])])) }
        }

        /// The position of the first entry whose key is at or after `sortKey`.
        func lowerBound(_ sortKey: UnsafeRawBufferPointer) -> Int {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if withSortKey(middle, { SortedEntrySet.compare($0, sortKey) }) < 0 { low = middle + 1 } else { high = middle }
            }
            return low
        }

        mutating func insert(_ sortKey: UnsafeRawBufferPointer, keyStart: Int, at position: Int) {
            // Grow by an eighth, not by doubling: a chunk fills to twice its capacity before it splits, and
            // doubled arrays would leave a third of the index's memory unused on average.
            if bytes.capacity < bytes.count + sortKey.count {
                bytes.reserveCapacity(bytes.count + sortKey.count + max(sortKey.count, bytes.count / 8))
            }
            if ends.capacity == ends.count {
                ends.reserveCapacity(ends.count + max(4, ends.count / 8))
                keyStarts.reserveCapacity(ends.capacity)
            }
            let start = start(position)
            bytes.insert(contentsOf: sortKey, at: start)
            for later in position..<count { ends[later] += UInt32(sortKey.count) }
            ends.insert(UInt32(start + sortKey.count), at: position)
            keyStarts.insert(UInt32(keyStart), at: position)
        }

        mutating func remove(at position: Int) {
            let start = start(position)
            let length = Int(ends[position]) - start
            bytes.removeSubrange(start..<(start + length))
            ends.remove(at: position)
            keyStarts.remove(at: position)
            for later in position..<count { ends[later] -= UInt32(length) }
        }

        /// Moves the entries from `position` on into a new chunk.
        mutating func split(at position: Int) -> Chunk {
            let cut = start(position)
            var tail = Chunk()
            tail.bytes = Array(bytes[cut...])
            tail.ends = ends[position...].map { $0 - UInt32(cut) }
            tail.keyStarts = Array(keyStarts[position...])
            // Copies, not removeSubrange: the head gives back the room the tail took.
            bytes = Array(bytes[..<cut])
            ends = Array(ends[..<position])
            keyStarts = Array(keyStarts[..<position])
            return tail
        }
    }

    /// Non-empty sorted chunks; every key of a chunk sorts before every key of the next.
    private var chunks: [Chunk] = []
    private(set) var count = 0

    /// Inserts `sortKey`, whose document key starts at `keyStart`; false when it is present already.
    @discardableResult
    mutating func insert(_ sortKey: [UInt8], keyStart: Int) -> Bool {
        sortKey.withUnsafeBytes { sortKey in
            guard !chunks.isEmpty else {
                var chunk = Chunk()
                chunk.insert(sortKey, keyStart: keyStart, at: 0)
                chunks = [chunk]
                count = 1
                return true
            }
            let chunk = min(chunkIndex(atOrAfter: sortKey), chunks.count - 1)
            let position = chunks[chunk].lowerBound(sortKey)
            if position < chunks[chunk].count && chunks[chunk].withSortKey(position, { Self.compare($0, sortKey) }) == 0 {
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
            guard position < chunks[chunk].count, chunks[chunk].withSortKey(position, { Self.compare($0, sortKey) }) == 0 else {
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
        for chunk in chunks {
            for position in 0..<chunk.count {
                let keyStart = Int(chunk.keyStarts[position])
                chunk.withSortKey(position) { body($0, keyStart) }
            }
        }
    }

    /// Every entry, in sort-key order.
    var all: [(sortKey: [UInt8], keyStart: Int)] {
        chunks.flatMap { chunk in (0..<chunk.count).map { (chunk.withSortKey($0) { Array($0) }, Int(chunk.keyStarts[$0])) } }
    }

    /// Calls `body` with the entries at or after `lower`, in order, while it returns true.
    private func forEach(from lower: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) throws -> Bool) rethrows {
        var chunk = chunkIndex(atOrAfter: lower)
        guard chunk < chunks.count else { return }
        var position = chunks[chunk].lowerBound(lower)
        while chunk < chunks.count {
            let entries = chunks[chunk]
            while position < entries.count {
                let keyStart = Int(entries.keyStarts[position])
                guard try entries.withSortKey(position, { try body($0, keyStart) }) else { return }
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
            if chunks[middle].withSortKey(chunks[middle].count - 1, { Self.compare($0, sortKey) }) < 0 {
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
