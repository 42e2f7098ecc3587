/// What a query asks the server (and the cache) for: the query with its complete order and with
/// `limit(toLast:)` turned into a plain limit (iOS `core/target.cc`, `Query::ToTarget`).
///
/// The server only knows "first N", so a `limit(toLast: n)` query runs as a target with **every order-by
/// direction flipped and the cursors swapped** (its `endAt` becomes the target's `startAt` and vice versa,
/// inclusiveness kept), and the client reverses the results back into query order. Listeners that share a
/// target share a watch stream and a cache entry, found by ``canonicalID``.
///
/// ```swift
/// let q = Query(path: ResourcePath(segments: ["scores"]))
/// let last3 = try q.ordered(by: OrderBy(FieldPath(segments: ["points"]))).limitedToLast(3)
/// last3.target.orderBy      // points desc, __name__ desc
/// last3.target.limit        // 3
/// last3.target.canonicalID  // "scores|f:|ob:pointsdesc,__name__desc|l:3"
/// ```
package struct QueryTarget: Sendable, Hashable, CustomStringConvertible {
    package var path: ResourcePath
    package var collectionGroup: String?
    package var filters: [Filter]
    /// The complete order (a query's normalized order bys, flipped for `limit(toLast:)`).
    package var orderBy: [OrderBy]
    /// The first `limit` documents in ``orderBy`` order; `nil` for all.
    package var limit: Int?
    package var startAt: Bound?
    package var endAt: Bound?

    package init(
        path: ResourcePath, collectionGroup: String?, filters: [Filter], orderBy: [OrderBy], limit: Int?,
        startAt: Bound?, endAt: Bound?
    ) {
        self.path = path
        self.collectionGroup = collectionGroup
        self.filters = filters
        self.orderBy = orderBy
        self.limit = limit
        self.startAt = startAt
        self.endAt = endAt
    }

    /// True for a target on a single document (what a `DocumentReference` listens to).
    package var isDocumentTarget: Bool { path.isDocumentPath && collectionGroup == nil && filters.isEmpty }

    /// The key the target cache files the target under (SDK `Target::CanonicalId`, in the JS SDK's shape with
    /// `,` between list items):
    ///
    /// ```text
    /// target-id = path [ "|cg:" collection-group ]
    ///             "|f:" [ filter *( "," filter ) ]          ; Filter.canonicalID
    ///             "|ob:" [ order-by *( "," order-by ) ]     ; OrderBy.canonicalID, the complete order
    ///             [ "|l:" limit ]
    ///             [ "|lb:" ( "b:" | "a:" ) position ]       ; startAt: b = inclusive (before), a = after
    ///             [ "|ub:" ( "a:" | "b:" ) position ]       ; endAt:   a = inclusive (after), b = before
    /// position  = value *( "," value )                      ; Value.canonicalString
    /// ```
    ///
    /// For example `rooms|f:size>=2|ob:sizeasc,__name__asc|l:10|lb:b:5` for "rooms where size >= 2, ordered by
    /// size, start at 5, limit 10".
    package var canonicalID: String {
        var id = path.canonicalString
        if let collectionGroup {
            id += "|cg:" + collectionGroup
        }
        id += "|f:" + filters.map(\.canonicalID).joined(separator: ",")
        id += "|ob:" + orderBy.map(\.canonicalID).joined(separator: ",")
        if let limit {
            id += "|l:\(limit)"
        }
        if let startAt {
            id += "|lb:" + (startAt.inclusive ? "b:" : "a:") + startAt.positionCanonicalID
        }
        if let endAt {
            id += "|ub:" + (endAt.inclusive ? "a:" : "b:") + endAt.positionCanonicalID
        }
        return id
    }

    package var description: String { "Target(\(canonicalID))" }
}

extension Query {
    /// The target this query runs as: its normalized order, and for `limit(toLast:)` the flipped order and
    /// swapped cursors (see ``QueryTarget``).
    package var target: QueryTarget { target(orderedBy: normalizedOrderBy) }

    /// The target an aggregation of this query runs as (SDK `Query::ToAggregateTarget`): only the explicit order
    /// bys, with no implicit inequality or `__name__` orders (so that a count or sum needs no composite index
    /// the query's ordering alone does not), flipped with swapped cursors for `limit(toLast:)` like ``target``.
    ///
    /// ```swift
    /// let last3 = try q.ordered(by: OrderBy(FieldPath(segments: ["points"]))).limitedToLast(3)
    /// last3.aggregateTarget.orderBy   // points desc
    /// ```
    package var aggregateTarget: QueryTarget { target(orderedBy: explicitOrderBy) }

    private func target(orderedBy orderBy: [OrderBy]) -> QueryTarget {
        guard hasLimitToLast else {
            return QueryTarget(
                path: path, collectionGroup: collectionGroup, filters: filters, orderBy: orderBy,
                limit: limit, startAt: startAt, endAt: endAt)
        }
        return QueryTarget(
            path: path, collectionGroup: collectionGroup, filters: filters,
            orderBy: orderBy.map(\.reversed), limit: limit, startAt: endAt, endAt: startAt)
    }
}
