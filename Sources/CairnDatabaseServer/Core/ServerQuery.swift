import CairnDatabaseCore

/// Evaluating a query over the server's data with the client core's own filters (``IndexedFilter``,
/// ``RangedFilter``, ``LimitedFilter``), so the server and Cairn's client agree on every order and bound.
///
/// ```swift
/// let window = try QueryParams().orderedBy(.value).limited(toLast: 3).evaluate(on: scores)
/// ```
extension QueryParams {
    /// The children of `node` the query selects (a leaf or empty node selects nothing unless the query loads
    /// all data, which returns the node itself).
    package func evaluate(on node: Node) -> Node {
        if loadsAllData { return node }
        var accumulator: ChildChangeAccumulator? = nil
        return nodeFilter.updateFullNode(.empty, node, accumulator: &accumulator)
    }
}
