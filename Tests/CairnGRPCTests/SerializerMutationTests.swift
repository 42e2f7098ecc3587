import CairnCore
import Cairn
import CairnModel
import SwiftProtobuf
import Testing

@testable import CairnGRPC

@Suite("Serializer: writes and write results")
struct SerializerMutationTests {
    let serializer = FirestoreSerializer(databaseID: DatabaseID(projectID: "p"))

    func throughWire(_ mutation: Mutation) throws -> Mutation {
        let bytes = try serializer.encode(mutation).serializedData()
        return try serializer.decodeMutation(Google_Firestore_V1_Write(serializedBytes: bytes))
    }

    @Test("set, patch and delete with preconditions and transforms survive encode → bytes → decode (seeded)")
    func randomMutationsRoundTrip() throws {
        var model = RandomModel(seed: 0x5EED_0004)
        for _ in 0..<300 {
            let mutation = model.mutation()
            #expect(try throughWire(mutation) == mutation, "\(mutation)")
        }
    }

    @Test("set has no mask; patch sends its mask quoted; delete sends the name; preconditions map one to one")
    func writeShapes() throws {
        let key = try DocumentKey(parsing: "rooms/a")
        let set = try serializer.encode(.set(key, value: ObjectValue(["n": .integer(1)])))
        #expect(set.update.name == "projects/p/databases/(default)/documents/rooms/a")
        #expect(!set.hasUpdateMask)
        #expect(!set.hasCurrentDocument)

        let mask = FieldMask([FieldPath(segments: ["a", "b"]), FieldPath(segments: ["x&y"])])
        let patch = try serializer.encode(.patch(key, value: ObjectValue(), mask: mask))
        #expect(patch.updateMask.fieldPaths == ["`x&y`", "a.b"] || patch.updateMask.fieldPaths == ["a.b", "`x&y`"])
        #expect(patch.currentDocument.exists == true)

        let time = Timestamp(seconds: 5, nanoseconds: 6)
        let delete = try serializer.encode(.delete(key, precondition: .updateTime(time)))
        #expect(delete.delete == "projects/p/databases/(default)/documents/rooms/a")
        #expect(delete.currentDocument.updateTime == Google_Protobuf_Timestamp(seconds: 5, nanos: 6))
    }

    @Test("transforms map to REQUEST_TIME, increment, append_missing_elements and remove_all_from_array")
    func transforms() throws {
        let key = try DocumentKey(parsing: "c/d")
        let field = try FieldPath(["f"])
        let write = try serializer.encode(
            .set(
                key, value: ObjectValue(),
                transforms: [
                    FieldTransform(field: field, operation: .serverTimestamp),
                    FieldTransform(field: field, operation: .increment(.integer(5))),
                    FieldTransform(field: field, operation: .arrayUnion([.string("u")])),
                    FieldTransform(field: field, operation: .arrayRemove([.string("r")])),
                ]))
        let kinds = write.updateTransforms.map(\.transformType)
        #expect(kinds.count == 4)
        #expect(kinds[0] == .setToServerValue(.requestTime))
        #expect(write.updateTransforms[1].increment.integerValue == 5)
        #expect(write.updateTransforms[2].appendMissingElements.values.map(\.stringValue) == ["u"])
        #expect(write.updateTransforms[3].removeAllFromArray.values.map(\.stringValue) == ["r"])
    }

    @Test("verify becomes an empty-mask update (updateTime, exists true) or a guarded delete (exists false)")
    func verifyWithPublicWrites() throws {
        let key = try DocumentKey(parsing: "c/d")
        let time = Timestamp(seconds: 10, nanoseconds: 20)
        let versioned = try serializer.encode(.verify(key, precondition: .updateTime(time)))
        #expect(versioned.update.fields.isEmpty)
        #expect(versioned.hasUpdateMask && versioned.updateMask.fieldPaths.isEmpty)
        #expect(
            try serializer.decodeMutation(versioned)
                == .patch(key, value: ObjectValue(), mask: FieldMask(), precondition: .updateTime(time)))
        let absent = try serializer.encode(.verify(key, precondition: .exists(false)))
        #expect(absent.delete == serializer.name(for: key))
        #expect(absent.currentDocument.exists == false)
        expectFirestoreError(.invalidArgument) { try serializer.encode(.verify(key, precondition: .none)) }
    }

    @Test("a write result's version is its update time, or the commit time when it has none (a delete)")
    func writeResults() throws {
        let commit = Timestamp(seconds: 100, nanoseconds: 1)
        var updated = Google_Firestore_V1_WriteResult()
        updated.updateTime = Google_Protobuf_Timestamp(seconds: 99, nanos: 7)
        updated.transformResults = [try serializer.encode(.integer(6))]
        let result = try serializer.decodeWriteResult(updated, commitTime: commit)
        #expect(result.version == Timestamp(seconds: 99, nanoseconds: 7))
        #expect(result.transformResults == [.integer(6)])
        let deleted = try serializer.decodeWriteResult(Google_Firestore_V1_WriteResult(), commitTime: commit)
        #expect(deleted.version == commit)
        #expect(deleted.transformResults.isEmpty)
    }
}
