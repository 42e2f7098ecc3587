/// Choosing field indexes for a query and the sort-key ranges to read from them (the index half of the SDKs'
/// `QueryEngine.performQueryUsingIndex` and `IndexManager.getFieldIndex` / `getDocumentsMatchingTarget`;
/// semantics notes §4.4 and §4.7).
///
/// A query runs on indexes one term of its disjunctive normal form at a time
/// (``TargetIndexMatcher/dnfTerms(of:)``): `a == 1 OR b == 2` needs an index for each side. For each term the
/// planner takes, among the indexes that serve it (``TargetIndexMatcher/servedBy(_:)``), the one with the most
/// segments — it narrows the scan the most — and the first listed among equals.
///
/// How the cache answers a query with a plan:
/// 1. for each ``IndexScan``, read the entries of `scan.index` whose ``IndexEntry/sortKey`` lies in one of
///    `scan.ranges`, and collect their document keys (a document can have several entries: deduplicate);
/// 2. look up those documents (with local writes applied) and keep those for which `query.matches(document)`
///    holds — **always**: the ranges are a superset of the matches (other filters, the query's path within the
///    collection group, type-strict `in`, …);
/// 3. sort by the query's order and apply its limit.
///
/// The index must be complete for this (caught up with every document of its collection group); the
/// documents that changed after the index's last update are to be checked on top, as the SDKs'
/// `appendRemainingResults` does.
///
/// ```swift
/// if let scans = IndexPlanner.plan(for: query, among: configuredIndexes) {
///     let keys = Set(scans.flatMap { scan in indexView.keys(in: scan.index, ranges: scan.ranges) })
///     let results = query.results(from: keys.compactMap(localDocument))
/// }
/// ```
package enum IndexPlanner {
    /// The most ranges built for one term; beyond it, columns are covered by one wider range each.
    package static let maximumRangesPerTerm = 1000

    /// The index with the most segments that serves every term of the query, the first listed among equals;
    /// `nil` when none does. For a query with OR filters, ``plan(for:among:)`` can use a different index per
    /// term.
    ///
    /// ```swift
    /// IndexPlanner.bestIndex(for: postsByAuthorNewestFirst, among: [byAuthor, byAuthorAndDate])
    /// // byAuthorAndDate: it serves the query and has more segments
    /// ```
    package static func bestIndex(for query: Query, among indexes: [FieldIndex]) -> FieldIndex? {
        let matchers = TargetIndexMatcher.dnfTerms(of: query).map(TargetIndexMatcher.init(term:))
        return best(among: indexes) { index in matchers.allSatisfy { $0.servedBy(index) } }
    }

    /// The scans that answer the query: for each term of its disjunctive normal form, the best index serving
    /// it and the ranges to read; `nil` when some term has no serving index (the query then needs a scan of
    /// its documents). Follow the steps in the type's documentation.
    package static func plan(for query: Query, among indexes: [FieldIndex]) -> [IndexScan]? {
        var scans: [IndexScan] = []
        for term in TargetIndexMatcher.dnfTerms(of: query) {
            let matcher = TargetIndexMatcher(term: term)
            guard let index = best(among: indexes, where: matcher.servedBy) else { return nil }
            scans.append(IndexScan(term: term, index: index, ranges: index.scanRanges(forTerm: term)))
        }
        return scans
    }

    /// The sort-key ranges of `index` that hold the entries of every document the query can match (sorted,
    /// disjoint; empty when no document can match); `nil` when `index` does not serve every term of the query,
    /// as a scan of it could then miss matches. See `FieldIndex+ScanRanges.swift` for how the ranges are built.
    ///
    /// The ranges are a superset: the caller must still check `query.matches(document)` for every document
    /// found (see the steps in the type's documentation).
    ///
    /// ```swift
    /// // posts where author == "ada" and stars > 10, index (author asc, stars asc):
    /// IndexPlanner.scanRanges(for: query, using: index)
    /// // one range: from ("ada", 10) exclusive to the end of ("ada", numbers)
    /// ```
    package static func scanRanges(for query: Query, using index: FieldIndex) -> [IndexRange]? {
        let terms = TargetIndexMatcher.dnfTerms(of: query)
        guard terms.allSatisfy({ TargetIndexMatcher(term: $0).servedBy(index) }) else { return nil }
        return IndexRange.merged(terms.flatMap(index.scanRanges(forTerm:)))
    }

    /// The index with the most segments among those `serves` accepts; the first among equals.
    private static func best(among indexes: [FieldIndex], where serves: (FieldIndex) -> Bool) -> FieldIndex? {
        var best: FieldIndex?
        for index in indexes where serves(index) && index.segments.count > (best?.segments.count ?? -1) {
            best = index
        }
        return best
    }
}

/// One index read of an ``IndexPlanner/plan(for:among:)``: the term of the query it answers, the index, and
/// the sort-key ranges of that index to read.
package struct IndexScan: Hashable, Sendable {
    /// The term of the query's disjunctive normal form this scan finds the candidates of.
    package let term: Query
    package let index: FieldIndex
    /// Sorted, disjoint ranges of ``IndexEntry/sortKey``s; empty when the term can match nothing.
    package let ranges: [IndexRange]
}
