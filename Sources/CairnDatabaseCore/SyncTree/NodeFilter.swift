/// How a view keeps its nodes: all children (``IndexedFilter``), a range (``RangedFilter``), or a limited window
/// (``LimitedFilter``). Filters update a node for a child change or a full replacement and report the child changes.
package protocol NodeFilter {
    func updateChild(_ snap: Node, key: String, newChild: Node, affectedPath: DatabasePath, source: any CompleteChildSource, accumulator: inout ChildChangeAccumulator?) -> Node
    func updateFullNode(_ oldSnap: Node, _ newSnap: Node, accumulator: inout ChildChangeAccumulator?) -> Node
    func updatePriority(_ oldSnap: Node, _ newPriority: Node) -> Node
    /// True when the filter may drop children (range or limit).
    var filtersNodes: Bool { get }
    var indexedFilter: IndexedFilter { get }
    var index: DatabaseIndex { get }
}

extension QueryParams {
    /// The filter for these parameters: indexed for load-all queries, limited with a limit, ranged otherwise.
    package var nodeFilter: any NodeFilter {
        if loadsAllData { return IndexedFilter(index: index) }
        if hasLimit { return LimitedFilter(params: self) }
        return RangedFilter(params: self)
    }
}
