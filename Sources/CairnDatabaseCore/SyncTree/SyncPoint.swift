/// The views at one path, keyed by query identifier (Firebase's `SyncPoint`). At most one view loads all data (the
/// "complete view"); the others are filtered queries.
package final class SyncPoint {
    package private(set) var views: [String: View] = [:]
    /// Identifiers in creation order, so operations reach views in a stable order.
    private var order: [String] = []

    package init() {}

    package var isEmpty: Bool { views.isEmpty }

    private var orderedViews: [View] { order.compactMap { views[$0] } }

    package func apply(_ operation: Operation, writes: WriteTreeRef, completeServerCache: Node?) -> [DatabaseEvent] {
        if let queryId = operation.source.queryId {
            guard let view = views[queryId] else { return [] }
            return view.apply(operation, writes: writes, completeServerCache: completeServerCache)
        }
        return orderedViews.flatMap { $0.apply(operation, writes: writes, completeServerCache: completeServerCache) }
    }

    /// The existing view for `query`, or a new one (not yet added) over the given server cache and the writes.
    package func view(for query: QuerySpec, writes: WriteTreeRef, serverCache: Node, serverCacheComplete: Bool) -> View {
        if let view = views[query.identifier] { return view }
        var eventCache = writes.calcCompleteEventCache(serverCacheComplete ? serverCache : nil)
        var eventCacheComplete = false
        if eventCache != nil {
            eventCacheComplete = true
        } else if !serverCache.isLeaf {
            eventCache = writes.calcCompleteEventChildren(serverCache)
        } else {
            eventCache = .empty
        }
        let viewCache = ViewCache(
            eventCache: CacheNode(eventCache!, isFullyInitialized: eventCacheComplete, isFiltered: false),
            serverCache: CacheNode(serverCache, isFullyInitialized: serverCacheComplete, isFiltered: false))
        return View(query: query, initialViewCache: viewCache)
    }

    package func addRegistration(_ registration: any EventRegistration, for query: QuerySpec, writes: WriteTreeRef, serverCache: Node, serverCacheComplete: Bool) -> [DatabaseEvent] {
        let view = view(for: query, writes: writes, serverCache: serverCache, serverCacheComplete: serverCacheComplete)
        if views[query.identifier] == nil {
            views[query.identifier] = view
            order.append(query.identifier)
        }
        view.addRegistration(registration)
        return view.initialEvents(for: registration)
    }

    /// Removes a registration from the query's view (from every view for a default query); returns the queries
    /// whose views went away (filtered ones, plus the default query when the last complete view went) and cancels.
    package func removeRegistration(_ registration: (any EventRegistration)?, for query: QuerySpec, cancelError: DatabaseCoreError?) -> (removed: [QuerySpec], events: [DatabaseEvent]) {
        var removed: [QuerySpec] = []
        var events: [DatabaseEvent] = []
        let hadCompleteView = hasCompleteView
        let targets = query.identifier == "default" ? order : [query.identifier]
        for queryId in targets {
            guard let view = views[queryId] else { continue }
            events += view.removeRegistration(registration, cancelError: cancelError)
            if view.isEmpty {
                views[queryId] = nil
                order.removeAll { $0 == queryId }
                if !view.query.params.loadsAllData { removed.append(view.query) }
            }
        }
        if hadCompleteView && !hasCompleteView { removed.append(QuerySpec(path: query.path)) }
        return (removed, events)
    }

    /// The views of filtered queries.
    package var queryViews: [View] { orderedViews.filter { !$0.query.params.loadsAllData } }

    /// Complete server data at `path` below this sync point, from any view that has it.
    package func completeServerCache(_ path: DatabasePath) -> Node? {
        for view in orderedViews {
            if let cache = view.completeServerCache(path) { return cache }
        }
        return nil
    }

    package func viewForQuery(_ query: QuerySpec) -> View? {
        query.params.loadsAllData ? completeView : views[query.identifier]
    }

    package var completeView: View? { orderedViews.first { $0.query.params.loadsAllData } }

    package var hasCompleteView: Bool { completeView != nil }
}
