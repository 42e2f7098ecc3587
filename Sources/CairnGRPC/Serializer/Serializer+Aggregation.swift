import CairnCore
import CairnModel
import SwiftProtobuf

/// A RunAggregationQuery request and the aggregation behind each short alias it sent.
package struct AggregationRequest: Sendable {
    package var message: Google_Firestore_V1_RunAggregationQueryRequest
    /// The aggregation sent under each server alias (`aggregation_0`, ...).
    package var aggregates: [String: AggregateField]
}

/// Aggregation queries, as Firebase's Apple SDK sends and reads them (`EncodeAggregateQueryRequest`,
/// `DecodeAggregateQueryResponse`):
///
/// * the structured query is the query's ``Query/aggregateTarget`` (explicit order bys only, flipped for
///   `limit(toLast:)`), under its parent, encoded as RunQuery encodes a target;
/// * aggregations with the same client alias are sent once (equal aggregations share it), in the order they first
///   appear, each under a short server alias `aggregation_0`, `aggregation_1`, ... (a client alias holds a field
///   path, which can exceed the server's limit on alias length); a count is sent without `up_to`;
/// * the answer is the one response that carries a `result`; its `aggregate_fields` are keyed by server alias and
///   mapped back to client aliases. An alias the request did not send, a requested one missing, a count that is
///   not a non-negative integer, or no result at all is a malformed answer (`dataLoss`), never a silently shorter
///   or wrong result. Sums and averages pass unchanged (an integer, a double, NaN, or null for an average over
///   no values), as Firebase presents them.
///
/// ```swift
/// let request = try serializer.encodeAggregationQuery(query, aggregates: [.count, .sum(pages)])
/// request.aggregates   // ["aggregation_0": .count, "aggregation_1": .sum(pages)]
/// ```
extension FirestoreSerializer {
    /// The request for `aggregates` over `query`.
    package func encodeAggregationQuery(
        _ query: Query, aggregates: [AggregateField]
    ) throws(FirestoreErrorCode) -> AggregationRequest {
        let target = try encodeQueryTarget(query.aggregateTarget)
        var structured = Google_Firestore_V1_StructuredAggregationQuery()
        structured.structuredQuery = target.structuredQuery
        var byServerAlias: [String: AggregateField] = [:]
        var sent = Set<String>()
        for aggregate in aggregates where sent.insert(aggregate.alias).inserted {
            let serverAlias = "aggregation_\(structured.aggregations.count)"
            byServerAlias[serverAlias] = aggregate
            structured.aggregations.append(Self.encode(aggregate, alias: serverAlias))
        }
        var message = Google_Firestore_V1_RunAggregationQueryRequest()
        message.parent = target.parent
        message.structuredAggregationQuery = structured
        return AggregationRequest(message: message, aggregates: byServerAlias)
    }

    private static func encode(
        _ aggregate: AggregateField, alias: String
    ) -> Google_Firestore_V1_StructuredAggregationQuery.Aggregation {
        var proto = Google_Firestore_V1_StructuredAggregationQuery.Aggregation()
        proto.alias = alias
        switch aggregate {
        case .count:
            proto.count = Google_Firestore_V1_StructuredAggregationQuery.Aggregation.Count()
        case .sum(let field):
            proto.sum = .with { $0.field = fieldReference(field) }
        case .average(let field):
            proto.avg = .with { $0.field = fieldReference(field) }
        }
        return proto
    }

    /// The values of the one result among `responses`, keyed by client alias; `aggregates` is the request's.
    package func decodeAggregationResponses(
        _ responses: [Google_Firestore_V1_RunAggregationQueryResponse], aggregates: [String: AggregateField]
    ) throws(FirestoreErrorCode) -> [String: Value] {
        let results = responses.filter(\.hasResult)
        guard results.count == 1 else {
            throw Self.malformed("a RunAggregationQuery answer carries \(results.count) results instead of 1")
        }
        var values: [String: Value] = [:]
        for (serverAlias, proto) in results[0].result.aggregateFields {
            guard let aggregate = aggregates[serverAlias] else {
                throw Self.malformed("a RunAggregationQuery result has the alias \(serverAlias), which was not requested")
            }
            let value = try decode(proto)
            if case .count = aggregate {
                guard case .integer(let count) = value, count >= 0 else {
                    throw Self.malformed("a RunAggregationQuery count is \(value), not a non-negative integer")
                }
            }
            values[aggregate.alias] = value
        }
        let missing = aggregates.filter { values[$0.value.alias] == nil }.keys.sorted()
        guard missing.isEmpty else {
            throw Self.malformed("a RunAggregationQuery result lacks the requested aliases \(missing)")
        }
        return values
    }
}
