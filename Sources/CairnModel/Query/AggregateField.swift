/// One aggregation the server computes over a query's results (SDK `model::AggregateField`): the count of the
/// documents, or the sum or average of one field.
///
/// Each aggregation has a client-side ``alias`` derived from the operation and the field, so equal aggregations
/// share it: `count`, `sum_<field>`, `avg_<field>` (the field's ``FieldPath/canonicalString``). Results are keyed
/// by it. On the wire the aliases are replaced by short ones (`aggregation_0`, ...; see the gRPC serializer), since
/// a field path can be longer than the server allows an alias to be.
///
/// ```swift
/// AggregateField.sum(FieldPath(segments: ["pages"])).alias   // "sum_pages"
/// AggregateField.count.alias                               // "count"
/// ```
package enum AggregateField: Sendable, Hashable, CustomStringConvertible {
    /// The number of documents; always an integer.
    case count
    /// The sum of the field's numeric values: an integer while every summand is one and the sum fits in 64 bits,
    /// else a double. Documents without a numeric value in the field are skipped; over no documents it is 0.
    case sum(FieldPath)
    /// The mean of the field's numeric values, a double; `null` when no document has a numeric value there.
    case average(FieldPath)

    /// The aggregated field; `nil` for a count.
    package var field: FieldPath? {
        switch self {
        case .count: nil
        case .sum(let field), .average(let field): field
        }
    }

    /// The operation's name in aliases and messages: `count`, `sum` or `avg`.
    package var operationName: String {
        switch self {
        case .count: "count"
        case .sum: "sum"
        case .average: "avg"
        }
    }

    /// The key of this aggregation's result (SDK `createAlias`): `count`, or the operation's name, `_` and the
    /// field's canonical string.
    package var alias: String {
        guard let field else { return operationName }
        return operationName + "_" + field.canonicalString
    }

    /// `count()`, `sum(field)` or `avg(field)`: how Firebase's messages name an aggregation.
    package var description: String { "\(operationName)(\(field?.canonicalString ?? ""))" }
}
