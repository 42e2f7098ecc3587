/// A range of index sort keys (``IndexEntry/sortKey``) to scan, compared as unsigned bytes,
/// lexicographically.
///
/// ``IndexPlanner/scanRanges(for:using:)`` builds ranges from a query's filters and cursors. The ranges it
/// builds are half-open, `[lower, upper)`: `lowerInclusive` is true and `upperInclusive` false, because a
/// range covers every entry whose sort key *starts with* some bytes, which has no largest member. Consumers
/// should still honour both flags, so a range can also describe an interval between two exact sort keys.
///
/// ```swift
/// let range = IndexRange(lower: [0x19], lowerInclusive: true, upper: [0x1E], upperInclusive: false)
/// range.contains(entry.sortKey)     // true for entries whose first column is a string
/// // In an ordered set: seek to `lower`, then read while `contains` holds.
/// ```
package struct IndexRange: Hashable, Sendable, CustomStringConvertible {
    package var lower: [UInt8]
    package var lowerInclusive: Bool
    package var upper: [UInt8]
    package var upperInclusive: Bool

    package init(lower: [UInt8], lowerInclusive: Bool, upper: [UInt8], upperInclusive: Bool) {
        self.lower = lower
        self.lowerInclusive = lowerInclusive
        self.upper = upper
        self.upperInclusive = upperInclusive
    }

    /// Whether a sort key lies in the range.
    package func contains(_ sortKey: [UInt8]) -> Bool {
        let fromLower = BytewiseOrder.compare(sortKey, lower)
        guard lowerInclusive ? fromLower >= 0 : fromLower > 0 else { return false }
        let toUpper = BytewiseOrder.compare(sortKey, upper)
        return upperInclusive ? toUpper <= 0 : toUpper < 0
    }

    /// True when no byte string lies in the range.
    package var isEmpty: Bool {
        let order = BytewiseOrder.compare(lower, upper)
        return order > 0 || (order == 0 && !(lowerInclusive && upperInclusive))
    }

    package var description: String {
        (lowerInclusive ? "[" : "(") + Self.hex(lower) + ", " + Self.hex(upper) + (upperInclusive ? "]" : ")")
    }

    /// `[lower, upper)`.
    static func halfOpen(_ lower: [UInt8], _ upper: [UInt8]) -> IndexRange {
        IndexRange(lower: lower, lowerInclusive: true, upper: upper, upperInclusive: false)
    }

    /// Every byte string that starts with `prefix`: `[prefix, successor(prefix))`.
    static func prefix(_ prefix: [UInt8]) -> IndexRange { halfOpen(prefix, successor(of: prefix)) }

    /// The smallest byte string above every string that starts with `prefix`: the prefix without its
    /// trailing `0xFF` bytes, with its last byte incremented. For the empty prefix, `[0xFF]`, which is above
    /// every sort key (none starts with `0xFF`, so neither does any prefix of one).
    static func successor(of prefix: [UInt8]) -> [UInt8] {
        var bytes = prefix
        while bytes.last == 0xFF { bytes.removeLast() }
        guard let last = bytes.popLast() else { return [0xFF] }
        bytes.append(last + 1)
        return bytes
    }

    /// Sorts half-open ranges by their lower bound and merges those that overlap or touch, so that each sort
    /// key is in at most one of the results.
    static func merged(_ ranges: [IndexRange]) -> [IndexRange] {
        let sorted = ranges.filter { !$0.isEmpty }.sorted { BytewiseOrder.compare($0.lower, $1.lower) < 0 }
        var result: [IndexRange] = []
        for range in sorted {
            if let last = result.last, BytewiseOrder.compare(range.lower, last.upper) <= 0 {
                if BytewiseOrder.compare(range.upper, last.upper) > 0 { result[result.count - 1].upper = range.upper }
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Bytes as lowercase hex pairs, for descriptions.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}
