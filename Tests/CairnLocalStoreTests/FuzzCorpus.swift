import CairnModel
import Foundation
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The seed cache of the event-decoder fuzz suite: one of every event kind, written through the LocalStore API,
/// with the shapes the decoders branch on — every value type (nested maps and arrays, pending server
/// timestamps with previous values, references), tombstones and unknown documents, targets with filters,
/// composite filters, order bys, cursors, limits, resume tokens and an expected count, membership deltas and
/// snapshots, a removed target, globals with tokens, batches of sets, patches with masks, deletes with preconditions and every
/// transform (acknowledged, rejected and pending, of two users), evictions and an index configuration.
enum FuzzCorpus {
    /// A record of the log: what the fuzz cases mutate and write again.
    struct Record: Equatable {
        var kind: UInt8
        var key: [UInt8]
        var value: [UInt8]
    }

    /// Log settings for the fuzz directories: small frames and segments, no syncs.
    static var configuration: SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.frameTargetSize = 1024
        configuration.segmentTargetSize = 8192
        configuration.preallocationSize = 0
        configuration.durability = .none
        return configuration
    }

    /// Builds the seed cache in `directory` (which must not hold one) and returns its records in log order.
    static func records(buildingIn directory: String) throws -> [Record] {
        let store = try LocalStore.open(at: directory, configuration: configuration)
        try populate(store)
        try store.close()
        let log = try SegmentLog.open(at: directory, configuration: configuration)
        defer { try? log.close() }
        var records: [Record] = []
        try log.scan { records.append(Record(kind: $0.kind, key: $0.keyBytes, value: $0.valueBytes)) }
        return records
    }

    /// Every value type, nested, in one document.
    static func richFields(_ i: Int) -> [String: Value] {
        [
            "name": .string("user \(i) é"), "age": .integer(Int64(20 + i)), "score": .double(Double(i) / 4),
            "nan": .double(.nan), "seen": .timestamp(Timestamp(seconds: 1_700_000_000 + Int64(i), nanoseconds: 999_999_999)),
            "blob": .bytes([UInt8(i), 0xFF, 0]), "home": .geoPoint(GeoPoint(latitude: 48.5, longitude: -2)),
            "friend": .reference(DatabaseID(projectID: "p"), key("users/u\(i + 1)")),
            "tags": .array([.string("t\(i)"), .null, .boolean(true), .array([.integer(-1), .map(ObjectValue(["k": .integer(2)]))])]),
            "nested": .map(ObjectValue(["n": .integer(Int64(i)), "m": .map(ObjectValue(["deep": .array([.string("x")])]))])),
            "pending": .serverTimestamp(localWriteTime: time(5), previous: .map(ObjectValue(["was": .integer(1)]))),
        ]
    }

    private static func populate(_ store: LocalStore) throws {
        for i in 0..<4 {
            try store.applyRemoteDocuments([found("users/u\(i)", version: Int64(10 + i), richFields(i))])
        }
        try store.applyRemoteDocuments([
            found("rooms/r1", version: 20, ["title": .string("Room"), "size": .integer(3)]),
            found("rooms/r1/messages/m1", version: 21, ["text": .string("hi"), "at": .timestamp(time(21))]),
            Document(key: key("users/gone"), state: .noDocument, version: time(22), readTime: time(22)),
            Document(key: key("users/unknown"), state: .unknown, version: time(23), readTime: time(23), hasCommittedMutations: true),
        ])
        // Targets: a plain collection, a filtered and ordered one with cursors and a limit, a collection group
        // with an OR, and one removed.
        let size = FieldPath(segments: ["size"])
        let queries: [Query] = [
            Query(path: ResourcePath(segments: ["users"])),
            try Query(path: ResourcePath(segments: ["rooms"]))
                .filtered(by: .field(FieldFilter(size, .greaterThanOrEqual, .integer(1))))
                .ordered(by: OrderBy(size, descending: true)).starting(at: [.integer(9)]).ending(before: [.integer(0)])
                .limited(to: 5),
            try Query(path: .root, collectionGroup: "messages")
                .filtered(by: .or([
                    .field(FieldFilter(FieldPath(segments: ["text"]), .in, .array([.string("hi"), .string("yo")]))),
                    .field(FieldFilter(FieldPath(segments: ["at"]), .notEqual, .null)),
                ])).limitedToLast(3),
            Query(path: ResourcePath(segments: ["users", "u1"])),
        ]
        var targets: [TargetData] = []
        for (i, query) in queries.enumerated() {
            var data = try store.allocateTarget(query)
            data.resumeToken = Array("token-\(i)".utf8)
            data.snapshotVersion = time(30 + Int64(i))
            data.expectedCount = i == 1 ? 7 : nil
            let members = Set(try store.executeQuery(query).map(\.key))
            data = try store.updateTarget(data, added: members, removed: [])
            targets.append(data)
        }
        try store.updateTarget(targets[0], added: [key("users/u3")], removed: [key("users/u0")])
        try store.releaseTarget(targets[0].targetID, keepPersisted: true)
        try store.releaseTarget(targets[3].targetID, keepPersisted: true)
        try store.removeTarget(targets[3].targetID)
        _ = try store.applyRemoteEvent(RemoteEvent(
            snapshotVersion: time(40),
            targetChanges: [targets[1].targetID: TargetChange(resumeToken: [1, 2, 3], added: [key("rooms/r1")])],
            documentUpdates: byKey([found("rooms/r1", version: 40, ["title": .string("Room 2"), "size": .integer(4)])])))
        try store.setLastRemoteSnapshotVersion(time(41))
        try store.setWriteStreamToken([9, 9], forUser: "ada")
        try store.setSessionToken([7])
        // The outbox: an acknowledged batch with every transform, a rejected one, pending ones of two users.
        let transforms = [
            FieldTransform(field: FieldPath(segments: ["age"]), operation: .increment(.integer(1))),
            FieldTransform(field: FieldPath(segments: ["score"]), operation: .increment(.double(0.5))),
            FieldTransform(field: FieldPath(segments: ["at"]), operation: .serverTimestamp),
            FieldTransform(field: FieldPath(segments: ["tags"]), operation: .arrayUnion([.string("a"), .integer(1)])),
            FieldTransform(field: FieldPath(segments: ["old"]), operation: .arrayRemove([.null])),
        ]
        try store.writeLocally([
            .patch(key("users/u0"), value: ObjectValue(["nested": .map(ObjectValue(["n": .integer(5)]))]),
                   mask: FieldMask([FieldPath(segments: ["nested", "n"])]), precondition: .exists(true), transforms: transforms),
        ], localWriteTime: time(50))
        let acknowledged = try #require(try store.nextMutationBatch(after: nil))
        try store.acknowledgeBatch(try MutationBatchResult(
            batch: acknowledged, commitVersion: time(51),
            mutationResults: [MutationResult(version: time(51), transformResults: [.integer(22), .double(1), .timestamp(time(51)), .null, .null])]))
        let rejected = try store.writeLocally([.delete(key("rooms/r1"), precondition: .updateTime(time(40)))], localWriteTime: time(52))
        try store.rejectBatch(rejected.batchID)
        try store.writeLocally([
            .set(key("users/u9"), value: ObjectValue(richFields(9)), transforms: [transforms[2]]),
            .delete(key("users/u2"), precondition: .exists(true)),
        ], localWriteTime: time(53))
        try store.switchUser(to: "ada")
        try store.writeLocally([
            .patch(key("users/u1"), value: ObjectValue(["age": .integer(3)]), mask: FieldMask([FieldPath(segments: ["age"])]),
                   transforms: [transforms[0], transforms[3]]),
        ], localWriteTime: time(54))
        try store.switchUser(to: "")
        try store.setIndexConfiguration(json: """
            {"indexes": [
              {"collectionGroup": "users", "queryScope": "COLLECTION",
               "fields": [{"fieldPath": "age", "order": "ASCENDING"}, {"fieldPath": "tags", "arrayConfig": "CONTAINS"}]},
              {"collectionGroup": "messages", "queryScope": "COLLECTION_GROUP",
               "fields": [{"fieldPath": "nested.n", "order": "DESCENDING"}]}
            ]}
            """)
        try store.setIndexAutoCreationEnabled(true)
        try store.evictDocuments([key("rooms/r1/messages/m1")])
        try store.saveNamedQuery(NamedQuery(name: "big rooms", query: roomsQuery(sizeAbove: 3), readTime: time(55)))
        try store.saveBundleMetadata(BundleMetadata(
            id: "bundle-1", createTime: time(56), version: 1, totalDocuments: 2, totalBytes: 900))
    }
}
