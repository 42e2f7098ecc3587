/// Turning the public API's document IDs and document snapshots into the reference values and bounds a query
/// holds. A query does not know its database, so these take it as an argument; the public `Query` passes
/// its Firestore instance's.
///
/// ```swift
/// let db = DatabaseID(projectID: "demo")
/// let rooms = Query(path: ResourcePath(segments: ["rooms"]))
/// let eros = try rooms.documentIDFilterValue("eros", database: db)        // .reference(db, rooms/eros)
/// let q = try rooms.filtered(by: .field(FieldFilter(.documentKey, .equal, eros)))
/// try rooms.documentIDFilterValue("eros/messages/m1", database: db)
/// // throws: a collection query takes a plain document ID, without '/'
/// ```
extension Query {
    /// The reference value for a document ID given to `whereField(FieldPath.documentID(), …)`, as the SDKs
    /// resolve it (`ParseExpectedReferenceValue`): an ID in the query's collection, or for a collection group
    /// query a path relative to ``path`` (with an even number of segments in all).
    ///
    /// - Throws: `invalidArgument` for an empty ID, an ID with `/` in a collection query, or a path that does
    ///   not name a document.
    package func documentIDFilterValue(_ documentID: String, database: DatabaseID) throws(ModelError) -> Value {
        try documentIDValue(documentID, database: database, context: .filter)
    }

    /// The reference value for a document ID given to a cursor (`start(at:)` …) on a query ordered by
    /// `__name__`, as iOS `boundFromFieldValues` resolves it. Throws as ``documentIDFilterValue(_:database:)``,
    /// with the SDK's cursor messages.
    package func documentIDCursorValue(_ documentID: String, database: DatabaseID) throws(ModelError) -> Value {
        try documentIDValue(documentID, database: database, context: .cursor)
    }

    private func documentIDValue(
        _ documentID: String, database: DatabaseID, context: DocumentIDContext
    ) throws(ModelError) -> Value {
        if documentID.isEmpty {
            throw .invalidArgument(
                context == .filter
                    ? "Invalid query. When querying by document ID you must provide a valid document ID, but it "
                        + "was an empty string."
                    : "Invalid query. When ordering by document ID you must pass a valid document ID to a cursor, "
                        + "but it was an empty string.")
        }
        if !isCollectionGroupQuery && documentID.utf8.contains(UInt8(ascii: "/")) {
            throw .invalidArgument(
                context == .filter
                    ? "Invalid query. When querying a collection by document ID you must provide a plain document "
                        + "ID, but '\(documentID)' contains a '/' character."
                    : "Invalid query. When querying a collection and ordering by document ID, you must pass a "
                        + "plain document ID, but '\(documentID)' contains a slash.")
        }
        let keyPath = path.appending(try ResourcePath(parsing: documentID))
        if !keyPath.isDocumentPath {
            throw .invalidArgument(
                context == .filter
                    ? "Invalid query. When querying a collection group by document ID, the value provided must "
                        + "result in a valid document path, but '\(keyPath)' is not because it has an odd number "
                        + "of segments (\(keyPath.count))."
                    : "Invalid query. When querying a collection group and ordering by document ID, you must pass "
                        + "a value that results in a valid document path, but '\(keyPath)' is not because it "
                        + "contains an odd number of segments.")
        }
        return .reference(database, try DocumentKey(validating: keyPath))
    }

    /// A cursor at a document (the public `start(atDocument:)` family, iOS `boundFromSnapshot`): its value for
    /// every normalized order by, ending with its key, so the position is exactly that document. Attach it
    /// with ``withStart(_:)`` or ``withEnd(_:)``.
    ///
    /// ```swift
    /// let page2 = try page1Query.withStart(page1Query.bound(at: lastOfPage1, inclusive: false, database: db))
    /// ```
    ///
    /// - Throws: `invalidArgument` when the document does not exist, lacks an order-by field, or holds a
    ///   pending server timestamp in one (its final value is unknown).
    package func bound(at document: Document, inclusive: Bool, database: DatabaseID) throws(ModelError) -> Bound {
        guard document.exists else {
            throw .invalidArgument(
                "Invalid query. You are trying to start or end a query using a document that doesn't exist.")
        }
        var position: [Value] = []
        for order in normalizedOrderBy {
            if order.field.isDocumentKey {
                position.append(.reference(database, document.key))
                continue
            }
            let field = order.field.canonicalString
            switch document.data.value(at: order.field) {
            case nil:
                throw .invalidArgument(
                    "Invalid query. You are trying to start or end a query using a document for which the field "
                        + "'\(field)' (used as the order by) does not exist.")
            case .serverTimestamp?:
                throw .invalidArgument(
                    "Invalid query. You are trying to start or end a query using a document for which the field "
                        + "'\(field)' is an uncommitted server timestamp. (Since the value of this field is "
                        + "unknown, you cannot start/end a query with it.)")
            case let value?:
                position.append(value)
            }
        }
        return Bound(position: position, inclusive: inclusive)
    }
}
