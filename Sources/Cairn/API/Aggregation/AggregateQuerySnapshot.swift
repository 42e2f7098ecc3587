import CairnModel
import Foundation

/// The results of an ``AggregateQuery``: one value per aggregation, as the server computed them.
///
/// ```swift
/// let snapshot = try await books.aggregate([AggregateField.count(), AggregateField.average("rating")])
///     .getAggregation(source: .server)
/// snapshot.count                                                  // NSNumber, e.g. 2
/// snapshot.get(AggregateField.average("rating")) as? Double       // nil when it is NSNull (no ratings)
/// ```
///
/// Values are Firebase's: `NSNumber` for numbers (an integer `NSNumber` for a count and an integer sum, a double one
/// for averages and double sums) and `NSNull` for the average of a field no document has. Two snapshots are equal
/// when their queries and values are.
public final class AggregateQuerySnapshot: Sendable, Hashable, CustomStringConvertible {
    /// The aggregation query that produced these results.
    public let query: AggregateQuery
    /// The values by aggregation alias (`count`, `sum_pages`, ...).
    let values: [String: Value]

    init(query: AggregateQuery, values: [String: Value]) {
        self.query = query
        self.values = values
    }

    /// The number of documents in the query's results.
    ///
    /// The query must have requested `AggregateField.count()` (``Query/count`` does). Reading it otherwise is a
    /// programming error, which stops the program with Firebase's message, as Firebase's exception does in Swift.
    public var count: NSNumber {
        guard let count = get(AggregateField.count()) as? NSNumber else {
            preconditionFailure("'count()' was not requested in the aggregation query.")
        }
        return count
    }

    /// The result of `aggregateField`: an `NSNumber`, or `NSNull` for an average over no values; `nil` when the
    /// query did not request that aggregation (Firebase raises an exception there instead).
    public func get(_ aggregateField: AggregateField) -> Any? {
        guard case .success(let aggregate) = aggregateField.parsed, let value = values[aggregate.alias] else {
            return nil
        }
        return UserDataWriter(firestore: query.query.firestore, serverTimestampBehavior: .none).convert(value)
    }

    public static func == (a: AggregateQuerySnapshot, b: AggregateQuerySnapshot) -> Bool {
        a.values == b.values && a.query == b.query
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(query)
        hasher.combine(values)
    }

    public var description: String {
        let shown = values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        return "AggregateQuerySnapshot(\(shown))"
    }
}
