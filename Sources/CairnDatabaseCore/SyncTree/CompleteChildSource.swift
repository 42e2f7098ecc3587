/// Where a filter finds complete children it does not hold itself (to refill a limited window).
package protocol CompleteChildSource {
    func completeChild(_ key: String) -> Node?
    func childAfter(_ child: NamedNode, index: DatabaseIndex, reverse: Bool) -> NamedNode?
}

/// A source that knows nothing (server operations that must not look at local writes).
package struct NoCompleteChildSource: CompleteChildSource {
    package init() {}
    package func completeChild(_ key: String) -> Node? { nil }
    package func childAfter(_ child: NamedNode, index: DatabaseIndex, reverse: Bool) -> NamedNode? { nil }
}

/// Complete children from the view's event cache, else from server data (an optional complete server cache from an
/// ancestor, or the view's own) with the pending writes applied.
package struct WriteTreeCompleteChildSource: CompleteChildSource {
    let writes: WriteTreeRef
    let viewCache: ViewCache
    let completeServerCache: Node?

    package func completeChild(_ key: String) -> Node? {
        let eventCache = viewCache.eventCache
        if eventCache.isCompleteForChild(key) { return eventCache.node.immediateChild(key) }
        let server = completeServerCache.map { CacheNode($0, isFullyInitialized: true, isFiltered: false) } ?? viewCache.serverCache
        return writes.calcCompleteChild(key, serverCache: server)
    }

    package func childAfter(_ child: NamedNode, index: DatabaseIndex, reverse: Bool) -> NamedNode? {
        let serverData = completeServerCache ?? viewCache.completeServerSnap
        return writes.calcIndexedSlice(serverData, after: child, count: 1, reverse: reverse, index: index).first
    }
}
