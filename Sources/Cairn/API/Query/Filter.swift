import CairnModel

/// A query filter to combine with `and` / `or`: `whereFilter(_:)` takes one.
///
/// ```swift
/// let q = db.collection("cities").whereFilter(Filter.orFilter([
///     Filter.whereField("capital", isEqualTo: true),
///     Filter.andFilter([
///         Filter.whereField("population", isGreaterThan: 1_000_000),
///         Filter.whereField("country", isEqualTo: "JP"),
///     ]),
/// ]))
/// ```
///
/// A filter holds its arguments as given; they are checked when the filter is added to a query, and an invalid
/// one makes that query report Firebase's `invalidArgument` error (see ``Query``).
public final class Filter: @unchecked Sendable, CustomStringConvertible {
    indirect enum Node {
        case field(Result<CairnModel.FieldPath, FirestoreErrorCode>, FilterOperator, Result<UserValue, FirestoreErrorCode>)
        case composite(CompositeFilter.Operator, [Filter])
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    convenience init(_ field: Result<CairnModel.FieldPath, FirestoreErrorCode>, _ op: FilterOperator, _ value: Any) {
        let userValue: Result<UserValue, FirestoreErrorCode>
        do throws(FirestoreErrorCode) {
            userValue = .success(try UserDataReader.userValue(value, path: nil))
        } catch {
            userValue = .failure(error)
        }
        self.init(.field(field, op, userValue))
    }

    /// Documents that pass every filter of `filters`.
    public static func andFilter(_ filters: [Filter]) -> Filter { Filter(.composite(.and, filters)) }

    /// Documents that pass at least one filter of `filters`.
    public static func orFilter(_ filters: [Filter]) -> Filter { Filter(.composite(.or, filters)) }

    public var description: String {
        switch node {
        case .field(let path, let op, _):
            "Filter(\((try? path.get())?.canonicalString ?? "<invalid>") \(op.rawValue) …)"
        case .composite(let op, let filters):
            "Filter.\(op.rawValue)(\(filters.map(\.description).joined(separator: ", ")))"
        }
    }

    /// The model filter for `query`: values parsed as query arguments, document IDs resolved against the
    /// query's path.
    func resolve(for query: CairnModel.Query, database: DatabaseID) throws(FirestoreErrorCode) -> CairnModel.Filter {
        switch node {
        case .composite(let op, let filters):
            let children = try filters.map { filter throws(FirestoreErrorCode) in
                try filter.resolve(for: query, database: database)
            }
            return .composite(CompositeFilter(op, children))
        case .field(let path, let op, let userValue):
            let field = try path.get()
            let argument = try userValue.get()
            let value: Value
            if op.takesArrayOfValues, case .array(let elements) = argument {
                value = .array(try elements.map { element throws(FirestoreErrorCode) in
                    try Self.argument(element, field: field, query: query, database: database)
                })
            } else {
                value = try Self.argument(argument, field: field, query: query, database: database)
            }
            return .field(FieldFilter(field, op, value))
        }
    }

    /// One argument: a document ID string on `__name__` becomes a reference, as in Firebase.
    private static func argument(
        _ value: UserValue, field: CairnModel.FieldPath, query: CairnModel.Query, database: DatabaseID
    ) throws(FirestoreErrorCode) -> Value {
        try Query.model { () throws(ModelError) in
            if field.isDocumentKey, case .value(.string(let id)) = value {
                return try query.documentIDFilterValue(id, database: database)
            }
            return try MutationBuilder(databaseID: database).queryValue(value)
        }
    }
}

extension Query {
    /// Adds `filter`, ANDed with the query's other filters.
    public func whereFilter(_ filter: Filter) -> Query {
        deriving { query throws(FirestoreErrorCode) in
            let resolved = try filter.resolve(for: query, database: firestore.databaseID)
            return try Self.model { () throws(ModelError) in try query.filtered(by: resolved) }
        }
    }

    func whereField(_ path: Result<CairnModel.FieldPath, FirestoreErrorCode>, _ op: FilterOperator, _ value: Any) -> Query {
        whereFilter(Filter(path, op, value))
    }
}
