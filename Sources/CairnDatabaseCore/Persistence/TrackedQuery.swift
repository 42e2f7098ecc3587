/// A query the cache remembers (Firebase's `FTrackedQuery`): its id, the query (a query that loads all data is
/// tracked as the default query at its path), when it was last used (the LSN of its latest record: the log is the
/// LRU clock), whether the server completed its data, and whether a listener (or `keepSynced`) uses it now.
package struct TrackedQuery: Equatable, Sendable {
    package let id: UInt64
    package let query: QuerySpec
    package var lastUse: UInt64
    package var isComplete: Bool
    package var isActive: Bool

    package init(id: UInt64, query: QuerySpec, lastUse: UInt64, isComplete: Bool, isActive: Bool) {
        self.id = id
        self.query = query
        self.lastUse = lastUse
        self.isComplete = isComplete
        self.isActive = isActive
    }

    package var record: CacheRecord {
        .trackedQuerySaved(id: id, query: query, isComplete: isComplete, isActive: isActive)
    }
}
