/// Keeps the children between the query's start and end bounds (inclusive or exclusive) under its index.
package struct RangedFilter: NodeFilter {
    package let indexedFilter: IndexedFilter
    package let index: DatabaseIndex
    package let startPost: NamedNode
    package let endPost: NamedNode
    let startIsInclusive: Bool
    let endIsInclusive: Bool

    package init(params: QueryParams) {
        index = params.index
        indexedFilter = IndexedFilter(index: params.index)
        startPost = params.startPost
        endPost = params.endPost
        startIsInclusive = params.startIsInclusive
        endIsInclusive = params.endIsInclusive
    }

    package func matches(_ child: NamedNode) -> Bool {
        withinStart(child) && withinEnd(child)
    }

    func withinStart(_ child: NamedNode) -> Bool {
        let order = index.compare(startPost, child)
        return startIsInclusive ? order <= 0 : order < 0
    }

    func withinEnd(_ child: NamedNode) -> Bool {
        let order = index.compare(child, endPost)
        return endIsInclusive ? order <= 0 : order < 0
    }

    package func updateChild(_ snap: Node, key: String, newChild: Node, affectedPath: DatabasePath, source: any CompleteChildSource, accumulator: inout ChildChangeAccumulator?) -> Node {
        let kept = matches(NamedNode(key, newChild)) ? newChild : .empty
        return indexedFilter.updateChild(snap, key: key, newChild: kept, affectedPath: affectedPath, source: source, accumulator: &accumulator)
    }

    package func updateFullNode(_ oldSnap: Node, _ newSnap: Node, accumulator: inout ChildChangeAccumulator?) -> Node {
        let full = newSnap.isLeaf ? Node.empty : newSnap
        let filtered = Node(children: full.sortedChildren(by: .key).filter(matches))
        return indexedFilter.updateFullNode(oldSnap, filtered, accumulator: &accumulator)
    }

    package func updatePriority(_ oldSnap: Node, _ newPriority: Node) -> Node { oldSnap }

    package var filtersNodes: Bool { true }
}
