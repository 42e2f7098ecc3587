/// What a query would see at once if it were observed now (Firebase's `getServerValue`): used by `getData`.
extension SyncTree {
    /// The query's data when it is complete locally, so that a new `value` observer would fire at once: server data
    /// a listen completed (here or above, or in the cache on disk), under the pending writes, or a pending write
    /// covering the whole location; filtered by the query. Nil when the data is not complete. Nothing is added to
    /// the tree.
    package func completeValue(for query: QuerySpec) -> Node? {
        let path = query.path
        var serverCache: Node?
        syncPointTree.forEachAbove(path) { pathToSyncPoint, syncPoint in
            serverCache = serverCache ?? syncPoint.completeServerCache(DatabasePath.relative(from: pathToSyncPoint, to: path)!)
        }
        let existing = syncPointTree.value(at: path)
        if let view = existing?.viewForQuery(query), let complete = view.viewCache.completeEventSnap { return complete }
        serverCache = serverCache ?? existing?.completeServerCache(.root)
        if serverCache == nil, let cached = persistence?.serverCache(for: query), cached.isFullyInitialized { serverCache = cached.node }
        let writes = WriteTreeRef(path: path, writeTree: pendingWriteTree)
        let syncPoint = existing ?? SyncPoint()
        let view = syncPoint.view(for: query.params.loadsAllData ? QuerySpec(path: path) : query, writes: writes,
                                  serverCache: serverCache ?? .empty, serverCacheComplete: serverCache != nil)
        return view.viewCache.completeEventSnap
    }

    /// What the cache on disk holds for the query, complete or not, filtered by the query; nil when it holds
    /// nothing (Firebase's `persistenceServerCache:`, `getData`'s answer offline).
    package func persistedValue(for query: QuerySpec) -> Node? {
        guard let cached = persistence?.serverCache(for: query), !cached.node.isEmpty else { return nil }
        var none: ChildChangeAccumulator? = nil
        let filtered = query.params.nodeFilter.updateFullNode(.empty, cached.node, accumulator: &none)
        return filtered.isEmpty ? nil : filtered
    }
}
