/// One query's view at a sync point: its caches, its filter and its registrations (Firebase's `View`).
package final class View {
    package let query: QuerySpec
    let processor: ViewProcessor
    package private(set) var viewCache: ViewCache
    package private(set) var registrations: [any EventRegistration] = []
    let eventGenerator: EventGenerator
    /// Called with the event cache's child keys when children were added or removed (the cache's tracked keys of
    /// a filtered query).
    var keysChanged: ((Set<String>) -> Void)?

    package init(query: QuerySpec, initialViewCache: ViewCache) {
        self.query = query
        let indexFilter = IndexedFilter(index: query.params.index)
        let filter = query.params.nodeFilter
        processor = ViewProcessor(filter: filter)
        var none: ChildChangeAccumulator? = nil
        let serverSnap = indexFilter.updateFullNode(.empty, initialViewCache.serverCache.node, accumulator: &none)
        let eventSnap = filter.updateFullNode(.empty, initialViewCache.eventCache.node, accumulator: &none)
        viewCache = ViewCache(
            eventCache: CacheNode(eventSnap, isFullyInitialized: initialViewCache.eventCache.isFullyInitialized, isFiltered: filter.filtersNodes),
            serverCache: CacheNode(serverSnap, isFullyInitialized: initialViewCache.serverCache.isFullyInitialized, isFiltered: indexFilter.filtersNodes))
        eventGenerator = EventGenerator(query: query)
    }

    package var serverCache: Node { viewCache.serverCache.node }

    /// The complete server data at `path` below this view, when this view can answer for it.
    package func completeServerCache(_ path: DatabasePath) -> Node? {
        guard let cache = viewCache.completeServerSnap else { return nil }
        if query.params.loadsAllData { return cache.child(path) }
        if let front = path.front, !cache.immediateChild(front).isEmpty { return cache.child(path) }
        return nil
    }

    package var isEmpty: Bool { registrations.isEmpty }

    package func addRegistration(_ registration: any EventRegistration) {
        registrations.append(registration)
    }

    /// Removes `registration` (every registration when nil); with an error, returns the cancel events for the
    /// registrations that want them.
    package func removeRegistration(_ registration: (any EventRegistration)?, cancelError: DatabaseCoreError?) -> [DatabaseEvent] {
        var cancels: [DatabaseEvent] = []
        if let cancelError {
            for existing in registrations where existing.wantsCancelEvents {
                cancels.append(.cancel(CancelEvent(registration: existing, path: query.path, error: cancelError)))
            }
        }
        guard let registration else {
            registrations = []
            return cancels
        }
        var remaining: [any EventRegistration] = []
        for (position, existing) in registrations.enumerated() {
            if !existing.matches(registration) {
                remaining.append(existing)
            } else if registration.hasAnyCallback {
                remaining.append(contentsOf: registrations[(position + 1)...])
                break
            }
        }
        registrations = remaining
        return cancels
    }

    package func apply(_ operation: Operation, writes: WriteTreeRef, completeServerCache: Node?) -> [DatabaseEvent] {
        let (newCache, changes) = processor.apply(operation, to: viewCache, writes: writes, completeCache: completeServerCache)
        viewCache = newCache
        if let keysChanged, changes.contains(where: { $0.type == .childAdded || $0.type == .childRemoved }) {
            keysChanged(Set(newCache.eventCache.node.childKeys))
        }
        return eventGenerator.events(for: changes, eventCache: newCache.eventCache.node, registrations: registrations)
    }

    /// `child_added` for every child the event cache holds, then `value` when it is complete, for a new registration.
    package func initialEvents(for registration: any EventRegistration) -> [DatabaseEvent] {
        let eventSnap = viewCache.eventCache
        var changes: [Change] = []
        if !eventSnap.node.isLeaf {
            for child in eventSnap.node.sortedChildren(by: .priority) {
                changes.append(.childAdded(child.name, child.node))
            }
        }
        if eventSnap.isFullyInitialized { changes.append(.value(eventSnap.node)) }
        return eventGenerator.events(for: changes, eventCache: eventSnap.node, registrations: [registration])
    }
}
