/// The validating builders. Each returns a new query or throws ``ModelError`` `invalidArgument` with a message
/// modelled on the Firebase SDKs' (iOS `api/query_core.cc` and `FIRQuery.mm`, JS `lite-api/query.ts`); the
/// rules the SDKs leave to the backend are checked here too, with the limits measured on the Cloud Firestore
/// emulator, so that a query the server would reject fails the same way offline. See `Query+Validation.swift`
/// for the filter rules.
///
/// ```swift
/// let q = Query(path: ResourcePath(segments: ["cities"]))
/// let population = FieldPath(segments: ["population"])
/// let big = try q.filtered(by: .field(FieldFilter(population, .greaterThan, .integer(1_000_000))))
///     .ordered(by: OrderBy(population, descending: true))
///     .starting(after: [.integer(5_000_000)])
///     .limited(to: 10)
/// try q.limited(to: 0)   // throws: "Invalid Query. Query limit (0) is invalid. Limit must be positive."
/// ```
extension Query {
    /// Adds a filter, ANDed with the existing ones (SDK `Query::AddNewFilter`). The filter is simplified first
    /// (``Filter/simplified``); an empty composite leaves the query unchanged, as in the SDKs.
    ///
    /// - Throws: `invalidArgument` for a filter that breaks a rule of `Query+Validation.swift`, such as a second
    ///   `not-in`, an empty `in` array or `age < null`.
    package func filtered(by filter: Filter) throws(ModelError) -> Query {
        try requireCollectionScope(for: "filters")
        let simplified = filter.simplified
        if simplified.isEmpty { return self }
        try validateNewFilter(simplified)
        var query = self
        query.filters.append(simplified)
        return query
    }

    /// Adds an order by after the existing ones (SDK `Query::OrderBy`).
    ///
    /// - Throws: `invalidArgument` when a cursor is already set (cursors are positions in the order, so the
    ///   order must come first), when the field is already ordered, or when the query is already ordered by
    ///   `__name__` (the backend allows nothing after the key).
    package func ordered(by orderBy: OrderBy) throws(ModelError) -> Query {
        try requireCollectionScope(for: "order bys")
        if startAt != nil {
            throw .invalidArgument(
                "Invalid query. You must not specify a starting point before specifying the order by.")
        }
        if endAt != nil {
            throw .invalidArgument(
                "Invalid query. You must not specify an ending point before specifying the order by.")
        }
        if explicitOrderBy.contains(where: { $0.field == orderBy.field }) {
            throw .invalidArgument(
                "Invalid query. The query is already ordered by '\(orderBy.field.canonicalString)'; "
                    + "an order by clause cannot contain the same field twice.")
        }
        if let last = explicitOrderBy.last, last.field.isDocumentKey {
            throw .invalidArgument(
                "Invalid query. You cannot order by '\(orderBy.field.canonicalString)' after ordering by the "
                    + "document ID; the document ID must be the last order by.")
        }
        var query = self
        query.explicitOrderBy.append(orderBy)
        return query
    }

    /// Keeps the first `limit` documents (SDK `Query::LimitToFirst`).
    ///
    /// - Throws: `invalidArgument` unless `1 <= limit <= Int32.max` (the wire format's range).
    package func limited(to limit: Int) throws(ModelError) -> Query {
        try Self.validateLimit(limit)
        var query = self
        query.limit = limit
        query.limitType = .first
        return query
    }

    /// Keeps the last `limit` documents, in query order (SDK `Query::LimitToLast`). Such a query needs an
    /// explicit order by, which ``validateForExecution()`` checks when it is listened to or read, as the SDKs do.
    ///
    /// - Throws: `invalidArgument` unless `1 <= limit <= Int32.max`.
    package func limitedToLast(_ limit: Int) throws(ModelError) -> Query {
        try Self.validateLimit(limit)
        var query = self
        query.limit = limit
        query.limitType = .last
        return query
    }

    /// Starts at the documents at `values` (inclusive); `values[i]` is a position on the i-th explicit order by.
    ///
    /// - Throws: `invalidArgument` for more values than explicit order bys, or for a `__name__` value that is
    ///   not a reference (resolve a document ID with ``documentIDCursorValue(_:database:)``).
    package func starting(at values: [Value]) throws(ModelError) -> Query {
        try withStart(cursor(values, inclusive: true))
    }

    /// Starts after the documents at `values` (exclusive). Throws as ``starting(at:)``.
    package func starting(after values: [Value]) throws(ModelError) -> Query {
        try withStart(cursor(values, inclusive: false))
    }

    /// Ends at the documents at `values` (inclusive). Throws as ``starting(at:)``.
    package func ending(at values: [Value]) throws(ModelError) -> Query {
        try withEnd(cursor(values, inclusive: true))
    }

    /// Ends before the documents at `values` (exclusive). Throws as ``starting(at:)``.
    package func ending(before values: [Value]) throws(ModelError) -> Query {
        try withEnd(cursor(values, inclusive: false))
    }

    /// The query with `bound` as its start cursor, unvalidated (SDK `Query::StartingAt`): for bounds made by
    /// ``bound(at:inclusive:database:)`` or decoded from the cache.
    package func withStart(_ bound: Bound?) -> Query {
        var query = self
        query.startAt = bound
        return query
    }

    /// The query with `bound` as its end cursor, unvalidated (SDK `Query::EndingAt`).
    package func withEnd(_ bound: Bound?) -> Query {
        var query = self
        query.endAt = bound
        return query
    }

    /// The checks the SDKs make when a query is listened to or read rather than when it is built
    /// (`ValidateHasExplicitOrderByForLimitToLast`): a `limit(toLast:)` query needs an explicit order by.
    ///
    /// - Throws: `invalidArgument` for a `limit(toLast:)` query without an explicit order by.
    package func validateForExecution() throws(ModelError) {
        if hasLimitToLast && explicitOrderBy.isEmpty {
            throw .invalidArgument(
                "limit(toLast:) queries require specifying at least one order(by:) clause; "
                    + "add one so that \"last\" has a meaning.")
        }
    }

    /// A cursor from values for the explicit order bys (iOS `boundFromFieldValues`).
    private func cursor(_ values: [Value], inclusive: Bool) throws(ModelError) -> Bound {
        try requireCollectionScope(for: "cursors")
        if values.count > explicitOrderBy.count {
            throw .invalidArgument(
                "Invalid query. You are trying to start or end a query using more values than were specified in "
                    + "the order by (\(values.count) values, \(explicitOrderBy.count) order bys).")
        }
        for (value, order) in zip(values, explicitOrderBy) where order.field.isDocumentKey {
            try Self.requireReference(value, context: .cursor)
        }
        return Bound(position: values, inclusive: inclusive)
    }

    private static func validateLimit(_ limit: Int) throws(ModelError) {
        if limit <= 0 {
            throw .invalidArgument("Invalid Query. Query limit (\(limit)) is invalid. Limit must be positive.")
        }
        if limit > Int(Int32.max) {
            throw .invalidArgument(
                "Invalid Query. Query limit (\(limit)) is invalid. Limit must be at most \(Int32.max).")
        }
    }

    /// Document queries (a `DocumentReference`'s) take no filters, order bys or cursors.
    private func requireCollectionScope(for what: String) throws(ModelError) {
        if isDocumentQuery {
            throw .invalidArgument(
                "Invalid query. \(path) is a document, and a document query cannot have \(what); "
                    + "query its collection instead.")
        }
    }
}
