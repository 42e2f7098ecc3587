/// What the sync tree and the repo call to keep the cache (Firebase's `FPersistenceManager` with its
/// `FTrackedQueryManager`): user writes added and finished, server data, listens completed, queries used, the
/// keys in filtered queries' windows; and what they read back: the cached data of a query and whether it is
/// complete. Each call is one atomic commit. User writes, their end and server data are durable when the call
/// returns; prunes and tracked-query records (a query used, made inactive or complete, a window's keys, a new
/// session) are deferred: they ride on the next durable commit's sync, because losing them in a power loss only makes the
/// cache know less or brings pruned data back, never loses a write (Docs/Database.md, "On disk"). A storage failure is logged once and turns persistence off for
/// the rest of the session (the client goes on in memory), never a crash.
///
/// ```swift
/// let persistence = PersistenceManager(cache: try DatabaseCache.open(at: directory))
/// let repo = Repo(connection: connection, persistence: persistence, deliver: { ... })
/// ```
package final class PersistenceManager {
    package let cache: DatabaseCache
    package let policy: CachePolicy
    private var nextQueryId: UInt64
    private var serverUpdatesSincePruneCheck = 0
    /// True once the cache failed or was closed: every call does nothing and reads find nothing.
    package private(set) var isOff = false
    /// How many pruning rounds ran in this session.
    package internal(set) var pruneRounds = 0

    /// Takes over an opened cache: a new session starts and every query active in the last one is set inactive
    /// (one deferred commit), as Firebase does at start-up.
    package init(cache: DatabaseCache, policy: CachePolicy = CachePolicy()) {
        self.cache = cache
        self.policy = policy
        nextQueryId = (cache.trackedQueries.keys.max() ?? 0) + 1
        var records: [CacheRecord] = [.globals(session: cache.session + 1)]
        for query in cache.trackedQueries.values.filter(\.isActive).sorted(by: { $0.id < $1.id }) {
            var inactive = query
            inactive.isActive = false
            records.append(inactive.record)
        }
        perform("start a session") { try cache.commit(records, durable: false) }
    }

    /// Runs a cache operation; a failure turns persistence off with one logged line.
    func perform(_ what: String, _ body: () throws -> Void) {
        guard !isOff else { return }
        do {
            try body()
        } catch {
            isOff = true
            DatabaseLog.always("the Realtime Database cache failed to \(what) and is off for this session (the client goes on in memory): \(error)")
        }
    }

    /// Closes the cache (the directory is free for another opener); persistence is off from then on.
    package func close() {
        guard !isOff else { return }
        isOff = true
        cache.close()
    }

    // MARK: User writes

    /// The pending writes of earlier sessions, in write order.
    package var pendingWrites: [PersistedWrite] { cache.writes.values.sorted { $0.id < $1.id } }

    package func saveUserOverwrite(_ path: DatabasePath, _ node: Node, writeId: Int) {
        perform("save a write") { try cache.commit([.userWriteAdded(PersistedWrite(id: UInt64(writeId), path: path, overwrite: node))]) }
    }

    package func saveUserMerge(_ path: DatabasePath, _ children: [(DatabasePath, Node)], writeId: Int) {
        perform("save a write") { try cache.commit([.userWriteAdded(PersistedWrite(id: UInt64(writeId), path: path, merge: children))]) }
    }

    /// A write the server acknowledged (`acked`) or rejected: it leaves the cache, and an acknowledged write's
    /// resolved data enters the server cache in the same commit where no active default query covers it, with a
    /// complete tracked query there (Firebase's `applyUserWrite:toServerCacheAtPath:`).
    package func userWriteFinished(_ write: WriteRecord, acked: Bool) {
        var records: [CacheRecord] = []
        if cache.writes[UInt64(write.writeId)] != nil { records.append(.userWriteRemoved(id: UInt64(write.writeId))) }
        if acked {
            let parts = write.snap.map { [(write.path, $0)] } ?? (write.children ?? []).map { (write.path.child($0.0), $0.1) }
            for (path, node) in parts where !hasActiveDefaultQuery(at: path) {
                records.append(.serverOverwrite(path, node))
                records.append(contentsOf: ensureCompleteQuery(at: path))
            }
        }
        perform("finish a write") { try cache.commit(records) }
    }

    /// Every pending write leaves the cache (`purgeOutstandingWrites`).
    package func removeAllUserWrites() {
        let ids = cache.writes.keys.sorted()
        perform("remove the writes") { try cache.commit(ids.map { .userWriteRemoved(id: $0) }) }
    }

    // MARK: Server data

    /// Server data for `query`: an overwrite at its path when it loads all data, else one overwrite per child (a
    /// filtered query's data is partial); the query becomes complete.
    package func updateServerCache(_ node: Node, for query: QuerySpec) {
        var records: [CacheRecord]
        if query.params.loadsAllData {
            records = [.serverOverwrite(query.path, node)]
        } else {
            records = node.isLeaf ? [.serverOverwrite(query.path, node)]
                : node.childKeys.map { .serverOverwrite(query.path.child($0), node.immediateChild($0)) }
        }
        records += completeRecords(for: query)
        perform("store server data") { try cache.commit(records) }
        pruneCheckAfterServerUpdate()
    }

    /// A server merge: one overwrite per child.
    package func updateServerCache(merge children: [(DatabasePath, Node)], at path: DatabasePath) {
        perform("store server data") { try cache.commit(children.map { .serverOverwrite(path.child($0.0), $0.1) }) }
        pruneCheckAfterServerUpdate()
    }

    /// The server answered the query's listen with `ok`.
    package func setQueryComplete(_ query: QuerySpec) {
        let records = completeRecords(for: query)
        perform("mark a query complete") { try cache.commit(records, durable: false) }
    }

    /// The records that make `query` complete: a default query also completes every tracked query at and below
    /// its path (Firebase's `setQueriesCompleteAtPath:`).
    private func completeRecords(for query: QuerySpec) -> [CacheRecord] {
        let query = Self.normalized(query)
        var records: [CacheRecord] = []
        if query.params.loadsAllData {
            var ids = cache.queriesByPath.value(at: query.path) ?? []
            for (_, below) in cache.queriesByPath.descendants(of: query.path) { ids.formUnion(below) }
            for id in ids.sorted() {
                guard var tracked = cache.trackedQueries[id], !tracked.isComplete else { continue }
                tracked.isComplete = true
                records.append(tracked.record)
            }
        } else if var tracked = trackedQuery(query), !tracked.isComplete {
            tracked.isComplete = true
            records.append(tracked.record)
        }
        return records
    }

    // MARK: Tracked queries

    static func normalized(_ query: QuerySpec) -> QuerySpec {
        query.params.loadsAllData ? QuerySpec(path: query.path) : query
    }

    /// The tracked query for `query`: found among those at its path by parameters (no key strings to build, so
    /// opening a cache with many queries stays cheap).
    package func trackedQuery(_ query: QuerySpec) -> TrackedQuery? {
        let query = Self.normalized(query)
        for id in cache.queriesByPath.value(at: query.path) ?? [] {
            if let tracked = cache.trackedQueries[id], tracked.query.params == query.params { return tracked }
        }
        return nil
    }

    /// A listener (or keepSynced) started using `query`: it is tracked, active, and its last use is now.
    package func setQueryActive(_ query: QuerySpec) { setQueryActive(query, true) }

    /// The last listener of `query` went away: inactive, last use now.
    package func setQueryInactive(_ query: QuerySpec) { setQueryActive(query, false) }

    private func setQueryActive(_ query: QuerySpec, _ active: Bool) {
        let query = Self.normalized(query)
        var tracked: TrackedQuery
        if let existing = trackedQuery(query) {
            tracked = existing
        } else {
            guard active else { return }
            tracked = TrackedQuery(id: nextQueryId, query: query, lastUse: 0, isComplete: false, isActive: true)
            nextQueryId += 1
        }
        tracked.isActive = active
        perform("track a query") { try cache.commit([tracked.record], durable: false) }
    }

    /// The child keys in a filtered query's window (Firebase's tracked keys).
    package func setTrackedQueryKeys(_ keys: Set<String>, for query: QuerySpec) {
        guard !query.params.loadsAllData, let tracked = trackedQuery(query), cache.trackedKeys[tracked.id] != keys else { return }
        perform("track a query's keys") { try cache.commit([.trackedKeysChanged(id: tracked.id, keys: keys)], durable: false) }
    }

    /// An inactive, complete default query at `path`, or the existing one made complete.
    private func ensureCompleteQuery(at path: DatabasePath) -> [CacheRecord] {
        let query = QuerySpec(path: path)
        if var existing = trackedQuery(query) {
            guard !existing.isComplete else { return [] }
            existing.isComplete = true
            return [existing.record]
        }
        let tracked = TrackedQuery(id: nextQueryId, query: query, lastUse: 0, isComplete: true, isActive: false)
        nextQueryId += 1
        return [tracked.record]
    }

    /// A tracked default query at or above `path` with a listener now.
    func hasActiveDefaultQuery(at path: DatabasePath) -> Bool {
        cache.queriesByPath.firstAbove(path) { _, ids in
            ids.contains { cache.trackedQueries[$0].map { $0.query.params.loadsAllData && $0.isActive } ?? false }
        } != nil
    }

    // MARK: Serving

    /// Whether the cache holds all of `query`'s data (Firebase's `isQueryComplete`): a complete default query at
    /// its path or above; else, for a filtered query, its own completeness.
    package func isQueryComplete(_ query: QuerySpec) -> Bool {
        let completeDefaultAbove = cache.queriesByPath.firstAbove(query.path) { _, ids in
            ids.contains { cache.trackedQueries[$0].map { $0.query.params.loadsAllData && $0.isComplete } ?? false }
        } != nil
        if completeDefaultAbove { return true }
        if query.params.loadsAllData { return false }
        return trackedQuery(query)?.isComplete ?? false
    }

    /// The cached data for `query` (Firebase's `serverCacheForQuery:`). Complete: a filtered query's tracked keys,
    /// or everything at a load-all query's path. Otherwise the children known complete at the path (the keys of
    /// the filtered queries tracked there, and children with a complete default query), not fully initialized.
    package func serverCache(for query: QuerySpec) -> CacheNode {
        guard !isOff else { return CacheNode(.empty, isFullyInitialized: false, isFiltered: false) }
        do throws(PersistenceError) {
            if isQueryComplete(query) {
                if !query.params.loadsAllData, let tracked = trackedQuery(query), tracked.isComplete {
                    let keys = cache.trackedKeys[tracked.id] ?? []
                    return CacheNode(try cache.serverCache(forKeys: keys, at: query.path), isFullyInitialized: true, isFiltered: true)
                }
                return CacheNode(try cache.serverCache(at: query.path), isFullyInitialized: true, isFiltered: false)
            }
            return CacheNode(try cache.serverCache(forKeys: knownCompleteChildren(at: query.path), at: query.path),
                             isFullyInitialized: false, isFiltered: true)
        } catch {
            perform("read server data") { throw error }
            return CacheNode(.empty, isFullyInitialized: false, isFiltered: false)
        }
    }

    /// The union of the tracked keys of the filtered queries at `path`, and the children with a complete default
    /// query (Firebase's `knownCompleteChildrenAtPath:`).
    func knownCompleteChildren(at path: DatabasePath) -> Set<String> {
        var keys = Set<String>()
        for id in cache.queriesByPath.value(at: path) ?? [] {
            guard let tracked = cache.trackedQueries[id], !tracked.query.params.loadsAllData else { continue }
            keys.formUnion(cache.trackedKeys[id] ?? [])
        }
        for (key, ids) in cache.queriesByPath.children(of: path) {
            let complete = (ids ?? []).contains { cache.trackedQueries[$0].map { $0.query.params.loadsAllData && $0.isComplete } ?? false }
            if complete { keys.insert(key) }
        }
        return keys
    }

    /// The pruning check, every ``CachePolicy/serverUpdatesBetweenChecks`` server updates; until then each server
    /// update advances the compaction pruning started by one bounded step.
    private func pruneCheckAfterServerUpdate() {
        if cache.isCompacting { perform("compact after pruning") { try cache.compactStep() } }
        serverUpdatesSincePruneCheck += 1
        guard serverUpdatesSincePruneCheck > policy.serverUpdatesBetweenChecks else { return }
        serverUpdatesSincePruneCheck = 0
        pruneIfNeeded()
    }
}
