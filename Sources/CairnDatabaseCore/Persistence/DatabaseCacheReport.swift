import SegmentLog

/// What a Realtime Database cache holds (``DatabaseCacheInspector/report(threshold:)``): the tracked queries, the
/// pending writes, the exact live bytes against the app's threshold, and what the next pruning check would do
/// (``CachePolicy``: it prunes inactive queries while the live bytes exceed the threshold or more than
/// ``maxInactiveQueries`` queries are inactive).
package struct DatabaseCacheReport: Sendable {
    package struct Query: Sendable {
        package var query: TrackedQuery
        /// The number of child keys a filtered query's window holds, nil when none are tracked.
        package var trackedKeys: Int?
    }

    package struct Write: Sendable {
        package var write: PersistedWrite
        /// The bytes of its record (key and value).
        package var recordBytes: Int
    }

    package var statistics: LogStatistics
    package var session: UInt64
    package var queries: [Query]
    package var writes: [Write]
    /// Bytes of live records: what the cache holds, exactly (the pruning check's measure).
    package var liveBytes: UInt64
    /// The app's `persistenceCacheSizeBytes`; nil: unlimited.
    package var threshold: UInt64?
    package var maxInactiveQueries: Int

    package var inactiveQueries: Int { queries.count { !$0.query.isActive } }
    package var isOverThreshold: Bool { threshold.map { liveBytes > $0 } ?? false }

    /// What the next pruning check does, in words.
    package var pruning: String {
        let overQueries = inactiveQueries > maxInactiveQueries
        guard isOverThreshold || overQueries else {
            return "under the threshold and at most \(maxInactiveQueries) inactive queries: the next check prunes nothing"
        }
        let reason = isOverThreshold ? "over the threshold" : "more than \(maxInactiveQueries) inactive queries"
        guard inactiveQueries > 0 else { return "\(reason), but no query is inactive: nothing can be pruned" }
        return "\(reason): the next check prunes the least recently used of the \(inactiveQueries) inactive query(ies)"
    }
}
