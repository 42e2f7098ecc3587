import CairnCore
import Cairn
import CairnModel
import SwiftProtobuf
import Testing

@testable import CairnGRPC

@Suite("Serializer: queries")
struct SerializerQueryTests {
    let serializer = FirestoreSerializer(databaseID: DatabaseID(projectID: "p"))
    let root = "projects/p/databases/(default)/documents"

    func throughWire(_ target: QueryTarget) throws -> QueryTarget {
        let bytes = try serializer.encodeQueryTarget(target).serializedData()
        return try serializer.decodeQueryTarget(Google_Firestore_V1_Target.QueryTarget(serializedBytes: bytes))
    }

    @Test("random query targets survive encode → bytes → decode (seeded)")
    func randomTargetsRoundTrip() throws {
        var model = RandomModel(seed: 0x5EED_0003)
        for _ in 0..<400 {
            let target = model.queryTarget()
            #expect(try throughWire(target) == target, "\(target)")
        }
    }

    @Test("a collection query reads its last segment under the parent; a group query reads all descendants")
    func collectionSelectors() throws {
        let messages = Query(path: ResourcePath(segments: ["rooms", "a", "messages"]))
        let encoded = try serializer.encodeQueryTarget(messages.target)
        #expect(encoded.parent == root + "/rooms/a")
        #expect(encoded.structuredQuery.from.map(\.collectionID) == ["messages"])
        #expect(encoded.structuredQuery.from.map(\.allDescendants) == [false])

        let group = try serializer.encodeQueryTarget(Query(path: .root, collectionGroup: "messages").target)
        #expect(group.parent == root)
        #expect(group.structuredQuery.from.map(\.allDescendants) == [true])
        // The normalized order always ends with the document key.
        #expect(group.structuredQuery.orderBy.map(\.field.fieldPath) == ["__name__"])
    }

    @Test("== and != with null or NaN become unary filters; one filter is sent bare, several as AND")
    func unaryAndComposite() throws {
        let field = try FieldPath(["a"])
        let cases: [(FieldFilter, Google_Firestore_V1_StructuredQuery.UnaryFilter.Operator)] = [
            (FieldFilter(field, .equal, .null), .isNull), (FieldFilter(field, .equal, .double(.nan)), .isNan),
            (FieldFilter(field, .notEqual, .null), .isNotNull),
            (FieldFilter(field, .notEqual, .double(.nan)), .isNotNan),
        ]
        for (filter, op) in cases {
            let target = QueryTarget(
                path: ResourcePath(segments: ["c"]), collectionGroup: nil, filters: [.field(filter)], orderBy: [],
                limit: nil, startAt: nil, endAt: nil)
            let query = try serializer.encodeQueryTarget(target).structuredQuery
            #expect(query.where.unaryFilter.op == op)
            #expect(query.where.unaryFilter.field.fieldPath == "a")
        }
        let two = QueryTarget(
            path: ResourcePath(segments: ["c"]), collectionGroup: nil,
            filters: [
                .field(FieldFilter(field, .greaterThan, .integer(1))),
                .field(FieldFilter(field, .lessThan, .integer(9))),
            ],
            orderBy: [], limit: nil, startAt: nil, endAt: nil)
        let composite = try serializer.encodeQueryTarget(two).structuredQuery.where.compositeFilter
        #expect(composite.op == .and)
        #expect(composite.filters.map(\.fieldFilter.op) == [.greaterThan, .lessThan])
    }

    @Test("limitToLast is flipped: orders reversed, cursors swapped, limit kept; field paths are backtick-quoted")
    func limitToLastAndQuoting() throws {
        let field = FieldPath(segments: ["with space", "n"])
        let query = try Query(path: ResourcePath(segments: ["c"]))
            .ordered(by: OrderBy(field))
            .limitedToLast(3)
            .starting(at: [.integer(1)])
            .ending(before: [.integer(9)])
        let encoded = try serializer.encodeQueryTarget(query.target).structuredQuery
        #expect(encoded.orderBy.map(\.field.fieldPath) == ["`with space`.n", "__name__"])
        #expect(encoded.orderBy.map(\.direction) == [.descending, .descending])
        #expect(encoded.limit.value == 3)
        // The end bound (exclusive) becomes the start cursor: before = inclusive = false.
        #expect(encoded.startAt.values.map(\.integerValue) == [9])
        #expect(encoded.startAt.before == false)
        #expect(encoded.endAt.values.map(\.integerValue) == [1])
        #expect(encoded.endAt.before == false)
    }

    @Test("a limit beyond Int32 and a document path are rejected with invalidArgument")
    func rejectedTargets() {
        let huge = QueryTarget(
            path: ResourcePath(segments: ["c"]), collectionGroup: nil, filters: [], orderBy: [],
            limit: Int(Int32.max) + 1, startAt: nil, endAt: nil)
        let document = QueryTarget(
            path: ResourcePath(segments: ["c", "d"]), collectionGroup: nil, filters: [], orderBy: [], limit: nil,
            startAt: nil, endAt: nil)
        for target in [huge, document] {
            expectFirestoreError(.invalidArgument, "\(target)") { try serializer.encodeQueryTarget(target) }
        }
    }
}
