import CairnCoreTestSupport
import CairnCore
import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API user data: Swift values to Firestore values and back")
struct APIUserDataTests {
    /// The single mutation the last write produced.
    private func lastMutation(_ env: APITestEnvironment) async throws -> Mutation {
        try #require(try await env.writes().last?.first)
    }

    private func setValue(_ env: APITestEnvironment, _ mutation: Mutation) -> ObjectValue? {
        if case .set(let value) = mutation.kind { return value }
        if case .patch(let value, _) = mutation.kind { return value }
        return nil
    }

    @Test("Every supported Swift and Foundation type becomes the matching Firestore value")
    func supportedTypes() async throws {
        let env = APITestEnvironment()
        let other = env.db.document("users/ada")
        let optionalNone: Int? = nil
        try await env.db.document("c/d").setData([
            "null": NSNull(), "none": optionalNone as Any, "bool": true, "int": 42, "int8": Int8(-3), "uint32": UInt32(7),
            "double": 2.5, "float": Float(0.5), "nsInt": NSNumber(value: 9), "nsBool": NSNumber(value: false),
            "nsDouble": NSNumber(value: 1.25), "string": "s", "data": Data([1, 2]),
            "date": Date(timeIntervalSince1970: 2), "timestamp": Cairn.Timestamp(seconds: 3, nanoseconds: 4),
            "geo": Cairn.GeoPoint(latitude: 1, longitude: 2), "ref": other, "array": [1, "a"], "map": ["k": ["n": 1]],
        ])
        let mutation = try await lastMutation(env)
        let value = try #require(setValue(env, mutation))
        let expected: [String: Value] = [
            "null": .null, "none": .null, "bool": .boolean(true), "int": .integer(42), "int8": .integer(-3),
            "uint32": .integer(7), "double": .double(2.5), "float": .double(0.5), "nsInt": .integer(9),
            "nsBool": .boolean(false), "nsDouble": .double(1.25), "string": .string("s"), "data": .bytes([1, 2]),
            "date": .timestamp(CairnModel.Timestamp(seconds: 2, nanoseconds: 0)),
            "timestamp": .timestamp(CairnModel.Timestamp(seconds: 3, nanoseconds: 4)),
            "geo": .geoPoint(CairnModel.GeoPoint(latitude: 1, longitude: 2)),
            "ref": .reference(env.db.databaseID, try DocumentKey(parsing: "users/ada")),
            "array": .array([.integer(1), .string("a")]),
            "map": .map(ObjectValue(["k": .map(ObjectValue(["n": .integer(1)]))])),
        ]
        #expect(value == ObjectValue(expected))
        #expect(mutation.key == (try DocumentKey(parsing: "c/d")))
    }

