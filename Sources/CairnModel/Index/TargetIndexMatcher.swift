/// A light query planner: whether a ``FieldIndex`` can serve a query, and which index would serve it best
/// (firebase-android-sdk `model/TargetIndexMatcher.java`, firebase-ios-sdk `model/target_index_matcher.cc`;
/// semantics notes §4.4).
///
/// It works on one term of a query's disjunctive normal form, a conjunction of field filters: split queries
/// with OR filters with ``dnfTerms(of:)`` first (``IndexPlanner`` does).
///
/// An index **serves** the query when
/// 1. it is on the query's collection id (its collection group, or the last segment of its collection path);
/// 2. its contains segment, if any, has an `array-contains` or `array-contains-any` filter on its field;
/// 3. its directional segments are some equality segments — fields with an `==` or `in` filter, in any
///    order — followed by segments that match, field and direction, the query's order bys
///    (``Query/normalizedOrderBy``: the explicit ones, then the inequality fields, then `__name__`) in order,
///    skipping order bys on equality fields. Each order by must be matched in turn, but the index may stop
///    early (a suffix of the order bys may be missing).
///
/// Every field of a serving index is then one a matching document must have (filtered fields, order-by
/// fields, or the array of an `array-contains`), so a document missing from the index cannot match, and a
/// scan of the index (see ``IndexPlanner/scanRanges(for:using:)``) finds every match.
///
/// Two deliberate differences from the SDKs, which both keep that guarantee:
/// - queries with several inequality fields are served (the SDKs refuse them "for now", b/298441043): the scan
///   narrows on the first of them that follows the equality segments, and the caller filters the rest;
/// - order bys on equality fields are skipped, and an inequality field that also has an equality filter
///   consumes no segment (the SDKs' matcher then skips the next segment unchecked, which can accept an index
///   on a field the query never requires).
///
/// | query | served by |
/// |---|---|
/// | `a == 1, b == 2` | `a asc, b desc`; `a asc`; `b desc` |
/// | `a >= 1` ordered by `a` | `a asc`, not `a desc` |
/// | `a >= 1` ordered by `a`, `b` | `a asc, b asc`; `a asc` |
/// | `a array-contains 1` ordered by `b` | `a contains, b asc`; `a contains` |
/// | `a == 1` ordered by `b` | `a asc, b asc`, not `b asc, a asc` |
///
/// ```swift
/// let matcher = try TargetIndexMatcher(query)
/// matcher.servedBy(index)          // true when the index can answer the query
/// matcher.buildTargetIndex()       // the index automatic index creation would add for it
/// ```
package struct TargetIndexMatcher: Sendable {
    /// The collection id an index must be on; `nil` for a document query, which no index serves.
    let collectionID: String?
    /// The `==`, `in`, `array-contains` and `array-contains-any` filters.
    let equalityFilters: [FieldFilter]
    /// The `<`, `<=`, `>`, `>=`, `!=` and `not-in` filters.
    let inequalityFilters: [FieldFilter]
    let orderBy: [OrderBy]

    /// A matcher for a query whose filters are a conjunction of field filters.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` when the query has an OR filter; plan each of
    ///   ``dnfTerms(of:)`` instead.
    package init(_ query: Query) throws(ModelError) {
        if query.filters.contains(where: \.containsDisjunction) {
            throw .invalidArgument(
                "TargetIndexMatcher needs a conjunction of field filters, but \(query) has an OR filter; "
                    + "match each of TargetIndexMatcher.dnfTerms(of:) instead.")
        }
        self.init(term: query)
    }

    /// A matcher for one of ``dnfTerms(of:)``, which has no OR filter.
    init(term query: Query) {
        let filters = query.filters.flatMap(\.flattenedFilters)
        collectionID = query.collectionGroup ?? (query.path.isCollectionPath ? query.path.lastSegment : nil)
        equalityFilters = filters.filter { !$0.isInequality }
        inequalityFilters = filters.filter(\.isInequality)
        orderBy = query.normalizedOrderBy
    }

    /// Whether `index` can serve the query (the rules are in the type's documentation).
    package func servedBy(_ index: FieldIndex) -> Bool {
        guard let collectionID, BytewiseOrder.equal(collectionID, index.collectionGroup) else { return false }
        if let arraySegment = index.arraySegment, !hasEqualityFilter(matching: arraySegment) { return false }
        let segments = index.directionalSegments
        var equalityFields: Set<FieldPath> = []
        var position = 0
        while position < segments.count, hasEqualityFilter(matching: segments[position]) {
            equalityFields.insert(segments[position].field)
            position += 1
        }
        var orders = orderBy.lazy.filter { !equalityFields.contains($0.field) }.makeIterator()
        for segment in segments[position...] {
            guard let order = orders.next(), Self.matches(order, segment) else { return false }
        }
        return true
    }

    /// True when a filter or order by of the query (other than on `__name__`) has no segment in `index`:
    /// a scan of the index then leaves filters to apply afterwards, or yields documents out of query order
    /// (SDK `isPartialIndex`, the `PARTIAL` index type that makes the query engine consider creating a
    /// better index).
    package func isPartial(_ index: FieldIndex) -> Bool {
        for filter in equalityFilters + inequalityFilters where !filter.field.isDocumentKey {
            if !index.segments.contains(where: { Self.matches(filter, $0) }) { return true }
        }
        for order in orderBy where !order.field.isDocumentKey {
            if !index.segments.contains(where: { Self.matches(order, $0) }) { return true }
        }
        return false
    }

    /// The index automatic index creation adds for the query (SDK `buildTargetIndex`): a contains segment for
    /// the first `array-contains(-any)` filter, an ascending segment per field with an `==` or `in` filter,
    /// then a segment per order by in its direction, each field once and `__name__` never (the document key
    /// ends every entry anyway). `nil` when that leaves no segment (an index would not beat a scan), or for
    /// a document query.
    ///
    /// ```swift
    /// // where author == "ada" and tags array-contains "swift", ordered by ts descending:
    /// try TargetIndexMatcher(query).buildTargetIndex()   // posts|author:asc,tags:contains,ts:desc
    /// ```
    package func buildTargetIndex() -> FieldIndex? {
        guard let collectionID else { return nil }
        var segments: [FieldIndex.Segment] = []
        var fields: Set<FieldPath> = []
        var hasContains = false
        for filter in equalityFilters where !filter.field.isDocumentKey {
            if filter.op.isArrayOperator {
                if !hasContains { segments.append(.init(filter.field, .contains)) }
                hasContains = true
            } else if fields.insert(filter.field).inserted {
                segments.append(.init(filter.field, .ascending))
            }
        }
        for order in orderBy where !order.field.isDocumentKey && fields.insert(order.field).inserted {
            segments.append(.init(order.field, order.descending ? .descending : .ascending))
        }
        guard !segments.isEmpty else { return nil }
        // One contains segment, each directional field once, a collection id: nothing FieldIndex rejects.
        return try? FieldIndex(collectionGroup: collectionID, segments: segments)
    }

    private func hasEqualityFilter(matching segment: FieldIndex.Segment) -> Bool {
        equalityFilters.contains { Self.matches($0, segment) }
    }

    /// A filter matches a segment on its field: a contains segment for the array operators, a directional
    /// one for the others.
    private static func matches(_ filter: FieldFilter, _ segment: FieldIndex.Segment) -> Bool {
        filter.field == segment.field && filter.op.isArrayOperator == (segment.kind == .contains)
    }

    /// An order by matches a directional segment on its field in its direction.
    private static func matches(_ order: OrderBy, _ segment: FieldIndex.Segment) -> Bool {
        order.field == segment.field && segment.isDirectional && order.descending == segment.isDescending
    }
}

