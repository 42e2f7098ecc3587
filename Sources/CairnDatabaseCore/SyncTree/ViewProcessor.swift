/// Applies operations to a view's caches through its filter and collects the resulting changes (Firebase's
/// `ViewProcessor`): user overwrites and merges change the event cache; server overwrites and merges change the
/// server cache and then the event cache where no write shadows them; acks and reverts re-read server data;
/// listen-complete marks the server cache complete. A `value` change is added when the event cache is complete and
/// something visible changed.
package struct ViewProcessor {
    package let filter: any NodeFilter

    package func apply(_ operation: Operation, to oldViewCache: ViewCache, writes: WriteTreeRef, completeCache: Node?) -> (ViewCache, [Change]) {
        var accumulator: ChildChangeAccumulator? = ChildChangeAccumulator()
        let newViewCache: ViewCache
        switch operation {
        case .overwrite(let source, let path, let node):
            if source.fromUser {
                newViewCache = applyUserOverwrite(oldViewCache, path, node, writes, completeCache, &accumulator)
            } else {
                let filterServerNode = source.tagged || (oldViewCache.serverCache.isFiltered && !path.isEmpty)
                newViewCache = applyServerOverwrite(oldViewCache, path, node, writes, completeCache, filterServerNode, &accumulator)
            }
        case .merge(let source, let path, let children):
            if source.fromUser {
                newViewCache = applyUserMerge(oldViewCache, path, children, writes, completeCache, &accumulator)
            } else {
                let filterServerNode = source.tagged || oldViewCache.serverCache.isFiltered
                newViewCache = applyServerMerge(oldViewCache, path, children, writes, completeCache, filterServerNode, &accumulator)
            }
        case .ackUserWrite(let path, let affected, let revert):
            if revert {
                newViewCache = revertUserWrite(oldViewCache, path, writes, completeCache, &accumulator)
            } else {
                newViewCache = ackUserWrite(oldViewCache, path, affected, writes, completeCache, &accumulator)
            }
        case .listenComplete(_, let path):
            newViewCache = listenComplete(oldViewCache, path, writes, &accumulator)
        }
        var changes = accumulator?.all ?? []
        ViewProcessor.maybeAddValueChange(oldViewCache, newViewCache, &changes)
        return (newViewCache, changes)
    }

    private static func maybeAddValueChange(_ old: ViewCache, _ new: ViewCache, _ changes: inout [Change]) {
        let eventSnap = new.eventCache
        guard eventSnap.isFullyInitialized else { return }
        let isLeafOrEmpty = eventSnap.node.isLeaf || eventSnap.node.isEmpty
        let oldComplete = old.completeEventSnap ?? .empty
        if !changes.isEmpty || !old.eventCache.isFullyInitialized
            || (isLeafOrEmpty && !eventSnap.node.isEqual(to: oldComplete))
            || !eventSnap.node.priority.isEqual(to: oldComplete.priority) {
            changes.append(.value(eventSnap.node))
        }
    }

    private func generateEventCacheAfterServerEvent(_ viewCache: ViewCache, _ changePath: DatabasePath, _ writes: WriteTreeRef, _ source: any CompleteChildSource, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        let oldEventSnap = viewCache.eventCache
        if writes.shadowingWrite(changePath) != nil { return viewCache }
        let newEventCache: Node
        if changePath.isEmpty {
            if viewCache.serverCache.isFiltered {
                let serverCache = viewCache.completeServerSnap ?? .empty
                let completeChildren = serverCache.isLeaf ? Node.empty : serverCache
                let eventChildren = writes.calcCompleteEventChildren(completeChildren)
                newEventCache = filter.updateFullNode(oldEventSnap.node, eventChildren, accumulator: &accumulator)
            } else {
                let completeNode = writes.calcCompleteEventCache(viewCache.completeServerSnap) ?? .empty
                newEventCache = filter.updateFullNode(oldEventSnap.node, completeNode, accumulator: &accumulator)
            }
        } else {
            let childKey = changePath.front!
            if childKey == ".priority" {
                let updatedPriority = writes.calcEventCacheAfterServerOverwrite(changePath, serverNode: viewCache.serverCache.node)
                if let updatedPriority {
                    newEventCache = filter.updatePriority(oldEventSnap.node, updatedPriority)
                } else {
                    newEventCache = oldEventSnap.node
                }
            } else {
                let childChangePath = changePath.popFront
                let newEventChild: Node?
                if oldEventSnap.isCompleteForChild(childKey) {
                    let update = writes.calcEventCacheAfterServerOverwrite(changePath, serverNode: viewCache.serverCache.node)
                    let oldChild = oldEventSnap.node.immediateChild(childKey)
                    newEventChild = update.map { oldChild.updateChild(childChangePath, $0) } ?? oldChild
                } else {
                    newEventChild = writes.calcCompleteChild(childKey, serverCache: viewCache.serverCache)
                }
                if let newEventChild {
                    newEventCache = filter.updateChild(oldEventSnap.node, key: childKey, newChild: newEventChild, affectedPath: childChangePath, source: source, accumulator: &accumulator)
                } else {
                    newEventCache = oldEventSnap.node
                }
            }
        }
        return viewCache.updatingEventSnap(newEventCache, complete: oldEventSnap.isFullyInitialized || changePath.isEmpty, filtered: filter.filtersNodes)
    }

    private func applyServerOverwrite(_ oldViewCache: ViewCache, _ changePath: DatabasePath, _ changedSnap: Node, _ writes: WriteTreeRef, _ completeCache: Node?, _ filterServerNode: Bool, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        let oldServerSnap = oldViewCache.serverCache
        let serverFilter: any NodeFilter = filterServerNode ? filter : filter.indexedFilter
        var none: ChildChangeAccumulator? = nil
        let newServerCache: Node
        if changePath.isEmpty {
            newServerCache = serverFilter.updateFullNode(oldServerSnap.node, changedSnap, accumulator: &none)
        } else if serverFilter.filtersNodes && !oldServerSnap.isFiltered {
            let newServerNode = oldServerSnap.node.updateChild(changePath, changedSnap)
            newServerCache = serverFilter.updateFullNode(oldServerSnap.node, newServerNode, accumulator: &none)
        } else {
            let childKey = changePath.front!
            if !oldServerSnap.isCompleteForPath(changePath) && changePath.count > 1 { return oldViewCache }
            let childChangePath = changePath.popFront
            let newChildNode = oldServerSnap.node.immediateChild(childKey).updateChild(childChangePath, changedSnap)
            if childKey == ".priority" {
                newServerCache = serverFilter.updatePriority(oldServerSnap.node, newChildNode)
            } else {
                newServerCache = serverFilter.updateChild(oldServerSnap.node, key: childKey, newChild: newChildNode, affectedPath: childChangePath, source: NoCompleteChildSource(), accumulator: &none)
            }
        }
        let newViewCache = oldViewCache.updatingServerSnap(newServerCache, complete: oldServerSnap.isFullyInitialized || changePath.isEmpty, filtered: serverFilter.filtersNodes)
        let source = WriteTreeCompleteChildSource(writes: writes, viewCache: newViewCache, completeServerCache: completeCache)
        return generateEventCacheAfterServerEvent(newViewCache, changePath, writes, source, &accumulator)
    }

    private func applyUserOverwrite(_ oldViewCache: ViewCache, _ changePath: DatabasePath, _ changedSnap: Node, _ writes: WriteTreeRef, _ completeCache: Node?, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        let oldEventSnap = oldViewCache.eventCache
        let source = WriteTreeCompleteChildSource(writes: writes, viewCache: oldViewCache, completeServerCache: completeCache)
        guard let childKey = changePath.front else {
            let newEventCache = filter.updateFullNode(oldEventSnap.node, changedSnap, accumulator: &accumulator)
            return oldViewCache.updatingEventSnap(newEventCache, complete: true, filtered: filter.filtersNodes)
        }
        if childKey == ".priority" {
            let newEventCache = filter.updatePriority(oldEventSnap.node, changedSnap)
            return oldViewCache.updatingEventSnap(newEventCache, complete: oldEventSnap.isFullyInitialized, filtered: oldEventSnap.isFiltered)
        }
        let childChangePath = changePath.popFront
        let oldChild = oldEventSnap.node.immediateChild(childKey)
        let newChild: Node
        if childChangePath.isEmpty {
            newChild = changedSnap
        } else if let childNode = source.completeChild(childKey) {
            if childChangePath.back == ".priority" && childNode.child(childChangePath.parent!).isEmpty {
                newChild = childNode
            } else {
                newChild = childNode.updateChild(childChangePath, changedSnap)
            }
        } else {
            newChild = .empty
        }
        if oldChild.isEqual(to: newChild) { return oldViewCache }
        let newEventSnap = filter.updateChild(oldEventSnap.node, key: childKey, newChild: newChild, affectedPath: childChangePath, source: source, accumulator: &accumulator)
        return oldViewCache.updatingEventSnap(newEventSnap, complete: oldEventSnap.isFullyInitialized, filtered: filter.filtersNodes)
    }

    private func applyUserMerge(_ viewCache: ViewCache, _ path: DatabasePath, _ changedChildren: ImmutableTree<Node>, _ writes: WriteTreeRef, _ serverCache: Node?, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        var current = viewCache
        var entries: [(DatabasePath, Node)] = []
        changedChildren.forEach { relative, node in entries.append((path.child(relative), node)) }
        // Children the view already has first, then the others (Firebase's order, so windows refill correctly).
        for (writePath, node) in entries where viewCache.eventCache.isCompleteForChild(writePath.front ?? "") {
            current = applyUserOverwrite(current, writePath, node, writes, serverCache, &accumulator)
        }
        for (writePath, node) in entries where !viewCache.eventCache.isCompleteForChild(writePath.front ?? "") {
            current = applyUserOverwrite(current, writePath, node, writes, serverCache, &accumulator)
        }
        return current
    }

    private static func applyMerge(_ node: Node, _ merge: ImmutableTree<Node>) -> Node {
        var result = node
        merge.forEach { relative, child in result = result.updateChild(relative, child) }
        return result
    }

    private func applyServerMerge(_ viewCache: ViewCache, _ path: DatabasePath, _ changedChildren: ImmutableTree<Node>, _ writes: WriteTreeRef, _ serverCache: Node?, _ filterServerNode: Bool, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        if viewCache.serverCache.node.isEmpty && !viewCache.serverCache.isFullyInitialized { return viewCache }
        var current = viewCache
        let mergeTree = path.isEmpty ? changedChildren : ImmutableTree<Node>().settingTree(path, changedChildren)
        let serverNode = viewCache.serverCache.node
        let keys = mergeTree.sortedChildKeys
        for key in keys where serverNode.hasChild(key) {
            let newChild = ViewProcessor.applyMerge(serverNode.immediateChild(key), mergeTree.children[key]!)
            current = applyServerOverwrite(current, DatabasePath(keys: [key]), newChild, writes, serverCache, filterServerNode, &accumulator)
        }
        for key in keys where !serverNode.hasChild(key) {
            let childTree = mergeTree.children[key]!
            let isUnknownDeepMerge = !viewCache.serverCache.isCompleteForChild(key) && childTree.value == nil
            if isUnknownDeepMerge { continue }
            let newChild = ViewProcessor.applyMerge(serverNode.immediateChild(key), childTree)
            current = applyServerOverwrite(current, DatabasePath(keys: [key]), newChild, writes, serverCache, filterServerNode, &accumulator)
        }
        return current
    }

    private func ackUserWrite(_ viewCache: ViewCache, _ ackPath: DatabasePath, _ affected: ImmutableTree<Bool>, _ writes: WriteTreeRef, _ completeCache: Node?, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        if writes.shadowingWrite(ackPath) != nil { return viewCache }
        let filterServerNode = viewCache.serverCache.isFiltered
        let serverCache = viewCache.serverCache
        if affected.value != nil {
            if (ackPath.isEmpty && serverCache.isFullyInitialized) || serverCache.isCompleteForPath(ackPath) {
                return applyServerOverwrite(viewCache, ackPath, serverCache.node.child(ackPath), writes, completeCache, filterServerNode, &accumulator)
            }
            if ackPath.isEmpty {
                var changed = ImmutableTree<Node>()
                for key in serverCache.node.childKeys {
                    changed = changed.setting(DatabasePath(keys: [key]), serverCache.node.immediateChild(key))
                }
                return applyServerMerge(viewCache, ackPath, changed, writes, completeCache, filterServerNode, &accumulator)
            }
            return viewCache
        }
        var changed = ImmutableTree<Node>()
        affected.forEach { mergePath, _ in
            let serverCachePath = ackPath.child(mergePath)
            if serverCache.isCompleteForPath(serverCachePath) {
                changed = changed.setting(mergePath, serverCache.node.child(serverCachePath))
            }
        }
        return applyServerMerge(viewCache, ackPath, changed, writes, completeCache, filterServerNode, &accumulator)
    }

    private func listenComplete(_ viewCache: ViewCache, _ path: DatabasePath, _ writes: WriteTreeRef, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        let oldServer = viewCache.serverCache
        let newViewCache = viewCache.updatingServerSnap(oldServer.node, complete: oldServer.isFullyInitialized || path.isEmpty, filtered: oldServer.isFiltered)
        return generateEventCacheAfterServerEvent(newViewCache, path, writes, NoCompleteChildSource(), &accumulator)
    }

    private func revertUserWrite(_ viewCache: ViewCache, _ path: DatabasePath, _ writes: WriteTreeRef, _ completeServerCache: Node?, _ accumulator: inout ChildChangeAccumulator?) -> ViewCache {
        if writes.shadowingWrite(path) != nil { return viewCache }
        let source = WriteTreeCompleteChildSource(writes: writes, viewCache: viewCache, completeServerCache: completeServerCache)
        let oldEventCache = viewCache.eventCache.node
        var newEventCache: Node
        if path.isEmpty || path.front == ".priority" {
            let newNode: Node
            if viewCache.serverCache.isFullyInitialized {
                newNode = writes.calcCompleteEventCache(viewCache.completeServerSnap) ?? .empty
            } else {
                newNode = writes.calcCompleteEventChildren(viewCache.serverCache.node)
            }
            newEventCache = filter.updateFullNode(oldEventCache, newNode, accumulator: &accumulator)
        } else {
            let childKey = path.front!
            var newChild = writes.calcCompleteChild(childKey, serverCache: viewCache.serverCache)
            if newChild == nil && viewCache.serverCache.isCompleteForChild(childKey) {
                newChild = oldEventCache.immediateChild(childKey)
            }
            if let newChild {
                newEventCache = filter.updateChild(oldEventCache, key: childKey, newChild: newChild, affectedPath: path.popFront, source: source, accumulator: &accumulator)
            } else if viewCache.eventCache.node.hasChild(childKey) {
                newEventCache = filter.updateChild(oldEventCache, key: childKey, newChild: .empty, affectedPath: path.popFront, source: source, accumulator: &accumulator)
            } else {
                newEventCache = oldEventCache
            }
            if newEventCache.isEmpty && viewCache.serverCache.isFullyInitialized {
                let complete = writes.calcCompleteEventCache(viewCache.completeServerSnap) ?? .empty
                if complete.isLeaf {
                    newEventCache = filter.updateFullNode(newEventCache, complete, accumulator: &accumulator)
                }
            }
        }
        let complete = viewCache.serverCache.isFullyInitialized || writes.shadowingWrite(.root) != nil
        return viewCache.updatingEventSnap(newEventCache, complete: complete, filtered: filter.filtersNodes)
    }
}