    @Test("Unsupported types, nested arrays and too-large integers get Firebase's invalidArgument messages")
    func rejectedValues() async throws {
        let env = APITestEnvironment()
        let ref = env.db.document("c/d")
        let cases: [([String: Any], String)] = [
            (["a": ["b": URL(fileURLWithPath: "/")]], "Unsupported type: URL (found in field a.b)"),
            (["a": [[1]]], "Nested arrays are not supported"),
            (["big": UInt64.max], "too large"),
            (["a": [FieldValue.serverTimestamp()]], "FieldValue.serverTimestamp() is not currently supported inside arrays"),
            (["x": FieldValue.delete()], "FieldValue.delete() can only be used with updateData() and setData() with merge:true"),
            (["__x__": 1], "Document fields cannot begin and end with \"__\""),
        ]
        for (data, message) in cases {
            do {
                try await ref.setData(data)
                Issue.record("accepted \(data)")
            } catch let error as FirestoreErrorCode {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains(message), "\(error.message) should contain \(message)")
            }
        }
        #expect(try await env.writes().isEmpty)
    }

    @Test("updateData takes dotted strings and FieldPaths; delete() only at the top level")
    func updateData() async throws {
        let env = APITestEnvironment()
        let ref = env.db.document("c/d")
        try await ref.updateData(["a.b": 1, Cairn.FieldPath(["x.y"]): FieldValue.delete(), "n": FieldValue.increment(Int64(2))])
        let mutation = try await lastMutation(env)
        guard case .patch(let value, let mask) = mutation.kind else {
            Issue.record("update is not a patch")
            return
        }
        #expect(mask.fields == [CairnModel.FieldPath(segments: ["a", "b"]), CairnModel.FieldPath(segments: ["x.y"])])
        #expect(value.value(at: CairnModel.FieldPath(segments: ["a", "b"])) == .integer(1))
        #expect(mutation.fieldTransforms.map(\.field) == [CairnModel.FieldPath(segments: ["n"])])
        #expect(mutation.precondition == .exists(true))

        await #expect(throws: FirestoreErrorCode.self) { try await ref.updateData(["m": ["k": FieldValue.delete()]]) }
        await #expect(throws: FirestoreErrorCode.self) { try await ref.updateData(["a..b": 1]) }
        await #expect(throws: FirestoreErrorCode.self) { try await ref.updateData([7: 1]) }
        #expect(try await env.writes().count == 1)
    }

    @Test("setData(merge:) and setData(mergeFields:) build patches with the right masks")
    func merges() async throws {
        let env = APITestEnvironment()
        let ref = env.db.document("c/d")
        try await ref.setData(["a": ["b": 1], "gone": FieldValue.delete()], merge: true)
        guard case .patch(_, let mask) = try await lastMutation(env).kind else {
            Issue.record("merge is not a patch")
            return
        }
        #expect(Set(mask.fields) == [CairnModel.FieldPath(segments: ["a", "b"]), CairnModel.FieldPath(segments: ["gone"])])
        try await ref.setData(["a": 1, "b": 2], mergeFields: ["a"])
        guard case .patch(_, let fieldsMask) = try await lastMutation(env).kind else {
            Issue.record("mergeFields is not a patch")
            return
        }
        #expect(fieldsMask.fields == [CairnModel.FieldPath(segments: ["a"])])
        do {
            try await ref.setData(["a": 1], mergeFields: ["missing"])
            Issue.record("a merge field missing from the data was accepted")
        } catch let error as FirestoreErrorCode {
            #expect(error.message == "Field 'missing' is specified in your field mask but missing from your input data.")
        }
    }

    @Test("A reference into another database is rejected")
    func foreignReference() async throws {
        let env = APITestEnvironment()
        let other = APITestEnvironment()
        await #expect(throws: FirestoreErrorCode.self) {
            try await env.db.document("c/d").setData(["r": other.db.document("x/y")])
        }
    }

    @Test("Reading back: numbers as NSNumber, server timestamps by behaviour, references and nested values")
    func writer() throws {
        let env = APITestEnvironment()
        let local = CairnModel.Timestamp(seconds: 50, nanoseconds: 0)
        let document = fakeDocument("c/d", [
            "n": .integer(3), "d": .double(0.5), "b": .boolean(true),
            "pending": .serverTimestamp(localWriteTime: local, previous: .string("old")),
            "fresh": .serverTimestamp(localWriteTime: local, previous: nil),
            "ref": .reference(env.db.databaseID, try DocumentKey(parsing: "users/ada")),
            "nested": .map(ObjectValue(["list": .array([.bytes([9]), .null])])),
        ])
        let snapshot = DocumentSnapshot(
            reference: env.db.document("c/d"), document: document,
            metadata: SnapshotMetadata(hasPendingWrites: true, isFromCache: true))
        let data = try #require(snapshot.data())
        #expect(data["n"] as? Int == 3)
        #expect(data["d"] as? Double == 0.5)
        #expect(data["b"] as? Bool == true)
        #expect(data["pending"] is NSNull)
        #expect(snapshot.data(with: .estimate)?["pending"] as? Cairn.Timestamp == Cairn.Timestamp(seconds: 50, nanoseconds: 0))
        #expect(snapshot.get("pending", serverTimestampBehavior: .previous) as? String == "old")
        #expect(snapshot.get("fresh", serverTimestampBehavior: .previous) is NSNull)
        #expect((snapshot["ref"] as? DocumentReference)?.path == "users/ada")
        let list = try #require(snapshot.get("nested.list") as? [Any])
        #expect(list.first as? Data == Data([9]))
        #expect(snapshot.get(Cairn.FieldPath(["nested", "list"])) != nil)
        #expect(snapshot.get("missing") == nil)
        #expect(snapshot.get("bad..path") == nil)
    }
}
