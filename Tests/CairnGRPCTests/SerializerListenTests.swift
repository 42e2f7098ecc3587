import CairnCore
import Cairn
import CairnModel
import Foundation
import CairnLocalStore
import SwiftProtobuf
import Testing

@testable import CairnGRPC

@Suite("Serializer: Listen targets and responses")
struct SerializerListenTests {
    let serializer = FirestoreSerializer(databaseID: DatabaseID(projectID: "p"))
    let name = "projects/p/databases/(default)/documents/rooms/a"

    @Test("a document query becomes a documents target; others become query targets")
    func targetKinds() throws {
        let document = try serializer.encodeListenTarget(
            TargetData(targetID: 4, query: Query(path: ResourcePath(segments: ["rooms", "a"]))))
        #expect(document.targetID == 4)
        #expect(document.documents.documents == [name])
        #expect(document.resumeType == nil)
        let query = try serializer.encodeListenTarget(
            TargetData(targetID: 6, query: Query(path: ResourcePath(segments: ["rooms"]))))
        #expect(query.query.structuredQuery.from.map(\.collectionID) == ["rooms"])
        #expect(!query.hasExpectedCount)
    }

    @Test("resume: the token wins over the snapshot version; expected_count only accompanies a resume")
    func resume() throws {
        let rooms = Query(path: ResourcePath(segments: ["rooms"]))
        let version = Timestamp(seconds: 50, nanoseconds: 5)
        let withToken = try serializer.encodeListenTarget(
            TargetData(targetID: 2, query: rooms, snapshotVersion: version, resumeToken: [1, 2, 3], expectedCount: 7))
        #expect(withToken.resumeToken == Data([1, 2, 3]))
        #expect(withToken.expectedCount.value == 7)
        let withVersion = try serializer.encodeListenTarget(
            TargetData(targetID: 2, query: rooms, snapshotVersion: version, expectedCount: 7))
        #expect(withVersion.readTime == Google_Protobuf_Timestamp(seconds: 50, nanos: 5))
        let fresh = try serializer.encodeListenTarget(TargetData(targetID: 2, query: rooms, expectedCount: 7))
        #expect(!fresh.hasExpectedCount)
    }

    @Test("target changes decode state, ids, token and cause; only a global NO_CHANGE has a version")
    func targetChanges() throws {
        var response = Google_Firestore_V1_ListenResponse()
        response.targetChange.targetChangeType = .current
        response.targetChange.targetIds = [2, 3]
        response.targetChange.resumeToken = Data([9])
        response.targetChange.readTime = Google_Protobuf_Timestamp(seconds: 8, nanos: 0)
        let current = try serializer.decodeListenResponse(response)
        guard case .targetChange(.current, let ids, let token, nil) = current else {
            Issue.record("decoded \(current)")
            return
        }
        #expect(ids == [2, 3])
        #expect(token == [9])
        #expect(try serializer.decodeSnapshotVersion(response) == TargetData.noSnapshotVersion)

        response.targetChange.targetChangeType = .noChange
        response.targetChange.targetIds = []
        #expect(try serializer.decodeSnapshotVersion(response) == Timestamp(seconds: 8, nanoseconds: 0))

        response.targetChange.targetChangeType = .remove
        response.targetChange.cause = Google_Rpc_Status.with {
            $0.code = 7
            $0.message = "denied"
        }
        guard case .targetChange(.removed, _, _, let cause?) = try serializer.decodeListenResponse(response) else {
            Issue.record("no cause")
            return
        }
        #expect(cause.code == .permissionDenied)
        #expect(cause.message == "denied")
    }

    @Test("document change, delete and remove decode to documentChange with found, noDocument and nil")
    func documentChanges() throws {
        let key = try DocumentKey(parsing: "rooms/a")
        var change = Google_Firestore_V1_ListenResponse()
        change.documentChange.document = try serializer.encodeDocument(
            key: key, data: ObjectValue(["n": .integer(1)]), updateTime: Timestamp(seconds: 3, nanoseconds: 4))
        change.documentChange.targetIds = [2]
        change.documentChange.removedTargetIds = [5]
        guard case .documentChange([2], [5], key, let found?) = try serializer.decodeListenResponse(change) else {
            Issue.record("document change not decoded")
            return
        }
        #expect(found.state == .found)
        #expect(found.version == Timestamp(seconds: 3, nanoseconds: 4))
        #expect(found.data.value(at: try FieldPath(["n"])) == .integer(1))

        var delete = Google_Firestore_V1_ListenResponse()
        delete.documentDelete.document = name
        delete.documentDelete.removedTargetIds = [2]
        delete.documentDelete.readTime = Google_Protobuf_Timestamp(seconds: 6, nanos: 0)
        guard case .documentChange([], [2], key, let deleted?) = try serializer.decodeListenResponse(delete) else {
            Issue.record("document delete not decoded")
            return
        }
        #expect(deleted.state == .noDocument)
        #expect(deleted.version == Timestamp(seconds: 6, nanoseconds: 0))

        var remove = Google_Firestore_V1_ListenResponse()
        remove.documentRemove.document = name
        remove.documentRemove.removedTargetIds = [2]
        guard case .documentChange([], [2], key, nil) = try serializer.decodeListenResponse(remove) else {
            Issue.record("document remove not decoded")
            return
        }
    }

    @Test("an existence filter keeps count and the bloom filter's bitmap, padding and hash count")
    func existenceFilter() throws {
        var response = Google_Firestore_V1_ListenResponse()
        response.filter.targetID = 2
        response.filter.count = 3
        response.filter.unchangedNames.bits.bitmap = Data([0xA5, 0x01])
        response.filter.unchangedNames.bits.padding = 7
        response.filter.unchangedNames.hashCount = 4
        guard case .existenceFilter(2, 3, let bloom?) = try serializer.decodeListenResponse(response) else {
            Issue.record("filter not decoded")
            return
        }
        #expect(bloom == BloomFilterParameters(bitmap: [0xA5, 0x01], padding: 7, hashCount: 4))
        response.filter.clearUnchangedNames()
        guard case .existenceFilter(2, 3, nil) = try serializer.decodeListenResponse(response) else {
            Issue.record("filter without bloom not decoded")
            return
        }
    }
}
