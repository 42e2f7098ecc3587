/// A node a view holds, with whether it is complete (`isFullyInitialized`) and whether a query filter selected
/// part of it (`isFiltered`) (Firebase's `CacheNode`).
package struct CacheNode {
    package let node: Node
    package let isFullyInitialized: Bool
    package let isFiltered: Bool

    package init(_ node: Node, isFullyInitialized: Bool, isFiltered: Bool) {
        self.node = node
        self.isFullyInitialized = isFullyInitialized
        self.isFiltered = isFiltered
    }

    package func isCompleteForPath(_ path: DatabasePath) -> Bool {
        guard let front = path.front else { return isFullyInitialized && !isFiltered }
        return isCompleteForChild(front)
    }

    package func isCompleteForChild(_ key: String) -> Bool {
        (isFullyInitialized && !isFiltered) || node.hasChild(key)
    }

    /// The node when complete, else nil.
    package var completeNode: Node? { isFullyInitialized ? node : nil }
}

/// A view's two caches: what its listeners see (`eventCache`, server data with user writes applied) and what the
/// server sent (`serverCache`).
package struct ViewCache {
    package let eventCache: CacheNode
    package let serverCache: CacheNode

    package func updatingEventSnap(_ node: Node, complete: Bool, filtered: Bool) -> ViewCache {
        ViewCache(eventCache: CacheNode(node, isFullyInitialized: complete, isFiltered: filtered), serverCache: serverCache)
    }

    package func updatingServerSnap(_ node: Node, complete: Bool, filtered: Bool) -> ViewCache {
        ViewCache(eventCache: eventCache, serverCache: CacheNode(node, isFullyInitialized: complete, isFiltered: filtered))
    }

    package var completeEventSnap: Node? { eventCache.completeNode }
    package var completeServerSnap: Node? { serverCache.completeNode }
}
