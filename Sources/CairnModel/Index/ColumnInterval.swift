/// One end of a ``ColumnInterval``: a byte string that the encodings of one index column are compared with.
///
/// Either a full value encoding (an `IndexKeyEncoder` encoding, inclusive or not), or a *type edge*: a single
/// label byte that splits the encodings by their first byte, such as the start of the strings (`0x19`) or the
/// end of the numbers (`0x14`, the first timestamp label). A type edge is inclusive as a lower bound (first
/// byte ≥ label) and exclusive as an upper bound (first byte < label).
struct ColumnBound: Hashable {
    var bytes: [UInt8]
    var inclusive: Bool
    var isTypeEdge: Bool

    static func value(_ bytes: [UInt8], inclusive: Bool) -> ColumnBound {
        ColumnBound(bytes: bytes, inclusive: inclusive, isTypeEdge: false)
    }

    /// The boundary just below the encodings whose first byte is `label`, as a lower bound (`asLower`) or an
    /// upper bound.
    static func typeEdge(_ label: UInt8, asLower: Bool) -> ColumnBound {
        ColumnBound(bytes: [label], inclusive: asLower, isTypeEdge: true)
    }

    /// The same boundary in a descending column, whose bytes are the complement of the ascending ones; a lower
    /// bound becomes an upper bound and vice versa. Complementing reverses the order of full encodings (no
    /// encoding is a prefix of another), so a value bound keeps its inclusiveness. A type edge between first
    /// bytes `label - 1` and `label` becomes the edge between their complements, `~label` and `~label + 1`.
    var reversed: ColumnBound {
        guard isTypeEdge else { return .value(bytes.map { ~$0 }, inclusive: inclusive) }
        return ColumnBound(bytes: [~bytes[0] &+ 1], inclusive: !inclusive, isTypeEdge: true)
    }
}

/// A set of encodings of one index column: those between `lower` and `upper` in unsigned lexicographic byte
/// order (`nil` is unbounded). Intervals are built in ascending encoding space from filters and cursors
/// (`ColumnInterval+Filters.swift`), turned around for descending columns (``reversed``), intersected, and
/// finally prefixed with the bytes of the columns before them to give ``IndexRange``s (``range(after:)``).
///
/// Comparing bound bytes lexicographically orders the sets they bound (a larger lower bound keeps fewer
/// encodings, an exclusive one fewer than an inclusive one with the same bytes), which is all that
/// intersection needs, whether a bound is a value or a type edge.
struct ColumnInterval: Hashable {
    var lower: ColumnBound?
    var upper: ColumnBound?

    /// Every encoding.
    static let unbounded = ColumnInterval(lower: nil, upper: nil)

    /// Exactly the values that encode as `bytes`.
    static func point(_ bytes: [UInt8]) -> ColumnInterval {
        ColumnInterval(lower: .value(bytes, inclusive: true), upper: .value(bytes, inclusive: true))
    }

    /// True when the interval holds a single encoding (both bounds inclusive, with the same bytes; an upper
    /// type edge is exclusive, so those bytes are a full encoding): a prefix of the sort key is fixed, and the
    /// next column can narrow the scan further.
    var isPoint: Bool {
        guard let lower, let upper else { return false }
        return lower.inclusive && upper.inclusive && lower.bytes == upper.bytes
    }

    /// True when no encoding lies between the bounds.
    var isEmpty: Bool {
        guard let lower, let upper else { return false }
        let order = BytewiseOrder.compare(lower.bytes, upper.bytes)
        return order > 0 || (order == 0 && !(lower.inclusive && upper.inclusive))
    }

    /// The interval of a descending column holding the same values.
    var reversed: ColumnInterval { ColumnInterval(lower: upper?.reversed, upper: lower?.reversed) }

    /// The encodings in both intervals; `nil` when there are none.
    func intersection(_ other: ColumnInterval) -> ColumnInterval? {
        let result = ColumnInterval(
            lower: Self.tighter(lower, other.lower, keepLarger: true),
            upper: Self.tighter(upper, other.upper, keepLarger: false))
        return result.isEmpty ? nil : result
    }

    /// The smallest interval holding every interval of `intervals` (which must not be empty).
    static func hull(_ intervals: [ColumnInterval]) -> ColumnInterval {
        intervals.dropFirst().reduce(intervals[0]) { hull, next in
            ColumnInterval(
                lower: looser(hull.lower, next.lower, keepSmaller: true),
                upper: looser(hull.upper, next.upper, keepSmaller: false))
        }
    }

    /// The sort-key range of the entries whose bytes start with `prefix` (the encodings of the columns before
    /// this one) followed by an encoding in this interval.
    ///
    /// An encoding never is a proper prefix of another, and a type edge is one label byte, so "the column
    /// is ≥ b" is "the key is ≥ prefix + b", and "the column is > b" (b a full encoding) is "the key is at or
    /// after the successor of prefix + b", which skips every key that continues prefix + b; likewise for the
    /// upper end. The result is half-open.
    func range(after prefix: [UInt8]) -> IndexRange {
        let lowerKey: [UInt8]
        switch lower {
        case nil: lowerKey = prefix
        case let bound? where bound.inclusive: lowerKey = prefix + bound.bytes
        case let bound?: lowerKey = IndexRange.successor(of: prefix + bound.bytes)
        }
        let upperKey: [UInt8]
        switch upper {
        case nil: upperKey = IndexRange.successor(of: prefix)
        case let bound? where bound.inclusive: upperKey = IndexRange.successor(of: prefix + bound.bytes)
        case let bound?: upperKey = prefix + bound.bytes
        }
        return .halfOpen(lowerKey, upperKey)
    }

    /// Of two lower bounds (`keepLarger`) or two upper bounds, the one that keeps fewer encodings.
    private static func tighter(_ a: ColumnBound?, _ b: ColumnBound?, keepLarger: Bool) -> ColumnBound? {
        guard let a else { return b }
        guard let b else { return a }
        let order = BytewiseOrder.compare(a.bytes, b.bytes)
        if order == 0 && a.inclusive != b.inclusive { return a.inclusive ? b : a }
        if order == 0 { return a.isTypeEdge ? b : a }
        return (order > 0) == keepLarger ? a : b
    }

    /// Of two lower bounds (`keepSmaller`) or two upper bounds, the one that keeps more encodings; `nil`
    /// (unbounded) when either is.
    private static func looser(_ a: ColumnBound?, _ b: ColumnBound?, keepSmaller: Bool) -> ColumnBound? {
        guard let a, let b else { return nil }
        let order = BytewiseOrder.compare(a.bytes, b.bytes)
        if order == 0 { return a.inclusive ? a : b }
        return (order < 0) == keepSmaller ? a : b
    }
}
