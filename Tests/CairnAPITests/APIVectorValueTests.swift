import CairnModel
import Foundation
import Testing

@testable import Cairn

/// `VectorValue` and `FieldValue.vector(_:)` as Firebase's Swift API has them: written as Firestore's vector map,
/// read back as `VectorValue`, ordered between arrays and maps by the local query engine, and `Codable` as
/// Firebase's overlay makes it.
@Suite("API VectorValue")
struct APIVectorValueTests {
    @Test("FieldValue.vector makes a VectorValue of the doubles (or the widened floats); equality and hashing by elements")
    func construction() {
        let vector = FieldValue.vector([1.5, -2])
        #expect(vector == VectorValue([1.5, -2]))
        #expect(vector.array == [1.5, -2])
        #expect(FieldValue.vector([Float(0.5), 2]) == VectorValue([0.5, 2]))
        #expect(vector != VectorValue([1.5]))
        #expect(Set([vector, VectorValue([1.5, -2]), VectorValue([])]).count == 2)
    }

    @Test("A vector is sent as Firestore's {__type__: __vector__, value: [...]} map and read back as a VectorValue")
    func writeAndRead() async throws {
        let env = APITestEnvironment()
        let ref = env.db.collection("items").document("a")
        try await ref.setData(["embedding": FieldValue.vector([0.25, 4]), "nested": ["v": VectorValue([1])]])
        let written = try #require(env.server.writes.last?.first)
        guard case .set(let value) = written.kind else { Issue.record("not a set: \(written)"); return }
        #expect(value.fields["embedding"] == .map(ObjectValue([
            "__type__": .string("__vector__"), "value": .array([.double(0.25), .double(4)]),
        ])))
        let snapshot = try await ref.getDocument(source: .cache)
        #expect(snapshot.get("embedding") as? VectorValue == VectorValue([0.25, 4]))
        #expect((snapshot.data()?["nested"] as? [String: Any])?["v"] as? VectorValue == VectorValue([1]))
        let filtered = try await env.db.collection("items").whereField("embedding", isEqualTo: VectorValue([0.25, 4]))
            .getDocuments(source: .cache)
        #expect(filtered.documents.map(\.documentID) == ["a"])
    }

    @Test("The local query engine orders vectors after arrays and before maps, shorter vectors first")
    func localOrder() async throws {
        let env = APITestEnvironment()
        let items = env.db.collection("items")
        let values: [String: Any] = [
            "map": ["a": 1], "array": [100.0, 100.0, 100.0], "long": VectorValue([0, 0, 0]), "short": VectorValue([9]),
            "pair": VectorValue([1, 2]), "pair2": VectorValue([1, 3]), "number": 5,
        ]
        for (id, value) in values { items.document(id).setData(["v": value], completion: nil) }
        let ordered = try await items.order(by: "v").getDocuments(source: .cache)
        #expect(ordered.documents.map(\.documentID) == ["number", "array", "short", "pair", "pair2", "long", "map"])
        let above = try await items.whereField("v", isGreaterThan: VectorValue([5])).getDocuments(source: .cache)
        #expect(above.documents.map(\.documentID) == ["short", "pair", "pair2", "long"])
    }

    @Test("A reserved __type__ key in a plain dictionary is still refused: only VectorValue writes a vector")
    func plainMapRefused() async throws {
        let env = APITestEnvironment()
        await #expect(throws: FirestoreErrorCode.self) {
            try await env.db.collection("items").document("x").setData(["v": ["__type__": "__vector__", "value": [1.0]]])
        }
    }

    struct Item: Codable, Equatable {
        var name: String
        var embedding: VectorValue
    }

    @Test("Codable: Firestore.Encoder stores a VectorValue property as a vector and Firestore.Decoder reads it back; JSONEncoder sees {\"array\": [...]}")
    func codable() async throws {
        let item = Item(name: "a", embedding: VectorValue([3, 1.5]))
        let fields = try Firestore.Encoder().encode(item)
        #expect(fields["embedding"] as? VectorValue == item.embedding)
        let env = APITestEnvironment()
        let ref = env.db.collection("items").document("c")
        try ref.setData(from: item)
        try await env.db.waitForPendingWrites()
        #expect(try await ref.getDocument(source: .cache).data(as: Item.self) == item)
        let json = try JSONEncoder().encode(item.embedding)
        #expect(String(decoding: json, as: UTF8.self) == #"{"array":[3,1.5]}"#)
        #expect(try JSONDecoder().decode(VectorValue.self, from: json) == item.embedding)
    }
}
