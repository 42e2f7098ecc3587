import CairnCore
import CairnModel
import Foundation
import SwiftProtobuf
import Testing

@testable import CairnGRPC

@Suite("Serializer: aggregations")
struct SerializerAggregationTests {
    let serializer = FirestoreSerializer(databaseID: DatabaseID(projectID: "p"))
    let root = "projects/p/databases/(default)/documents"
    let pages = FieldPath(segments: ["pages"])
    let odd = FieldPath(segments: ["a.b", "c"])

    /// The request as the server reads it: encoded, serialized and parsed back.
    func throughWire(_ query: CairnModel.Query, _ aggregates: [AggregateField]) throws
        -> (request: AggregationRequest, wire: Google_Firestore_V1_RunAggregationQueryRequest)
    {
        let request = try serializer.encodeAggregationQuery(query, aggregates: aggregates)
        let wire = try Google_Firestore_V1_RunAggregationQueryRequest(serializedBytes: try request.message.serializedData())
        return (request, wire)
    }

    /// The structured query of a request, decoded back to a model target.
    func target(of wire: Google_Firestore_V1_RunAggregationQueryRequest) throws -> QueryTarget {
        try serializer.decodeQueryTarget(Google_Firestore_V1_Target.QueryTarget.with {
            $0.parent = wire.parent
            $0.structuredQuery = wire.structuredAggregationQuery.structuredQuery
        })
    }

    /// An aggregation as text: `alias=count`, `alias=sum(field)`, `alias=avg(field)`.
    func describe(_ aggregation: Google_Firestore_V1_StructuredAggregationQuery.Aggregation) -> String {
        switch aggregation.`operator` {
        case .count(let count): "\(aggregation.alias)=count\(count.hasUpTo ? "(up_to)" : "")"
        case .sum(let sum): "\(aggregation.alias)=sum(\(sum.field.fieldPath))"
        case .avg(let avg): "\(aggregation.alias)=avg(\(avg.field.fieldPath))"
        case nil: "\(aggregation.alias)=none"
        }
    }

    @Test("a request carries the aggregate target under its parent and each distinct aggregation once, as aggregation_N")
    func requestShape() throws {
        let query = try CairnModel.Query(path: ResourcePath(segments: ["rooms", "a", "messages"]))
            .filtered(by: .field(FieldFilter(FieldPath(segments: ["stars"]), .greaterThan, .integer(2))))
            .ordered(by: OrderBy(FieldPath(segments: ["date"]), descending: true))
            .limited(to: 5)
        let (request, wire) = try throughWire(query, [.sum(pages), .count, .average(odd), .sum(pages), .count])
        #expect(wire.parent == root + "/rooms/a")
        #expect(try target(of: wire) == query.aggregateTarget)
        #expect(wire.structuredAggregationQuery.structuredQuery.orderBy.map(\.field.fieldPath) == ["date"],
                "no implicit order by the inequality field or __name__")
        #expect(wire.structuredAggregationQuery.aggregations.map(describe) == [
            "aggregation_0=sum(pages)", "aggregation_1=count", "aggregation_2=avg(`a.b`.c)",
        ])
        #expect(request.aggregates == ["aggregation_0": .sum(pages), "aggregation_1": .count, "aggregation_2": .average(odd)])
    }

    @Test("a limit(toLast:) aggregation is sent flipped, cursors swapped; a collection group reads all descendants")
    func limitToLastAndGroup() throws {
        let year = FieldPath(segments: ["year"])
        let last = try CairnModel.Query(path: ResourcePath(segments: ["books"])).ordered(by: OrderBy(year))
            .starting(at: [.integer(1980)]).limitedToLast(3)
        let (_, wire) = try throughWire(last, [.count])
        let structured = wire.structuredAggregationQuery.structuredQuery
        #expect(structured.orderBy.map(\.field.fieldPath) == ["year"] && structured.orderBy.map(\.direction) == [.descending])
        #expect(structured.limit.value == 3)
        #expect(!structured.hasStartAt && structured.hasEndAt && structured.endAt.values.map(\.integerValue) == [1980])
        #expect(structured.endAt.before == false, "startAt(1980) flipped is an inclusive end")

        let group = CairnModel.Query(path: .root, collectionGroup: "books")
        let (_, groupWire) = try throughWire(group, [.average(year)])
        #expect(groupWire.parent == root)
        #expect(groupWire.structuredAggregationQuery.structuredQuery.from.map(\.allDescendants) == [true])
        #expect(groupWire.structuredAggregationQuery.structuredQuery.orderBy.isEmpty)
    }

    /// A response with `fields` as its result, through the wire.
    func response(_ fields: [String: CairnModel.Value]) throws -> Google_Firestore_V1_RunAggregationQueryResponse {
        var response = Google_Firestore_V1_RunAggregationQueryResponse()
        response.result.aggregateFields = try fields.mapValues { try serializer.encode($0) }
        response.readTime = FirestoreSerializer.encode(CairnModel.Timestamp(seconds: 7, nanoseconds: 0))
        return try Google_Firestore_V1_RunAggregationQueryResponse(serializedBytes: try response.serializedData())
    }

    @Test("results map back to client aliases with integers, doubles and null intact; progress-only answers are skipped")
    func resultParsing() throws {
        let (request, _) = try throughWire(
            CairnModel.Query(path: ResourcePath(segments: ["books"])),
            [.count, .sum(pages), .sum(odd), .average(pages), .average(odd)])
        var progress = Google_Firestore_V1_RunAggregationQueryResponse()
        progress.readTime = FirestoreSerializer.encode(CairnModel.Timestamp(seconds: 6, nanoseconds: 0))
        let values = try serializer.decodeAggregationResponses(
            [progress, try response([
                "aggregation_0": .integer(3), "aggregation_1": .integer(Int64.max), "aggregation_2": .double(2.5),
                "aggregation_3": .double(.infinity), "aggregation_4": .null,
            ])],
            aggregates: request.aggregates)
        #expect(values == [
            "count": .integer(3), "sum_pages": .integer(Int64.max), "sum_`a.b`.c": .double(2.5),
            "avg_pages": .double(.infinity), "avg_`a.b`.c": .null,
        ])
    }

    @Test("a malformed answer is dataLoss: unknown or missing alias, a bad count, no result or two")
    func malformedResults() throws {
        let (request, _) = try throughWire(CairnModel.Query(path: ResourcePath(segments: ["books"])), [.count, .sum(pages)])
        let cases: [([Google_Firestore_V1_RunAggregationQueryResponse], String)] = [
            ([try response(["aggregation_0": .integer(1), "aggregation_1": .integer(2), "aggregation_7": .integer(3)])],
             "the alias aggregation_7, which was not requested"),
            ([try response(["aggregation_0": .integer(1)])], "lacks the requested aliases [\"aggregation_1\"]"),
            ([try response(["aggregation_0": .double(1), "aggregation_1": .integer(2)])], "not a non-negative integer"),
            ([try response(["aggregation_0": .integer(-1), "aggregation_1": .integer(2)])], "not a non-negative integer"),
            ([], "carries 0 results instead of 1"),
            ([try response(["aggregation_0": .integer(1), "aggregation_1": .integer(2)]),
              try response(["aggregation_0": .integer(1), "aggregation_1": .integer(2)])], "carries 2 results instead of 1"),
        ]
        for (responses, message) in cases {
            expectFirestoreError(.dataLoss, containing: message) {
                try serializer.decodeAggregationResponses(responses, aggregates: request.aggregates)
            }
        }
    }
}
