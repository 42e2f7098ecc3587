/// A Firestore query as the client core models it (iOS `core/query.cc`, JS `core/query.ts`): where to look
/// (``path``, ``collectionGroup``), which documents match (``filters``), in what order (``explicitOrderBy``
/// plus the implicit order bys of ``normalizedOrderBy``), how many (``limit``, ``limitType``), and between
/// which cursors (``startAt``, ``endAt``).
///
/// A query is an immutable value. Build one with the validating builders, which throw
/// ``ModelError`` `invalidArgument` with the Firebase SDKs' messages (see `Query+Building.swift`); the public
/// `Query` type wraps them one to one:
///
/// ```swift
/// let posts = try Query(path: ResourcePath(parsing: "users/ada/posts"))
///     .filtered(by: .field(FieldFilter(FieldPath(segments: ["stars"]), .greaterThan, .integer(10))))
///     .ordered(by: OrderBy(FieldPath(segments: ["date"]), descending: true))
///     .limited(to: 20)
/// posts.normalizedOrderBy   // date desc, stars desc, __name__ desc
/// posts.matches(document)   // the test the cache applies to every candidate document
/// posts.canonicalID         // the key under which the cache keeps the query's target
/// ```
///
/// Kinds of query, told apart by ``path`` and ``collectionGroup``:
/// - a collection query: `path` names a collection and matches its direct children only;
/// - a collection group query: ``collectionGroup`` is set and matches every document whose parent collection
///   has that id, anywhere under `path` (the root for the public API);
/// - a document query: `path` names a document, and the query matches just that document (what a
///   `DocumentReference` listens to).
package struct Query: Sendable, Hashable, CustomStringConvertible {
    /// Whether ``limit`` keeps the first or the last documents in query order.
    package enum LimitType: String, Sendable, Hashable {
        /// `limit(to:)`: the first documents.
        case first
        /// `limit(toLast:)`: the last documents, still returned in query order.
        case last
    }

    package private(set) var path: ResourcePath
    package private(set) var collectionGroup: String?
    /// The filters, ANDed together; each is simplified (see ``Filter/simplified``) and never empty.
    package internal(set) var filters: [Filter] {
        didSet { normalizedOrderBy = Self.normalize(explicitOrderBy, filters: filters) }
    }
    /// The order bys the caller asked for, in order.
    package internal(set) var explicitOrderBy: [OrderBy] {
        didSet { normalizedOrderBy = Self.normalize(explicitOrderBy, filters: filters) }
    }
    /// The most documents the query returns; `nil` for no limit.
    package internal(set) var limit: Int?
    /// Which end ``limit`` keeps; meaningless without a limit.
    package internal(set) var limitType: LimitType
    package internal(set) var startAt: Bound?
    package internal(set) var endAt: Bound?
    /// The complete order of the query's results (§6.3 of the semantics notes, SDK
    /// `CalculateNormalizedOrderBys`):
    /// 1. the explicit order bys as given;
    /// 2. every inequality field (see ``FilterOperator/isInequality``) not ordered explicitly, in field-path
    ///    order, in the direction of the last explicit order by (ascending when there is none);
    /// 3. `__name__` in that same direction, unless ordered explicitly.
    ///
    /// Cursors are positions in this order, and a document must have every field in it to match.
    package private(set) var normalizedOrderBy: [OrderBy]

    /// A query for every document of a collection, every document of a collection group under `path`
    /// (when `collectionGroup` is set), or a single document (when `path` names one).
    ///
    /// ```swift
    /// Query(path: ResourcePath(segments: ["rooms"]))                        // collection "rooms"
    /// Query(path: .root, collectionGroup: "messages")                       // every "messages" collection
    /// ```
    package init(path: ResourcePath, collectionGroup: String? = nil) {
        self.init(
            path: path, collectionGroup: collectionGroup, filters: [], explicitOrderBy: [], limit: nil,
            limitType: .first, startAt: nil, endAt: nil)
    }

    /// A query from parts that are already valid, such as a query decoded from the cache or a bundle: nothing
    /// is validated or simplified. Use the builders for anything that comes from a user.
    package init(
        path: ResourcePath, collectionGroup: String?, filters: [Filter], explicitOrderBy: [OrderBy], limit: Int?,
        limitType: LimitType, startAt: Bound?, endAt: Bound?
    ) {
        self.path = path
        self.collectionGroup = collectionGroup
        self.filters = filters
        self.explicitOrderBy = explicitOrderBy
        self.limit = limit
        self.limitType = limitType
        self.startAt = startAt
        self.endAt = endAt
        self.normalizedOrderBy = Self.normalize(explicitOrderBy, filters: filters)
    }

    /// True for a query on a single document: `path` names a document, without collection group or filters.
    package var isDocumentQuery: Bool { path.isDocumentPath && collectionGroup == nil && filters.isEmpty }

    /// True for a collection group query.
    package var isCollectionGroupQuery: Bool { collectionGroup != nil }

    /// True for a `limit(toLast:)` query.
    package var hasLimitToLast: Bool { limit != nil && limitType == .last }

    /// True when every document at the query's path matches: no filter, limit or cursor, and at most an order
    /// by `__name__` (SDK `MatchesAllDocuments`). The cache can answer such a query with a plain scan.
    package var matchesAllDocuments: Bool {
        filters.isEmpty && limit == nil && startAt == nil && endAt == nil
            && (explicitOrderBy.isEmpty || (explicitOrderBy.count == 1 && explicitOrderBy[0].field.isDocumentKey))
    }

    /// The fields that carry an inequality filter anywhere in the filter trees, each once, in field-path order
    /// (`__name__` included when it has one).
    package var inequalityFields: [FieldPath] { Self.inequalityFields(of: filters) }

    /// The same query on the collection at `path` instead: how a collection group query runs over each of the
    /// collections it spans (SDK `AsCollectionQueryAtPath`).
    package func asCollectionQuery(at path: ResourcePath) -> Query {
        Query(
            path: path, collectionGroup: nil, filters: filters, explicitOrderBy: explicitOrderBy, limit: limit,
            limitType: limitType, startAt: startAt, endAt: endAt)
    }

    static func inequalityFields(of filters: [Filter]) -> [FieldPath] {
        let fields = Set(filters.lazy.flatMap(\.flattenedFilters).filter(\.isInequality).map(\.field))
        return fields.sorted()
    }

    static func normalize(_ explicitOrderBy: [OrderBy], filters: [Filter]) -> [OrderBy] {
        var result = explicitOrderBy
        let ordered = Set(explicitOrderBy.map(\.field))
        let descending = explicitOrderBy.last?.descending ?? false
        for field in inequalityFields(of: filters) where !ordered.contains(field) && !field.isDocumentKey {
            result.append(OrderBy(field, descending: descending))
        }
        if !ordered.contains(.documentKey) {
            result.append(.documentKey(descending: descending))
        }
        return result
    }

    /// The query's canonical id: its ``target``'s canonical id, followed by `|lt:f` or `|lt:l` when it has a
    /// limit (SDK `Query::CanonicalId`). Two queries that are `==` have the same id. The shape:
    ///
    /// ```text
    /// query-id = target-id [ "|lt:" ( "f" | "l" ) ]
    /// ```
    ///
    /// (see ``QueryTarget/canonicalID`` for `target-id`). A `limit(toLast:)` query's target has the flipped
    /// order, so `limit(to: 2)` and `limit(toLast: 2)` never share an id.
    package var canonicalID: String {
        guard limit != nil else { return target.canonicalID }
        return target.canonicalID + (limitType == .last ? "|lt:l" : "|lt:f")
    }

    package var description: String { "Query(\(canonicalID))" }

    /// Queries are equal when they run the same target with the same limit type (SDK `operator==`), so an
    /// explicit `__name__` order by that normalization would add anyway makes no difference. Filters compare
    /// structurally: `where(a).where(b)` and `where(and(a, b))` are different queries that share a canonical id.
    package static func == (a: Query, b: Query) -> Bool {
        a.hasLimitToLast == b.hasLimitToLast && a.target == b.target
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(hasLimitToLast)
        hasher.combine(target)
    }
}
