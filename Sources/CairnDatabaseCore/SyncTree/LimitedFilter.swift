/// Keeps at most `limit` children within the range, from the start (limitToFirst) or the end (limitToLast). When a
/// child leaves a full window, the next complete child from the source refills it.
package struct LimitedFilter: NodeFilter {
    let rangedFilter: RangedFilter
    package let index: DatabaseIndex
    let limit: Int
    let reverse: Bool

    package init(params: QueryParams) {
        rangedFilter = RangedFilter(params: params)
        index = params.index
        limit = params.limit ?? 0
        reverse = !params.isViewFromLeft
    }

    package var indexedFilter: IndexedFilter { rangedFilter.indexedFilter }
    package var filtersNodes: Bool { true }

    package func updatePriority(_ oldSnap: Node, _ newPriority: Node) -> Node { oldSnap }

    package func updateChild(_ snap: Node, key: String, newChild: Node, affectedPath: DatabasePath, source: any CompleteChildSource, accumulator: inout ChildChangeAccumulator?) -> Node {
        let kept = rangedFilter.matches(NamedNode(key, newChild)) ? newChild : .empty
        if snap.immediateChild(key).isEqual(to: kept) { return snap }
        if snap.numChildren < limit {
            return indexedFilter.updateChild(snap, key: key, newChild: kept, affectedPath: affectedPath, source: source, accumulator: &accumulator)
        }
        return fullLimitUpdateChild(snap, key: key, childSnap: kept, source: source, accumulator: &accumulator)
    }

    package func updateFullNode(_ oldSnap: Node, _ newSnap: Node, accumulator: inout ChildChangeAccumulator?) -> Node {
        var kept: [NamedNode] = []
        if !newSnap.isLeaf && !newSnap.isEmpty {
            let ordered = newSnap.sortedChildren(by: index)
            for child in (reverse ? ordered.reversed() : ordered) where kept.count < limit {
                if withinDirectionalStart(child) && withinDirectionalEnd(child) { kept.append(child) }
            }
        }
        let filtered = Node(children: kept)
        return indexedFilter.updateFullNode(oldSnap, filtered, accumulator: &accumulator)
    }

    private func withinDirectionalStart(_ child: NamedNode) -> Bool {
        reverse ? rangedFilter.withinEnd(child) : rangedFilter.withinStart(child)
    }

    private func withinDirectionalEnd(_ child: NamedNode) -> Bool {
        reverse ? rangedFilter.withinStart(child) : rangedFilter.withinEnd(child)
    }

    /// Window order: the index's order, reversed for limitToLast.
    private func windowCompare(_ a: NamedNode, _ b: NamedNode) -> Int {
        reverse ? index.compare(b, a) : index.compare(a, b)
    }

    private func fullLimitUpdateChild(_ snap: Node, key: String, childSnap: Node, source: any CompleteChildSource, accumulator: inout ChildChangeAccumulator?) -> Node {
        let newChild = NamedNode(key, childSnap)
        guard let boundary = reverse ? snap.firstChild(by: index) : snap.lastChild(by: index) else { return snap }
        let inRange = rangedFilter.matches(newChild)
        if snap.hasChild(key) {
            let oldChildSnap = snap.immediateChild(key)
            var next = source.childAfter(boundary, index: index, reverse: reverse)
            while let candidate = next, candidate.name == key || snap.hasChild(candidate.name) {
                next = source.childAfter(candidate, index: index, reverse: reverse)
            }
            let compareNext = next.map { windowCompare($0, newChild) } ?? 1
            let remainsInWindow = inRange && !childSnap.isEmpty && compareNext >= 0
            if remainsInWindow {
                accumulator?.track(.childChanged(key, childSnap, old: oldChildSnap))
                return snap.updateImmediateChild(key, childSnap)
            }
            accumulator?.track(.childRemoved(key, oldChildSnap))
            let withoutChild = snap.updateImmediateChild(key, .empty)
            if let next, rangedFilter.matches(next) {
                accumulator?.track(.childAdded(next.name, next.node))
                return withoutChild.updateImmediateChild(next.name, next.node)
            }
            return withoutChild
        }
        if childSnap.isEmpty { return snap }
        if inRange && windowCompare(boundary, newChild) >= 0 {
            accumulator?.track(.childRemoved(boundary.name, boundary.node))
            accumulator?.track(.childAdded(key, childSnap))
            return snap.updateImmediateChild(key, childSnap).updateImmediateChild(boundary.name, .empty)
        }
        return snap
    }
}
