import CairnModel

/// What the cache answers for a query (``LocalStore/executeQuery(_:usePreviousResults:)``): the matching
/// documents as the current user sees them, and the keys the query's target holds.
///
/// ```swift
/// let result = try store.executeQuery(query, usePreviousResults: true)
/// result.documents          // matching, local writes applied, ordered and limited as the query says
/// result.remoteKeys         // what the server last said matches (the target's membership); [] without a target
/// ```
package struct LocalQueryResult: Sendable {
    /// The matching documents with pending writes applied, in query order, cut to the query's limit.
    package var documents: [Document]
    /// The keys the target for this query holds (Firebase's `remoteKeys`); empty when the query has no target.
    package var remoteKeys: Set<DocumentKey>

    package init(documents: [Document], remoteKeys: Set<DocumentKey>) {
        self.documents = documents
        self.remoteKeys = remoteKeys
    }
}

/// How one query ran, for tests and inspection: the path the query engine took and the work it did.
///
/// ```swift
/// _ = try store.executeQuery(query, usePreviousResults: false)
/// store.lastQueryReport?.path            // .index when a ready index served it
/// store.lastQueryReport?.documentsRead   // documents decoded from the cache
/// ```
package struct QueryExecutionReport: Sendable, Equatable {
    /// The query engine's three ways to answer a query (semantics notes §4.7).
    package enum Path: String, Sendable {
        /// Candidates from ready field indexes (`performQueryUsingIndex`).
        case index
        /// The target's previous results plus documents read after its last limbo-free snapshot
        /// (`performQueryUsingRemoteKeys`).
        case previousResults
        /// Every cached document of the collection or collection group (`executeFullCollectionScan`).
        case scan
    }

    package var path: Path
    /// The indexes read (one per term of the query's disjunctive normal form, possibly repeated).
    package var indexes: [FieldIndex] = []
    /// Index entries read.
    package var entriesRead = 0
    /// True when the index path read entries in query order and stopped at the query's limit.
    package var readInQueryOrder = false
    /// Remote documents read (decoded, or rejected by a filter tested on their encoded bytes), plus documents
    /// with pending writes looked at.
    package var documentsRead = 0
    /// Remote documents without pending writes decoded whole: a scan decodes only those whose encoded bytes pass
    /// the query's top-level field filters.
    package var documentsDecoded = 0
    /// Documents that matched, before the limit.
    package var matches = 0
    /// The indexes automatic creation added after this query.
    package var createdIndexes: [FieldIndex] = []

    package init(path: Path) { self.path = path }
}
