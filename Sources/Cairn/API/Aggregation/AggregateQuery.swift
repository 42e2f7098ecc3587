import CairnCore
import CairnModel
import Foundation

/// Aggregations (count, sum, average) over the results of a ``Query``, computed on the server: only the results
/// are downloaded, not the documents. Made by ``Query/count`` and ``Query/aggregate(_:)``.
///
/// ```swift
/// let query = db.collection("books").whereField("author", isEqualTo: "Le Guin")
/// query.count.getAggregation(source: .server) { snapshot, error in
///     print(snapshot?.count ?? error!)
/// }
/// let totals = try await query.aggregate([AggregateField.sum("pages"), AggregateField.average("pages")])
///     .getAggregation(source: .server)
/// ```
///
/// As in Firebase, the server computes over the query's filters, explicit order bys, cursors and limit (a
/// `limit(toLast:)` query runs with its order flipped), without the implicit orders a document query adds;
/// equal aggregations in the list are computed once. Aggregations run on the server only: offline they fail with
/// `unavailable` (see ``AggregateSource``).
public final class AggregateQuery: Sendable, Hashable, CustomStringConvertible {
    /// The query whose results are aggregated.
    public let query: Query
    /// The aggregations, as requested.
    let aggregateFields: [AggregateField]

    init(query: Query, aggregateFields: [AggregateField]) {
        self.query = query
        self.aggregateFields = aggregateFields
    }

    /// The model query and aggregations, or the first error of the query or of an aggregation's field path.
    var request: Result<(CairnModel.Query, [CairnModel.AggregateField]), FirestoreErrorCode> {
        query.state.flatMap { query in
            var aggregates: [CairnModel.AggregateField] = []
            for field in aggregateFields {
                switch field.parsed {
                case .success(let aggregate): aggregates.append(aggregate)
                case .failure(let error): return .failure(error)
                }
            }
            return .success((query, aggregates))
        }
    }

    /// Computes the aggregations on the server; `completion` runs on `settings.dispatchQueue` with the snapshot,
    /// or with the error (`unavailable` offline, `invalidArgument` for an invalid query or field path, the
    /// server's error otherwise).
    public func getAggregation(
        source: AggregateSource, completion: @escaping (AggregateQuerySnapshot?, Error?) -> Void
    ) {
        let box = UncheckedSendable(completion)
        let firestore = query.firestore
        let deliver: @Sendable (Result<[String: Value], FirestoreErrorCode>) -> Void = { [self] result in
            firestore.deliver {
                switch result {
                case .success(let values): box.value(AggregateQuerySnapshot(query: self, values: values), nil)
                case .failure(let error): box.value(nil, error)
                }
            }
        }
        switch request.flatMap({ request in firestore.client().map { (request, $0) } }) {
        case .failure(let error):
            deliver(.failure(error))
        case .success(let ((query, aggregates), client)):
            client.runAggregateQuery(query, aggregates: aggregates, completion: deliver)
        }
    }

    /// Equal when the queries are equal and the aggregations are the same, in the same order (as Firebase's).
    public static func == (a: AggregateQuery, b: AggregateQuery) -> Bool {
        a.query == b.query && a.aggregateFields.map(\.parsed) == b.aggregateFields.map(\.parsed)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(query)
        for field in aggregateFields {
            switch field.parsed {
            case .success(let aggregate): hasher.combine(aggregate)
            case .failure(let error): hasher.combine(error)
            }
        }
    }

    public var description: String {
        "AggregateQuery(\(query), [\(aggregateFields.map(\.description).joined(separator: ", "))])"
    }
}

extension Query {
    /// The count of this query's results, computed on the server without downloading the documents.
    public var count: AggregateQuery {
        AggregateQuery(query: self, aggregateFields: [AggregateField.count()])
    }

    /// The aggregations `aggregateFields` over this query's results, computed on the server without downloading
    /// the documents.
    public func aggregate(_ aggregateFields: [AggregateField]) -> AggregateQuery {
        AggregateQuery(query: self, aggregateFields: aggregateFields)
    }
}
