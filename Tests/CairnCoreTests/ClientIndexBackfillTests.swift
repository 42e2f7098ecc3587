import CairnCoreTestSupport
import CairnLocalStore
import CairnModel
import Testing

@testable import CairnCore

@Suite("Client index backfill")
struct ClientIndexBackfillTests {
    @Test("a backfill slice on the client's queue stops after one document when another operation waits for the queue")
    func sliceYieldsToWaitingOperation() throws {
        let queue = AsyncQueue.manual()
        let client = try FirestoreClient(
            datastore: UnreachableDatastore(databaseID: DatabaseID(projectID: "backfill"), queue: queue),
            persistence: .memory, queue: queue)
        let time = Timestamp(seconds: 1, nanoseconds: 0)
        let documents = try (0..<30).map { number in
            Document(
                key: try DocumentKey(parsing: "items/d\(number)"), state: .found, version: time, readTime: time,
                data: ObjectValue(["n": .integer(Int64(number))]))
        }
        let configuration = #"{"indexes": [{"collectionGroup": "items", "queryScope": "COLLECTION", "fields": [{"fieldPath": "n", "order": "ASCENDING"}]}], "fieldOverrides": []}"#
        let counts = try queue.sync { () -> Result<[Int], any Error> in
            Result {
                _ = try client.localStore.applyRemoteDocuments(documents)
                try client.localStore.setIndexConfiguration(json: configuration)
                queue.enqueue {}
                let behindWaitingWork = try client.backfillIndexes()
                return [behindWaitingWork]
            }
        }.get()
        #expect(counts == [1])
        // The waiting operation has run: later slices index the rest, then find nothing left.
        var indexed = counts[0]
        while case let slice = try queue.sync({ Result { try client.backfillIndexes() } }).get(), slice > 0 {
            indexed += slice
        }
        #expect(indexed == documents.count)
    }
}
