import ArgumentParser
import CairnModel
import CairnTestSupport
import Foundation
import CairnLocalStore
import SegmentLog

/// `cairn fixture DIR`: builds a small cache with fixed contents and timestamps (seeded), so the inspection
/// commands have something real to show (Docs/Tool.md was made from it). Hidden: a tool for documentation.
///
/// The cache: users with every Firestore value type, rooms and their messages, rewritten documents (dead
/// bytes), a tombstone, three targets (one removed with its documents evicted), the outbox of two users
/// (one batch acknowledged, one rejected, three pending), the globals, and two field indexes (automatic
/// creation on) that the fixture backfills partway before it closes.
struct FixtureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fixture",
        abstract: "Build a demonstration cache with fixed contents (for the documentation).",
        shouldDisplay: false)

    @Argument(help: "A directory that does not exist yet.")
    var directory: String

    @Option(help: "Users to create.")
    var users: Int = 120

    func validate() throws {
        guard users >= 4 else { throw ValidationError("--users must be at least 4") }
        guard !FileManager.default.fileExists(atPath: directory) else {
            throw ValidationError("\(directory) exists; give a new directory")
        }
    }

    func run() throws {
        var configuration = SegmentLog.Configuration()
        configuration.segmentTargetSize = 8 << 10
        configuration.frameTargetSize = 2 << 10
        configuration.durability = .none
        configuration.preallocationSize = 0
        let store = try LocalStore.open(at: directory, configuration: configuration)
        defer { try? store.close() }
        var random = SeededRandom(seed: 2024)
        func time(_ minutes: Int64) -> Timestamp { Timestamp(seconds: 1_704_067_200 + minutes * 60, nanoseconds: 0) }
        func key(_ path: String) throws -> DocumentKey { try DocumentKey(parsing: path) }
        func found(_ path: String, _ fields: [String: Value], at minute: Int64) throws -> Document {
            Document(key: try key(path), state: .found, version: time(minute), readTime: time(minute), data: ObjectValue(fields))
        }
        let names = ["ada", "grace", "alan", "edsger", "barbara", "donald", "ken", "dennis", "margaret", "john"]
        var userDocuments: [Document] = []
        for i in 0..<users {
            let name = names[i % names.count]
            var fields: [String: Value] = [
                "name": .string("\(name.capitalized) \(i)"), "age": .integer(Int64(20 + random.below(50))),
                "score": .double(Double(random.below(1000)) / 8), "joined": .timestamp(time(Int64(random.below(100_000)))),
                "avatar": .bytes((0..<8).map { _ in UInt8(random.below(256)) }),
                "home": .geoPoint(GeoPoint(latitude: Double(random.below(180)) - 90, longitude: Double(random.below(360)) - 180)),
                "tags": .array([.string(names[random.below(names.count)]), .integer(Int64(i)), .null, .boolean(i % 2 == 0)]),
                "address": .map(ObjectValue(["city": .string("City \(random.below(20))"), "zip": .integer(Int64(10_000 + i))])),
            ]
            if i > 0 { fields["manager"] = .reference(DatabaseID(projectID: "demo"), try key("users/u\(i / 2)")) }
            userDocuments.append(try found("users/u\(i)", fields, at: Int64(i)))
        }
        try store.applyRemoteDocuments(userDocuments)
        for room in 1...4 {
            try store.applyRemoteDocuments([try found("rooms/r\(room)", ["title": .string("Room \(room)")], at: 200)])
            try store.applyRemoteDocuments(try (1...(6 * room)).map { m in
                try found("rooms/r\(room)/messages/m\(m)", [
                    "text": .string(String(repeating: "hello \(m) ", count: 1 + random.below(6))),
                    "from": .string(names[random.below(names.count)]), "at": .timestamp(time(Int64(300 + m))),
                ], at: Int64(300 + m))
            })
        }
        // Newer versions of half the users: their first versions become dead bytes.
        try store.applyRemoteDocuments(userDocuments.prefix(users / 2).enumerated().map { i, old in
            var data = old.data
            data.fields["score"] = .double(Double(i) + 0.5)
            return Document(key: old.key, state: .found, version: time(1000 + Int64(i)), readTime: time(1000 + Int64(i)), data: data)
        })
        try store.applyRemoteDocuments([
            Document(key: try key("users/u\(users - 1)"), state: .noDocument, version: time(1200), readTime: time(1200)),
        ])
        // Targets: all users, rooms, and one room's messages (removed later, its documents evicted).
        let queries = [
            Query(path: try ResourcePath(parsing: "users")),
            Query(path: try ResourcePath(parsing: "rooms")),
            try Query(path: try ResourcePath(parsing: "rooms/r4/messages")).limited(to: 10),
        ]
        var targetIDs: [Int32] = []
        for (i, query) in queries.enumerated() {
            var data = try store.allocateTarget(query)
            data.resumeToken = Array("token-\(i)".utf8)
            data.snapshotVersion = time(1300 + Int64(i))
            let members = try store.executeQuery(query).map(\.key)
            try store.updateTarget(data, added: Set(members), removed: [])
            try store.releaseTarget(data.targetID, keepPersisted: false)
            targetIDs.append(data.targetID)
        }
        try store.setLastRemoteSnapshotVersion(time(1302))
        try store.removeTarget(targetIDs[2])
        try store.evictDocuments(try (1...10).map { try key("rooms/r4/messages/m\($0)") })
        // The outbox: the unauthenticated user's batch is acknowledged; ada's second is rejected.
        let first = try store.writeLocally([.set(try key("users/u0"), value: ObjectValue(["name": .string("Ada L.")]))], localWriteTime: time(1400))
        let batch = try store.nextMutationBatch(after: nil)!
        try store.acknowledgeBatch(try MutationBatchResult(batch: batch, commitVersion: time(1401), mutationResults: [MutationResult(version: time(1401))]))
        try store.switchUser(to: "ada")
        try store.writeLocally([
            .patch(try key("users/u1"), value: ObjectValue(["name": .string("Grace H.")]), mask: FieldMask([FieldPath(segments: ["name"])]),
                   transforms: [FieldTransform(field: FieldPath(segments: ["age"]), operation: .increment(.integer(1)))]),
            .set(try key("rooms/r5"), value: ObjectValue(["title": .string("Room 5"), "opened": .timestamp(time(1410))])),
        ], localWriteTime: time(1410))
        let rejected = try store.writeLocally([.delete(try key("rooms/r1"))], localWriteTime: time(1420))
        try store.rejectBatch(rejected.batchID)
        try store.writeLocally([.set(try key("rooms/r2/messages/m99"), value: ObjectValue(["text": .string("offline hello"), "score": .double(.nan)]))],
                               localWriteTime: time(1430))
        try store.switchUser(to: "")
        try store.writeLocally([.delete(try key("users/u3"))], localWriteTime: time(1440))
        try store.setWriteStreamToken(Array("stream-ada".utf8), forUser: "ada")
        // Field indexes: a first configuration replaced by the final one (its record is retired), automatic
        // creation on, and a backfill stopped partway, as an app's timer leaves it.
        try store.setIndexConfiguration(
            json: #"{"indexes": [{"collectionGroup": "users", "fields": [{"fieldPath": "name", "order": "ASCENDING"}]}]}"#)
        try store.setIndexAutoCreationEnabled(true)
        try store.setIndexConfiguration(json: """
            {"indexes": [
              {"collectionGroup": "users", "queryScope": "COLLECTION",
               "fields": [{"fieldPath": "age", "order": "ASCENDING"}, {"fieldPath": "tags", "arrayConfig": "CONTAINS"}]},
              {"collectionGroup": "messages", "queryScope": "COLLECTION_GROUP",
               "fields": [{"fieldPath": "from", "order": "ASCENDING"}, {"fieldPath": "at", "order": "DESCENDING"}]}
            ]}
            """)
        try store.backfillIndexes(maxDocuments: users / 2)
        print("built a cache in \(directory): \(store.documentCount) documents; batch \(first.batchID) acknowledged, "
              + "batch \(rejected.batchID) rejected")
        for status in store.fieldIndexStatuses {
            let total = status.documentsBackfilled + status.documentsToBackfill
            print("index \(status.index.canonicalID): backfilled \(status.documentsBackfilled) of \(total) document(s), "
                  + "\(status.entryCount) entries (in memory only: every open backfills again)")
        }
    }
}
