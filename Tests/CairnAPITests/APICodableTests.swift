import CairnCoreTestSupport
import CairnCore
import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API Codable: Firestore.Encoder, Firestore.Decoder and the property wrappers")
struct APICodableTests {
    struct Address: Codable, Equatable {
        var city: String
        var zip: Int?
    }

    struct Person: Codable, Equatable {
        @DocumentID var id: String?
        var name: String
        var age: Int
        var height: Double
        var member: Bool
        var tags: [String]
        var address: Address
        var born: Date
        var seen: Cairn.Timestamp
        var home: Cairn.GeoPoint
        var avatar: Data
        @ServerTimestamp var updated: Cairn.Timestamp?
        @ExplicitNull var nickname: String?
        var note: String?
    }

    private func sample() -> Person {
        Person(
            id: "ignored", name: "Ada", age: 36, height: 1.65, member: true, tags: ["math", "poetry"],
            address: Address(city: "London", zip: nil), born: Date(timeIntervalSince1970: 100),
            seen: Cairn.Timestamp(seconds: 5, nanoseconds: 6), home: Cairn.GeoPoint(latitude: 51.5, longitude: -0.1),
            avatar: Data([7, 8]), updated: nil, nickname: nil, note: nil)
    }

    @Test("Encoding: Firestore types pass through, nil optionals are left out, wrappers write what Firebase writes")
    func encoding() throws {
        let fields = try Firestore.Encoder().encode(sample())
        #expect(fields["id"] == nil)
        #expect(fields["note"] == nil)
        #expect(fields["nickname"] is NSNull)
        #expect(fields["updated"] is FieldValue)
        #expect(fields["born"] as? Cairn.Timestamp == Cairn.Timestamp(seconds: 100, nanoseconds: 0))
        #expect(fields["seen"] as? Cairn.Timestamp == Cairn.Timestamp(seconds: 5, nanoseconds: 6))
        #expect(fields["avatar"] as? Data == Data([7, 8]))
        #expect((fields["address"] as? [String: Any])?["city"] as? String == "London")
        #expect((fields["address"] as? [String: Any])?.keys.contains("zip") == false)
        #expect(fields["tags"] as? [String] == ["math", "poetry"])
        #expect(throws: EncodingError.self) { try Firestore.Encoder().encode([1, 2]) }
    }

    @Test("setData(from:) writes the encoded document, the server timestamp as a transform")
    func setDataFrom() async throws {
        let env = APITestEnvironment()
        try env.db.document("people/ada").setData(from: sample())
        let mutation = try #require(try await env.writes().last?.first)
        guard case .set(let value) = mutation.kind else {
            Issue.record("setData(from:) is not a set")
            return
        }
        #expect(value.fields["name"] == .string("Ada"))
        #expect(value.fields["age"] == .integer(36))
        #expect(value.fields["nickname"] == .null)
        #expect(mutation.fieldTransforms.map(\.field) == [CairnModel.FieldPath(segments: ["updated"])])
        let added = try env.db.collection("people").addDocument(from: Address(city: "Paris", zip: 75))
        #expect(try await env.writes().last?.first?.key.documentID == added.documentID)
    }

    @Test("WriteBatch.setData(from:forDocument:mergeFields:) writes only the named fields of the encoded value")
    func batchSetDataFromMergeFields() async throws {
        let env = APITestEnvironment()
        let batch = env.db.batch()
        try batch.setData(
            from: Address(city: "Paris", zip: 75), forDocument: env.db.document("places/p"), mergeFields: ["city"])
        try await batch.commit()
        let mutation = try #require(try await env.writes().last?.first)
        guard case .patch(let value, let mask) = mutation.kind else {
            Issue.record("a mergeFields write is not a patch: \(mutation.kind)")
            return
        }
        #expect(value.fields["city"] == .string("Paris"))
        #expect(value.fields["zip"] == nil)
        #expect(mask.fields == [CairnModel.FieldPath(segments: ["city"])])
    }

