import CairnModel
import Foundation

/// A query: the documents of a collection or collection group that pass filters, in an order, between cursors,
/// up to a limit. Queries are immutable: each builder returns a new query.
///
/// ```swift
/// let big = db.collection("cities")
///     .whereField("population", isGreaterThan: 1_000_000)
///     .whereField("country", in: ["FR", "JP"])
///     .order(by: "population", descending: true)
///     .limit(to: 10)
/// let snapshot = try await big.getDocuments()
/// ```
///
/// Invalid queries: Firebase's Objective-C API raises an exception when a builder gets an invalid argument (a bad
/// field path, an `in` with no values, two `notIn` filters, a cursor before its order by, ...). A Swift library
/// cannot raise exceptions, and these builders cannot throw without breaking source compatibility, so the query
/// *records* the first error instead: every later builder keeps it, and every use of the query (`getDocuments`,
/// `addSnapshotListener`, `snapshots`) reports that `invalidArgument` error, with Firebase's message, to its
/// completion, listener or `async` caller. Nothing reaches the cache or the server.
public class Query: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The database queried.
    public let firestore: Firestore
    /// The model query, or the first error a builder met.
    let state: Result<CairnModel.Query, FirestoreErrorCode>

    init(firestore: Firestore, state: Result<CairnModel.Query, FirestoreErrorCode>) {
        self.firestore = firestore
        self.state = state
    }

    /// A new query from this one's model query, or this one's error.
    func deriving(_ transform: (CairnModel.Query) throws(FirestoreErrorCode) -> CairnModel.Query) -> Query {
        switch state {
        case .failure:
            return Query(firestore: firestore, state: state)
        case .success(let query):
            do throws(FirestoreErrorCode) {
                return Query(firestore: firestore, state: .success(try transform(query)))
            } catch {
                return Query(firestore: firestore, state: .failure(error))
            }
        }
    }

    /// Runs a model-query builder, mapping its error.
    static func model<T>(_ body: () throws(ModelError) -> T) throws(FirestoreErrorCode) -> T {
        do throws(ModelError) {
            return try body()
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    /// Queries are equal when they are on the same database and run the same query (or carry the same error).
    public static func == (a: Query, b: Query) -> Bool {
        guard a.firestore === b.firestore else { return false }
        switch (a.state, b.state) {
        case (.success(let x), .success(let y)): return x == y
        case (.failure(let x), .failure(let y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(firestore))
        switch state {
        case .success(let query): hasher.combine(query)
        case .failure(let error): hasher.combine(error)
        }
    }

    public var description: String {
        switch state {
        case .success(let query): "Query(\(query.canonicalID))"
        case .failure(let error): "Query(invalid: \(error.message))"
        }
    }

    // MARK: Order and limits

    /// Orders by `field` (a dotted path) ascending.
    public func order(by field: String) -> Query { order(by: field, descending: false) }

    /// Orders by `field` ascending.
    public func order(by field: FieldPath) -> Query { order(by: field, descending: false) }

    /// Orders by `field` (a dotted path).
    public func order(by field: String, descending: Bool) -> Query {
        ordered(FieldPath.dotted(field), descending: descending)
    }

    /// Orders by `field`.
    public func order(by field: FieldPath, descending: Bool) -> Query {
        ordered(field.parsed, descending: descending)
    }

    private func ordered(_ field: Result<CairnModel.FieldPath, FirestoreErrorCode>, descending: Bool) -> Query {
        deriving { query throws(FirestoreErrorCode) in
            let path = try field.get()
            return try Self.model { () throws(ModelError) in try query.ordered(by: OrderBy(path, descending: descending)) }
        }
    }

    /// Keeps the first `limit` documents.
    public func limit(to limit: Int) -> Query {
        deriving { query throws(FirestoreErrorCode) in try Self.model { () throws(ModelError) in try query.limited(to: limit) } }
    }

    /// Keeps the last `limit` documents (still returned in query order); needs an `order(by:)`.
    public func limit(toLast limit: Int) -> Query {
        deriving { query throws(FirestoreErrorCode) in
            try Self.model { () throws(ModelError) in try query.limitedToLast(limit) }
        }
    }
}
