import CairnModel

/// An aggregation an ``AggregateQuery`` asks the server for: the count of the query's documents, or the sum or
/// average of a field over them.
///
/// ```swift
/// let snapshot = try await books.aggregate([
///     AggregateField.count(), AggregateField.sum("pages"), AggregateField.average("rating"),
/// ]).getAggregation(source: .server)
/// snapshot.get(AggregateField.sum("pages")) as? Int        // 150
/// snapshot.get(AggregateField.average("rating")) as? Double
/// ```
///
/// Results: a count is a 64-bit integer. A sum is an integer while every summed value is one and the total fits
/// in 64 bits, else a double (NaN when a value is NaN, infinity past the double range); over no documents it is
/// 0. An average is a double (NaN when a value is NaN), or `NSNull` when no document has a number in the field.
/// Documents whose field is missing or not a number are skipped by sums and averages.
///
/// A dotted string that is not a valid field path (`"a..b"`, `""`) or an invalid ``FieldPath`` makes an
/// aggregation that fails: Firebase raises an exception when it is made; Cairn reports the same
/// `invalidArgument` error, with Firebase's message, from `getAggregation` (see ``Query``).
///
/// Each call makes a new object, as in Firebase; results are found by what the aggregation computes, so
/// `snapshot.get(AggregateField.sum("pages"))` finds the sum requested with another `AggregateField.sum("pages")`.
public final class AggregateField: Sendable, CustomStringConvertible {
    /// The model aggregation, or the error of an invalid field path.
    let parsed: Result<CairnModel.AggregateField, FirestoreErrorCode>

    private init(_ parsed: Result<CairnModel.AggregateField, FirestoreErrorCode>) {
        self.parsed = parsed
    }

    /// The number of documents in the query's results.
    public static func count() -> AggregateField { AggregateField(.success(.count)) }

    /// The sum of `field` (a dotted path) over the query's results.
    public static func sum(_ field: String) -> AggregateField {
        AggregateField(FieldPath.dotted(field).map(CairnModel.AggregateField.sum))
    }

    /// The sum of `fieldPath` over the query's results.
    public static func sum(_ fieldPath: FieldPath) -> AggregateField {
        AggregateField(fieldPath.parsed.map(CairnModel.AggregateField.sum))
    }

    /// The average of `field` (a dotted path) over the query's results.
    public static func average(_ field: String) -> AggregateField {
        AggregateField(FieldPath.dotted(field).map(CairnModel.AggregateField.average))
    }

    /// The average of `fieldPath` over the query's results.
    public static func average(_ fieldPath: FieldPath) -> AggregateField {
        AggregateField(fieldPath.parsed.map(CairnModel.AggregateField.average))
    }

    public var description: String {
        switch parsed {
        case .success(let field): "AggregateField(\(field))"
        case .failure(let error): "AggregateField(invalid: \(error.message))"
        }
    }
}