    @Test("@DocumentID encodes to nothing with Firestore.Encoder and throws encodingIsNotSupported with others")
    func documentIDWithForeignEncoder() throws {
        struct Named: Codable { @DocumentID var id: String?; var name: String }
        let encoded = try Firestore.Encoder().encode(Named(id: "x", name: "n"))
        #expect(encoded.keys.sorted() == ["name"])
        #expect {
            try JSONEncoder().encode(Named(id: "x", name: "n"))
        } throws: { error in
            guard case FirestoreEncodingError.encodingIsNotSupported(let message) = error else { return false }
            return message.contains("Firestore.Encoder")
        }
    }

    @Test("A DocumentReference field round-trips through Firestore's coders; other coders get a clear error")
    func documentReferenceCodable() throws {
        struct Order: Codable { var customer: DocumentReference; var total: Int }
        let env = APITestEnvironment()
        let customer = env.db.document("users/ada")
        let encoded = try Firestore.Encoder().encode(Order(customer: customer, total: 3))
        #expect(encoded["customer"] as? DocumentReference == customer)
        let decoded = try Firestore.Decoder().decode(Order.self, from: encoded)
        #expect(decoded.customer == customer && decoded.total == 3)
        #expect {
            try JSONEncoder().encode(Order(customer: customer, total: 3))
        } throws: { error in
            guard case FirestoreEncodingError.encodingIsNotSupported = error else { return false }
            return true
        }
        #expect {
            try JSONDecoder().decode(Order.self, from: Data(#"{"customer": "users/ada", "total": 3}"#.utf8))
        } throws: { error in
            guard case FirestoreDecodingError.decodingIsNotSupported = error else { return false }
            return true
        }
    }

    @Test("FieldValue sentinels inside an Encodable type reach the write as transforms; other encoders refuse them")
    func fieldValueEncodable() async throws {
        struct Visit: Encodable { var count: FieldValue; var at: FieldValue }
        let env = APITestEnvironment()
        try env.db.document("pages/home").setData(
            from: Visit(count: .increment(Int64(1)), at: .serverTimestamp()), merge: true)
        let mutation = try #require(try await env.writes().last?.first)
        #expect(mutation.fieldTransforms.map(\.field).sorted { $0.segments.joined() < $1.segments.joined() }
            == [CairnModel.FieldPath(segments: ["at"]), CairnModel.FieldPath(segments: ["count"])])
        #expect {
            try JSONEncoder().encode(Visit(count: .increment(Int64(1)), at: .serverTimestamp()))
        } throws: { error in
            guard case FirestoreEncodingError.encodingIsNotSupported = error else { return false }
            return true
        }
    }

    @Test("Transaction.setData(from:forDocument:mergeFields:) commits only the named fields of the encoded value")
    func transactionSetDataFromMergeFields() async throws {
        let env = APITestEnvironment()
        let place = env.db.document("places/p")
        let stored = fakeDocument("places/p", ["zip": .integer(1)])
        env.server.script.withLock { $0.server = [stored.key: stored] }
        _ = try await env.db.runTransaction { transaction, errorPointer in
            do {
                _ = try transaction.getDocument(place)
                try transaction.setData(from: Address(city: "Paris", zip: 75), forDocument: place, mergeFields: ["city"])
            } catch {
                errorPointer?.pointee = error as NSError
            }
            return nil
        }
        let mutation = try #require(env.server.commits.last?.first)
        guard case .patch(let value, let mask) = mutation.kind else {
            Issue.record("a mergeFields write is not a patch: \(mutation.kind)")
            return
        }
        #expect(value.fields["city"] == .string("Paris") && value.fields["zip"] == nil)
        #expect(mask.fields == [CairnModel.FieldPath(segments: ["city"])])
    }

    @Test("Decoding a snapshot round-trips the value, fills @DocumentID and reads pending server timestamps")
    func decoding() throws {
        let env = APITestEnvironment()
        let reference = env.db.document("people/ada")
        var original = sample()
        original.note = "n"
        let fields = try Firestore.Encoder().encode(original)
        let stored = try UserDataReader.document(fields).compactMapValues { value -> Value? in
            if case .value(let plain) = value { return plain }
            if case .map = value { return try? MutationBuilder(databaseID: env.db.databaseID).queryValue(value) }
            if case .array = value { return try? MutationBuilder(databaseID: env.db.databaseID).queryValue(value) }
            return nil
        }
        var data = stored
        data["updated"] = .serverTimestamp(localWriteTime: CairnModel.Timestamp(seconds: 9, nanoseconds: 0), previous: nil)
        let snapshot = DocumentSnapshot(
            reference: reference, document: fakeDocument("people/ada", data),
            metadata: SnapshotMetadata(hasPendingWrites: true, isFromCache: true))
        let decoded = try snapshot.data(as: Person.self)
        var expected = original
        expected.id = "ada"
        #expect(decoded == expected)
        let estimated = try snapshot.data(as: Person.self, with: .estimate)
        #expect(estimated.updated == Cairn.Timestamp(seconds: 9, nanoseconds: 0))
        let missing = DocumentSnapshot(reference: reference, document: nil, metadata: SnapshotMetadata(hasPendingWrites: false, isFromCache: true))
        #expect(throws: DecodingError.self) { try missing.data(as: Person.self) }
    }

    @Test("Numbers decode only into types that hold them exactly; booleans never decode as numbers")
    func numberDecoding() throws {
        let decoder = Firestore.Decoder()
        #expect(try decoder.decode(Int8.self, from: NSNumber(value: 100)) == 100)
        #expect(throws: DecodingError.self) { try decoder.decode(Int8.self, from: NSNumber(value: 300)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: NSNumber(value: 1.5)) }
        #expect(try decoder.decode(Int.self, from: NSNumber(value: 2.0)) == 2)
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: NSNumber(value: true)) }
        #expect(throws: DecodingError.self) { try decoder.decode(Bool.self, from: NSNumber(value: 1)) }
        #expect(try decoder.decode(Double.self, from: NSNumber(value: 3)) == 3)
        #expect(throws: DecodingError.self) { try decoder.decode(String.self, from: NSNumber(value: 3)) }
    }

    class Animal: Codable {
        var name: String
        init(name: String) { self.name = name }
    }

    /// A subclass that encodes its superclass with `superEncoder()`, whose `CodingKeys` has no `super` case.
    final class Dog: Animal {
        var breed: String
        enum CodingKeys: String, CodingKey { case breed }

        init(name: String, breed: String) {
            self.breed = breed
            super.init(name: name)
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            breed = try container.decode(String.self, forKey: .breed)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(breed, forKey: .breed)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test("A class hierarchy encodes its superclass under `super` and decodes it back (superEncoder did not crash)")
    func superEncoderRoundTrip() throws {
        let encoded = try Firestore.Encoder().encode(Dog(name: "Rex", breed: "collie"))
        #expect(encoded["breed"] as? String == "collie")
        #expect((encoded["super"] as? [String: Any])?["name"] as? String == "Rex")
        let decoded = try Firestore.Decoder().decode(Dog.self, from: encoded)
        #expect(decoded.name == "Rex" && decoded.breed == "collie")
        // Without a `super` map the superclass decodes from null: a clear DecodingError, not a crash.
        #expect(throws: DecodingError.self) {
            try Firestore.Decoder().decode(Dog.self, from: ["breed": "collie", "name": "Rex"])
        }
    }

    @Test("getDocument(as:) decodes the document read, or reports the read's error")
    func getDocumentAs() throws {
        let env = APITestEnvironment(manualWorker: true)
        let reference = env.db.document("addresses/home")
        let results = Recorder<Result<Address, Error>>()
        env.db.disableNetwork()  // the read answers from the cache, where the write is
        reference.setData(["city": "Oslo", "zip": 150], completion: nil)
        reference.getDocument(as: Address.self) { results.append($0) }
        env.settle()
        #expect(results.values.count == 1)
        env.db.terminate()
        env.settle()
        reference.getDocument(as: Address.self) { results.append($0) }
        env.settle()
        #expect(try results.values.first?.get() == Address(city: "Oslo", zip: 150))
        #expect(throws: FirestoreErrorCode.self) { try results.values.last?.get() }
        #expect(results.values.count == 2)
    }
}
