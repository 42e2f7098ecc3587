import CairnCoreTestSupport
import CairnCore
import Cairn
import Foundation
import CairnLocalStore
import Testing

/// The persistent cache through the public API: what survives a restart, who owns a cache directory, and when
/// `clearPersistence()` may delete it. (LocalStore is imported only to play another process holding a cache.)
@Suite("End to end: persistence")
struct EndToEndPersistenceTests {
    @Test("Writes queued offline survive a restart: the data and the outbox are there, unacknowledged")
    func restartKeepsDataAndOutbox() async throws {
        let env = EndToEndEnvironment()
        let acknowledged = Inbox<String>()
        let cities = env.db.collection("cities")
        cities.document("SF").setData(["name": "San Francisco", "visits": 1]) { _ in acknowledged.put("set") }
        cities.document("SF").updateData(["visits": FieldValue.increment(Int64(2))], completion: nil)
        let batch = env.db.batch()
        batch.setData(["name": "Oslo", "updated": FieldValue.serverTimestamp()], forDocument: cities.document("OSL"))
        batch.deleteDocument(cities.document("LA"))
        batch.commit { _ in acknowledged.put("batch") }
        env.db.waitForPendingWrites { _ in acknowledged.put("wait") }
        // A cache read queued after the writes: by then the writes are applied but nothing is acknowledged.
        let before = try await cities.getDocuments(source: .cache)
        #expect(before.documents.map(\.documentID) == ["OSL", "SF"])
        #expect(acknowledged.pending.isEmpty, "nothing completes without a backend")

        try await env.restart()
        let after = try await env.db.collection("cities").getDocuments(source: .cache)
        #expect(after.documents.map(\.documentID) == ["OSL", "SF"])
        #expect(after.documents.allSatisfy { $0.metadata.hasPendingWrites }, "the outbox survived the restart")
        let sf = try #require(after.documents.last)
        #expect(sf.get("visits") as? Int64 == 3)
        #expect(after.documents.first?.get("updated", serverTimestampBehavior: .estimate) is Timestamp)
        #expect(after.documents.first?.get("updated") is NSNull, "a pending server timestamp reads as null")
        let waitAfterRestart = Inbox<String>()
        env.db.waitForPendingWrites { _ in waitAfterRestart.put("wait") }
        _ = try await env.db.collection("cities").getDocuments(source: .cache)
        #expect(waitAfterRestart.pending.isEmpty, "waitForPendingWrites does not complete offline")
        #expect(acknowledged.pending.isEmpty)
        await env.tearDown()
    }

    @Test("A second instance on the same cache directory fails with failedPrecondition")
    func oneOwnerPerDirectory() async throws {
        let first = EndToEndEnvironment()
        first.db.collection("a").document("b").setData(["x": 1], completion: nil)
        _ = try await first.db.collection("a").getDocuments(source: .cache)
        let second = EndToEndEnvironment(directory: first.directory)
        do {
            _ = try await second.db.collection("a").getDocuments(source: .cache)
            Issue.record("a second instance opened a cache directory in use")
        } catch {
            #expect(firestoreCode(error) == .failedPrecondition)
            #expect("\(error)".contains("already in use"))
        }
        await second.tearDown()
        await first.tearDown()
    }

    @Test("A cache locked by another owner (another process's store) is failedPrecondition, not a crash")
    func cacheLockedElsewhere() async throws {
        let env = EndToEndEnvironment()
        try FileManager.default.createDirectory(at: env.directory, withIntermediateDirectories: true)
        let owner = try LocalStore.open(at: env.directory.path)
        do {
            _ = try await env.db.collection("a").getDocuments(source: .cache)
            Issue.record("an instance opened a cache locked by another owner")
        } catch {
            #expect(firestoreCode(error) == .failedPrecondition)
            #expect("\(error)".contains("in use by another process"))
        }
        try owner.close()
        await env.tearDown()
    }

    @Test("A new instance may start while the terminated one is still closing the same cache")
    func reopenWhileTerminating() async throws {
        let env = EndToEndEnvironment()
        env.db.collection("a").document("b").setData(["x": 1], completion: nil)
        try await env.restart(waitForTermination: false)
        let document = try await env.db.collection("a").document("b").getDocument(source: .cache)
        #expect(document.get("x") as? Int64 == 1)
        #expect(document.metadata.hasPendingWrites)
        await env.tearDown()
    }

    @Test("clearPersistence fails while the instance runs and deletes the cache once it is terminated")
    func clearPersistenceAfterTerminate() async throws {
        let env = EndToEndEnvironment()
        env.db.collection("a").document("b").setData(["x": 1], completion: nil)
        _ = try await env.db.collection("a").getDocuments(source: .cache)
        await #expect(throws: FirestoreErrorCode.self) { try await env.db.clearPersistence() }
        #expect(FileManager.default.fileExists(atPath: env.directory.path))
        // Not waiting for terminate: clearPersistence waits for the core to close the cache.
        env.db.terminate(completion: nil)
        try await env.db.clearPersistence()
        #expect(!FileManager.default.fileExists(atPath: env.directory.path))
        await env.tearDown()
    }
}