/// Splitting a query with OR filters into conjunctions an index can serve one at a time (SDK
/// `Query.getDnfTerms` / `LogicUtils.getDnfTerms`; semantics notes §4.4).
extension TargetIndexMatcher {
    /// The terms of the query's filters in disjunctive normal form, each as a query with only field filters
    /// (ANDed): a document matches `query` exactly when it matches at least one term. A query without an OR
    /// is its own only term.
    ///
    /// Every term keeps the query's complete order (its ``Query/normalizedOrderBy`` becomes the term's explicit
    /// order), cursors and limit, as the SDKs' sub-targets do: a term of `a > 1 OR b == 2` still needs `a`,
    /// the query's implicit order by, and compares cursors over the same order. The limit cannot be applied
    /// per term; it stays for the caller to apply to the union.
    ///
    /// ```swift
    /// // where a == 1 AND (b == 2 OR c == 3)
    /// TargetIndexMatcher.dnfTerms(of: query).map(\.filters)   // [[a == 1, b == 2], [a == 1, c == 3]]
    /// ```
    package static func dnfTerms(of query: Query) -> [Query] {
        guard query.filters.contains(where: \.containsDisjunction) else { return [query] }
        return conjunctions(of: .and(query.filters)).map { term in
            Query(
                path: query.path, collectionGroup: query.collectionGroup, filters: term.map(Filter.field),
                explicitOrderBy: query.normalizedOrderBy, limit: query.limit, limitType: query.limitType,
                startAt: query.startAt, endAt: query.endAt)
        }
    }

    /// The filter as an OR of ANDs of field filters: an AND distributes over its children's terms (every
    /// combination of one term per child), an OR concatenates them.
    private static func conjunctions(of filter: Filter) -> [[FieldFilter]] {
        switch filter {
        case .field(let fieldFilter):
            return [[fieldFilter]]
        case .composite(let composite) where composite.isDisjunction:
            return composite.filters.flatMap(conjunctions)
        case .composite(let composite):
            return composite.filters.reduce([[]]) { terms, child in
                let childTerms = conjunctions(of: child)
                return terms.flatMap { term in childTerms.map { term + $0 } }
            }
        }
    }
}
