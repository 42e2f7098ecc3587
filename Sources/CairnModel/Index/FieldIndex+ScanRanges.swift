/// The sort-key ranges of an index that hold the entries a conjunctive query can match (the SDKs build the same
/// bounds in firebase-android-sdk `core/Target.java` `getLowerBound` / `getUpperBound` / `getArrayValues`, and
/// scan them in `SQLiteIndexManager.getDocumentsMatchingTarget` / iOS `LevelDbIndexManager`).
///
/// The columns of a sort key are the contains column (if any), then the directional segments, then the
/// document key (see ``IndexEntry``). For each column the filters on its field (and the first cursor value,
/// when the column is the query's first order by) give the encodings it may hold, a union of
/// ``ColumnInterval``s (`ColumnInterval+Filters.swift`). The ranges are then built left to right:
///
/// 1. while a column admits only single values (`==`, `in`, `array-contains`, `array-contains-any`), each value
///    extends every prefix built so far (`a in [1, 2] AND b == 3` gives the prefixes `1 3` and `2 3`);
/// 2. the first column that admits intervals (a range, `!=`, `not-in`, a cursor, or no filter at all) gives
///    one range per prefix and interval, and the columns after it are not narrowed;
/// 3. if every column is fixed, each prefix is a range of its own (all keys that start with it).
///
/// When a column would take the count past ``IndexPlanner/maximumRangesPerTerm``, it is covered by the one
/// interval spanning its values instead, and the walk stops there. A column that admits nothing (`a > 5 AND
/// a < 3`) leaves no range: no document can match.
///
/// For a serving index (``TargetIndexMatcher/servedBy(_:)``) the entries in the ranges include every entry
/// of every matching document. With only `==` and range filters on the equality segments and on the first
/// segment after them, they are exactly the matching documents' entries (path and other filters aside).
extension FieldIndex {
    /// The ranges for `term`, a query without OR filters (sorted, disjoint, possibly empty).
    func scanRanges(forTerm term: Query) -> [IndexRange] {
        let filters = term.filters.flatMap(\.flattenedFilters)
        var columns: [[ColumnInterval]] = []
        if let arraySegment { columns.append(elementColumn(arraySegment.field, filters)) }
        for segment in directionalSegments { columns.append(directionalColumn(segment, filters, term)) }
        if columns.contains(where: \.isEmpty) { return [] }
        let maximum = IndexPlanner.maximumRangesPerTerm
        var prefixes: [[UInt8]] = [[]]
        for column in columns {
            let fits = prefixes.count * column.count <= maximum
            if fits && column.allSatisfy(\.isPoint) {
                prefixes = prefixes.flatMap { prefix in column.map { prefix + $0.lower!.bytes } }
                continue
            }
            let intervals = fits ? column : [ColumnInterval.hull(column)]
            return IndexRange.merged(prefixes.flatMap { prefix in intervals.map { $0.range(after: prefix) } })
        }
        return IndexRange.merged(prefixes.map(IndexRange.prefix))
    }

    /// The contains column: the elements the term's first `array-contains(-any)` filter on the field wants.
    /// Only one filter is used: two such filters may be satisfied by different elements, that is by
    /// different entries of the same document.
    private func elementColumn(_ field: FieldPath, _ filters: [FieldFilter]) -> [ColumnInterval] {
        for filter in filters where filter.field == field {
            if let points = ColumnInterval.elementIntervals(admittedBy: filter) { return points }
        }
        return [.unbounded]
    }

    /// A directional column: the intersection of what every filter on the field admits, and the cursors when
    /// the field is the first order by; turned around for a descending segment.
    private func directionalColumn(_ segment: Segment, _ filters: [FieldFilter], _ term: Query) -> [ColumnInterval] {
        var column: [ColumnInterval] = [.unbounded]
        for filter in filters where filter.field == segment.field {
            if let admitted = ColumnInterval.intervals(admittedBy: filter) {
                column = Self.intersection(column, admitted)
            }
        }
        if let first = term.normalizedOrderBy.first, first.field == segment.field {
            let cursors = [(term.startAt, true), (term.endAt, false)]
            for case let (cursor?, isStart) in cursors {
                if let admitted = ColumnInterval.interval(admittedBy: cursor, isStart: isStart, on: first) {
                    column = Self.intersection(column, [admitted])
                }
            }
        }
        return segment.isDescending ? column.map(\.reversed) : column
    }

    /// The encodings in both unions.
    private static func intersection(_ a: [ColumnInterval], _ b: [ColumnInterval]) -> [ColumnInterval] {
        a.flatMap { x in b.compactMap { x.intersection($0) } }
    }
}
