/// The client's tree of sync points and pending writes (Firebase's `SyncTree`): user writes and server data go in,
/// events come out. It decides which listens run: a default listen at a path covers every query below it, so the
/// sync tree stops the listens it shadows and restarts them when it goes away. Filtered queries get tags, counted
/// from 1, that tagged server data names.
///
/// ```swift
/// let tree = SyncTree(listenProvider: provider)
/// var events = tree.addEventRegistration(registration, for: QuerySpec(path: path))
/// events += tree.applyServerOverwrite(path, node)       // child_added ..., value
/// events += tree.applyUserOverwrite(path, local, writeId: 0)
/// events += tree.ackUserWrite(0, revert: true)          // back to the server's data
/// ```
package final class SyncTree {
    let listenProvider: any ListenProvider
    package private(set) var syncPointTree = ImmutableTree<SyncPoint>()
    package let pendingWriteTree = WriteTree()
    private var tagToQueryKey: [Int: String] = [:]
    private var queryKeyToTag: [String: Int] = [:]
    private var queryKeyToQuery: [String: QuerySpec] = [:]
    private var nextQueryTag = 1
    /// The cache on disk, nil in memory-only mode (`isPersistenceEnabled` false): server data, completed listens,
    /// acknowledged writes and query use go to it, and new views start from it (Docs/Database.md, "Offline
    /// persistence").
    package let persistence: PersistenceManager?

    package init(listenProvider: any ListenProvider, persistence: PersistenceManager? = nil) {
        self.listenProvider = listenProvider
        self.persistence = persistence
    }

    // MARK: User writes

    package func applyUserOverwrite(_ path: DatabasePath, _ node: Node, writeId: Int, visible: Bool = true) -> [DatabaseEvent] {
        pendingWriteTree.addOverwrite(path, node, writeId: writeId, visible: visible)
        guard visible else { return [] }
        return applyToSyncPoints(.overwrite(.user, path, node))
    }

    /// A multi-path update: `children` are paths relative to `path` and their new nodes.
    package func applyUserMerge(_ path: DatabasePath, _ children: [(DatabasePath, Node)], writeId: Int) -> [DatabaseEvent] {
        pendingWriteTree.addMerge(path, children, writeId: writeId)
        return applyToSyncPoints(.merge(.user, path, SyncTree.mergeTree(children)))
    }

    /// Removes a write once the server acknowledged (`revert == false`) or rejected it, re-evaluating the views.
    package func ackUserWrite(_ writeId: Int, revert: Bool = false) -> [DatabaseEvent] {
        guard let write = pendingWriteTree.write(writeId) else { return [] }
        let needsReevaluation = pendingWriteTree.removeWrite(writeId)
        if write.visible { persistence?.userWriteFinished(write, acked: !revert) }
        guard needsReevaluation else { return [] }
        var affected = ImmutableTree<Bool>()
        if write.snap != nil {
            affected = affected.setting(.root, true)
        } else {
            for (childPath, _) in write.children ?? [] { affected = affected.setting(childPath, true) }
        }
        return applyToSyncPoints(.ackUserWrite(write.path, affected: affected, revert: revert))
    }

    /// Reverts every pending write at once (Firebase's `removeAllWrites`), raising the reverting events.
    package func removeAllWrites() -> [DatabaseEvent] {
        persistence?.removeAllUserWrites()
        guard pendingWriteTree.removeAllWrites() else { return [] }
        return applyToSyncPoints(.ackUserWrite(.root, affected: ImmutableTree<Bool>().setting(.root, true), revert: true))
    }

    // MARK: Server data

    package func applyServerOverwrite(_ path: DatabasePath, _ node: Node) -> [DatabaseEvent] {
        persistence?.updateServerCache(node, for: QuerySpec(path: path))
        return applyToSyncPoints(.overwrite(.server, path, node))
    }

    package func applyServerMerge(_ path: DatabasePath, _ children: [(DatabasePath, Node)]) -> [DatabaseEvent] {
        persistence?.updateServerCache(merge: children, at: path)
        return applyToSyncPoints(.merge(.server, path, SyncTree.mergeTree(children)))
    }

    package func applyListenComplete(_ path: DatabasePath) -> [DatabaseEvent] {
        persistence?.setQueryComplete(QuerySpec(path: path))
        return applyToSyncPoints(.listenComplete(.server, path))
    }

    package func applyTaggedQueryOverwrite(_ path: DatabasePath, _ node: Node, tag: Int) -> [DatabaseEvent] {
        guard let query = queryForTag(tag), let relative = DatabasePath.relative(from: query.path, to: path) else { return [] }
        persistence?.updateServerCache(node, for: relative.isEmpty ? query : QuerySpec(path: path))
        return applyTagged(query, .overwrite(.serverTaggedQuery(query.identifier), relative, node))
    }

    package func applyTaggedQueryMerge(_ path: DatabasePath, _ children: [(DatabasePath, Node)], tag: Int) -> [DatabaseEvent] {
        guard let query = queryForTag(tag), let relative = DatabasePath.relative(from: query.path, to: path) else { return [] }
        persistence?.updateServerCache(merge: children, at: path)
        return applyTagged(query, .merge(.serverTaggedQuery(query.identifier), relative, SyncTree.mergeTree(children)))
    }

    package func applyTaggedListenComplete(_ path: DatabasePath, tag: Int) -> [DatabaseEvent] {
        guard let query = queryForTag(tag), let relative = DatabasePath.relative(from: query.path, to: path) else { return [] }
        persistence?.setQueryComplete(query)
        return applyTagged(query, .listenComplete(.serverTaggedQuery(query.identifier), relative))
    }

    private static func mergeTree(_ children: [(DatabasePath, Node)]) -> ImmutableTree<Node> {
        children.reduce(ImmutableTree<Node>()) { $0.setting($1.0, $1.1) }
    }

    private func queryForTag(_ tag: Int) -> QuerySpec? {
        tagToQueryKey[tag].flatMap { queryKeyToQuery[$0] }
    }

    private func applyTagged(_ query: QuerySpec, _ operation: Operation) -> [DatabaseEvent] {
        guard let syncPoint = syncPointTree.value(at: query.path) else { return [] }
        let writes = WriteTreeRef(path: query.path, writeTree: pendingWriteTree)
        return syncPoint.apply(operation, writes: writes, completeServerCache: nil)
    }

    // MARK: Applying operations

    private func applyToSyncPoints(_ operation: Operation) -> [DatabaseEvent] {
        applyHelper(operation, syncPointTree, serverCache: nil, writes: WriteTreeRef(path: .root, writeTree: pendingWriteTree))
    }

    private func applyHelper(_ operation: Operation, _ tree: ImmutableTree<SyncPoint>, serverCache: Node?, writes: WriteTreeRef) -> [DatabaseEvent] {
        if operation.path.isEmpty { return applyDescendantsHelper(operation, tree, serverCache: serverCache, writes: writes) }
        let syncPoint = tree.value
        let cache = SyncTree.serverCache(after: operation, serverCache ?? syncPoint?.completeServerCache(.root))
        var events: [DatabaseEvent] = []
        let childKey = operation.path.front!
        if let childTree = tree.children[childKey], let childOperation = operation.forChild(childKey) {
            events += applyHelper(childOperation, childTree, serverCache: cache?.immediateChild(childKey), writes: writes.child(childKey))
        }
        if let syncPoint { events += syncPoint.apply(operation, writes: writes, completeServerCache: cache) }
        return events
    }

    private func applyDescendantsHelper(_ operation: Operation, _ tree: ImmutableTree<SyncPoint>, serverCache: Node?, writes: WriteTreeRef) -> [DatabaseEvent] {
        let syncPoint = tree.value
        let cache = SyncTree.serverCache(after: operation, serverCache ?? syncPoint?.completeServerCache(.root))
        var events: [DatabaseEvent] = []
        for key in tree.sortedChildKeys {
            guard let childOperation = operation.forChild(key) else { continue }
            events += applyDescendantsHelper(childOperation, tree.children[key]!, serverCache: cache?.immediateChild(key), writes: writes.child(key))
        }
        if let syncPoint { events += syncPoint.apply(operation, writes: writes, completeServerCache: cache) }
        return events
    }

    /// The complete server data once a server overwrite or merge is applied to it. Views of one sync point are
    /// updated one after another, so a limited view refilling its window must see the new data, not the data
    /// before the operation (Firebase passes the old data, which refills from stale values on multi-child merges).
    /// Applying an operation twice gives the same node, so a cache already updated above stays right.
    private static func serverCache(after operation: Operation, _ cache: Node?) -> Node? {
        guard let cache else { return nil }
        switch operation {
        case .overwrite(let source, let path, let node) where !source.fromUser:
            return cache.updateChild(path, node)
        case .merge(let source, let path, let children) where !source.fromUser:
            var result = cache
            children.forEach { relative, node in result = result.updateChild(path.child(relative), node) }
            return result
        default:
            return cache
        }
    }

    // MARK: Registrations

    /// Adds a registration for `query`; returns its initial events. Starts a listen when no ancestor's default
    /// view already covers the query.
    package func addEventRegistration(_ registration: any EventRegistration, for query: QuerySpec) -> [DatabaseEvent] {
        let path = query.path
        var serverCache: Node?
        var foundAncestorDefaultView = false
        syncPointTree.forEachAbove(path) { pathToSyncPoint, syncPoint in
            let relative = DatabasePath.relative(from: pathToSyncPoint, to: path)!
            serverCache = serverCache ?? syncPoint.completeServerCache(relative)
            foundAncestorDefaultView = foundAncestorDefaultView || syncPoint.hasCompleteView
        }
        let syncPoint: SyncPoint
        if let existing = syncPointTree.value(at: path) {
            syncPoint = existing
            foundAncestorDefaultView = foundAncestorDefaultView || existing.hasCompleteView
            serverCache = serverCache ?? existing.completeServerCache(.root)
        } else {
            syncPoint = SyncPoint()
            syncPointTree = syncPointTree.setting(path, syncPoint)
        }
        let viewAlreadyExists = syncPoint.viewForQuery(query) != nil
        if !viewAlreadyExists { persistence?.setQueryActive(query) }
        var persisted: CacheNode?
        if serverCache == nil, let persistence {
            let cached = persistence.serverCache(for: query)
            if cached.isFullyInitialized { serverCache = cached.node } else { persisted = cached }
        }
        let serverCacheComplete = serverCache != nil
        var cache = serverCache ?? .empty
        if !serverCacheComplete {
            let subtree = syncPointTree.subtree(path)
            for key in subtree.sortedChildKeys {
                if let childSyncPoint = subtree.children[key]!.value, let complete = childSyncPoint.completeServerCache(.root) {
                    cache = cache.updateImmediateChild(key, complete)
                }
            }
            // Children the cache knows complete, where no sync point below had them (Firebase's partial cache).
            for child in persisted?.node.sortedChildren(by: .key) ?? [] where !cache.hasChild(child.name) {
                cache = cache.updateImmediateChild(child.name, child.node)
            }
        }
        if !viewAlreadyExists && !query.params.loadsAllData {
            let tag = nextQueryTag
            nextQueryTag += 1
            queryKeyToTag[query.key] = tag
            queryKeyToQuery[query.key] = query
            tagToQueryKey[tag] = query.key
        }
        let writes = WriteTreeRef(path: path, writeTree: pendingWriteTree)
        var events = syncPoint.addRegistration(registration, for: query, writes: writes, serverCache: cache, serverCacheComplete: serverCacheComplete)
        if !viewAlreadyExists, !query.params.loadsAllData, let persistence, let view = syncPoint.viewForQuery(query) {
            persistence.setTrackedQueryKeys(Set(view.viewCache.eventCache.node.childKeys), for: query)
            view.keysChanged = { [weak persistence] keys in persistence?.setTrackedQueryKeys(keys, for: query) }
        }
        if !viewAlreadyExists && !foundAncestorDefaultView, let view = syncPoint.viewForQuery(query) {
            events += setUpListener(query, view)
        }
        return events
    }

    /// Removes a registration (every registration of the query when nil). With `cancelError` (a failed listen), the
    /// registrations that want it get cancel events and no unlisten is sent.
    package func removeEventRegistration(_ registration: (any EventRegistration)?, for query: QuerySpec, cancelError: DatabaseCoreError? = nil) -> [DatabaseEvent] {
        let path = query.path
        guard let syncPoint = syncPointTree.value(at: path),
              query.identifier == "default" || syncPoint.viewForQuery(query) != nil else { return [] }
        let (removed, events) = syncPoint.removeRegistration(registration, for: query, cancelError: cancelError)
        if syncPoint.isEmpty { syncPointTree = syncPointTree.removing(path) }
        let removingDefault = removed.contains { $0.params.loadsAllData }
        let covered = syncPointTree.firstOnPath(path) { _, syncPoint in syncPoint.hasCompleteView ? true : nil } ?? false
        if removingDefault && !covered {
            let subtree = syncPointTree.subtree(path)
            if !subtree.isEmpty {
                for view in SyncTree.distinctViews(subtree) {
                    let listener = makeListener(for: view)
                    _ = listenProvider.startListening(view.query.forListening, tag: tag(for: view.query), hash: listener.hash, onComplete: listener.onComplete)
                }
            }
        }
        if !covered && !removed.isEmpty && cancelError == nil {
            if removingDefault {
                listenProvider.stopListening(query.forListening, tag: nil)
            } else {
                for removedQuery in removed {
                    listenProvider.stopListening(removedQuery.forListening, tag: tag(for: removedQuery))
                }
            }
        }
        for removedQuery in removed { persistence?.setQueryInactive(removedQuery) }
        for removedQuery in removed where !removedQuery.params.loadsAllData {
            if let tag = queryKeyToTag.removeValue(forKey: removedQuery.key) { tagToQueryKey[tag] = nil }
            queryKeyToQuery[removedQuery.key] = nil
        }
        return events
    }

    /// The tag of a filtered query with a view, nil for default queries.
    package func tag(for query: QuerySpec) -> Int? { queryKeyToTag[query.key] }

    /// The local value at `path` (server data under the pending writes, hidden writes included), for transactions;
    /// `excluding` leaves out the given write ids.
    package func calcCompleteEventCache(_ path: DatabasePath, excluding: [Int] = []) -> Node? {
        let serverCache = syncPointTree.firstOnPath(path) { pathSoFar, syncPoint in
            syncPoint.completeServerCache(DatabasePath.relative(from: pathSoFar, to: path)!)
        }
        return pendingWriteTree.calcCompleteEventCache(path, serverCache: serverCache, excluding: excluding, includeHidden: true)
    }

    // MARK: Listens

    private func makeListener(for view: View) -> (hash: () -> String, onComplete: (ListenStatus) -> [DatabaseEvent]) {
        let query = view.query
        let tag = tag(for: query)
        let hash: () -> String = { [weak view] in view?.serverCache.hash ?? "" }
        let onComplete: (ListenStatus) -> [DatabaseEvent] = { [weak self] status in
            guard let self else { return [] }
            switch status {
            case .ok:
                if let tag { return self.applyTaggedListenComplete(query.path, tag: tag) }
                return self.applyListenComplete(query.path)
            case .failed(let code):
                let error = DatabaseCoreError(.listenFailed, "the listen at \(query.path) failed: \(code)")
                return self.removeEventRegistration(nil, for: query, cancelError: error)
            }
        }
        return (hash, onComplete)
    }

    private func setUpListener(_ query: QuerySpec, _ view: View) -> [DatabaseEvent] {
        let tag = tag(for: query)
        let listener = makeListener(for: view)
        let events = listenProvider.startListening(query.forListening, tag: tag, hash: listener.hash, onComplete: listener.onComplete)
        if tag == nil {
            // A default listen covers everything below it: stop the listens it shadows.
            let subtree = syncPointTree.subtree(query.path)
            let queriesToStop: [QuerySpec] = subtree.fold { relative, syncPoint, children in
                if !relative.isEmpty, let syncPoint, let complete = syncPoint.completeView { return [complete.query] }
                var queries = syncPoint?.queryViews.map(\.query) ?? []
                for (_, childQueries) in children { queries += childQueries }
                return queries
            }
            for queryToStop in queriesToStop {
                listenProvider.stopListening(queryToStop.forListening, tag: self.tag(for: queryToStop))
            }
        }
        return events
    }

    /// The views that need their own listen once no default listen covers `subtree`.
    private static func distinctViews(_ subtree: ImmutableTree<SyncPoint>) -> [View] {
        subtree.fold { _, syncPoint, children in
            if let syncPoint, let complete = syncPoint.completeView { return [complete] }
            var views = syncPoint?.queryViews ?? []
            for (_, childViews) in children { views += childViews }
            return views
        }
    }
}
