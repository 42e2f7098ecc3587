import CairnCore
import CairnCoreTestSupport
import CairnModel
import Foundation
import Testing

@testable import Cairn

/// Listeners and gets through the public API, on the real core over the scripted server: delivery on the
/// callback queue, removal, errors, and the `Source` rules of gets.
@Suite("API listeners and gets over the core")
struct APIListenTests {
    @Test("Listeners get snapshots on the settings' dispatch queue, with the documents the query selects")
    func listenerDelivery() {
        let env = APITestEnvironment(manualWorker: true)
        let onQueue = Recorder<Bool>()
        let ids = Recorder<[String]>()
        let query = env.db.collection("c").whereField("n", isGreaterThan: 1)
        let registration = query.addSnapshotListener(includeMetadataChanges: true) { snapshot, error in
            onQueue.append(env.isOnCallbackQueue)
            ids.append(snapshot?.documents.map(\.documentID) ?? ["error"])
        }
        env.db.collection("c").document("a").setData(["n": 2], completion: nil)
        env.db.collection("c").document("b").setData(["n": 1], completion: nil)
        env.settle()
        #expect(ids.values.contains(["a"]))
        registration.remove()
        #expect(!ids.values.contains { $0.contains("b") || $0 == ["error"] }, "b does not match n > 1")
        #expect(onQueue.values.allSatisfy { $0 })
    }

    @Test("remove() stops delivery at once, even of events already queued")
    func removal() async throws {
        let env = APITestEnvironment()
        try await env.db.disableNetwork()  // offline, the first snapshot comes from the cache at once
        let seen = Recorder<Int>()
        env.queue.suspend()
        let registration = env.db.collection("c").addSnapshotListener { snapshot, _ in seen.append(snapshot?.count ?? -1) }
        try env.db.client().get().queue.enqueueAndWait {}  // the core has raised the first snapshot onto the suspended queue
        registration.remove()
        env.queue.resume()
        env.flush()
        #expect(seen.values.isEmpty)
    }

    @Test("An error is delivered once and ends the listen")
    func errorEndsListen() {
        let env = APITestEnvironment(manualWorker: true)
        env.server.script.withLock { $0.listenError = FirestoreErrorCode(.permissionDenied, "no") }
        let errors = Recorder<FirestoreErrorCode?>()
        env.db.document("c/d").addSnapshotListener { _, error in errors.append(error as? FirestoreErrorCode) }
        env.settle()
        #expect(!errors.values.isEmpty)
        env.db.document("c/d").setData(["x": 1], completion: nil)
        env.settle()
        #expect(errors.values.map { $0?.code } == [.permissionDenied], "nothing after the error")
    }

    @Test("Document listeners see existence and pending writes of their document")
    func documentListener() throws {
        let env = APITestEnvironment(manualWorker: true)
        env.db.disableNetwork()
        let snapshots = Recorder<DocumentSnapshot>()
        env.db.document("c/d").addSnapshotListener(options: SnapshotListenOptions().withSource(.cache)) { snapshot, _ in
            if let snapshot { snapshots.append(snapshot) }
        }
        env.db.document("c/d").setData(["x": 1], completion: nil)
        env.settle()
        #expect(snapshots.values.contains { $0.exists })
        env.db.document("c/d").delete(completion: nil)
        env.settle()
        #expect(snapshots.values.last?.exists == false && snapshots.values.count >= 3)
        let found = try #require(snapshots.values.first { $0.exists })
        #expect(found.metadata == SnapshotMetadata(hasPendingWrites: true, isFromCache: true))
        #expect(found.get("x") as? Int == 1)
    }

    @Test("getDocument: offline answers and errors follow the source, with Firebase's messages")
    func getDocumentSources() async throws {
        let env = APITestEnvironment()
        try await env.db.disableNetwork()
        let ref = env.db.document("c/d")
        await #expect(throws: FirestoreErrorCode(.unavailable, "Failed to get document because the client is offline.")) {
            _ = try await ref.getDocument()
        }
        await #expect(throws: FirestoreErrorCode.self) { _ = try await ref.getDocument(source: .cache) }
        ref.setData(["x": 1], completion: nil)
        do {
            _ = try await ref.getDocument(source: .server)
            Issue.record("a server get was answered from the cache")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .unavailable && error.message.hasPrefix("Failed to get document from server."))
        }
        let cached = try await ref.getDocument(source: .cache)
        #expect(cached.exists && cached.metadata == SnapshotMetadata(hasPendingWrites: true, isFromCache: true))
        ref.delete(completion: nil)
        #expect(try await ref.getDocument(source: .cache).exists == false)
    }

    @Test("getDocuments: cache reads run the query on the cache; server reads refuse cached results")
    func getDocumentsSources() async throws {
        let env = APITestEnvironment()
        try await env.db.disableNetwork()
        for (id, n) in [("a", 3), ("b", 1), ("c", 2)] {
            env.db.document("c/\(id)").setData(["n": n], completion: nil)
        }
        let query = env.db.collection("c").order(by: "n").limit(to: 2)
        let cached = try await query.getDocuments(source: .cache)
        #expect(cached.documents.map(\.documentID) == ["b", "c"])
        #expect(cached.metadata.isFromCache)
        await #expect(throws: FirestoreErrorCode.self) { _ = try await query.getDocuments(source: .server) }
        try await env.db.enableNetwork()
        let online = try await query.getDocuments()
        #expect(!online.metadata.isFromCache, "the server answered")
    }

    @Test("snapshots yields each snapshot until the loop ends")
    func asyncSequence() async throws {
        let env = APITestEnvironment()
        try await env.db.disableNetwork()
        let query = env.db.collection("c")
        let task = Task {
            var counts: [Int] = []
            for try await snapshot in query.snapshots {
                counts.append(snapshot.count)
                if counts.count == 1 { env.db.document("c/a").setData([:], completion: nil) }
                if counts.count == 2 { break }
            }
            return counts
        }
        #expect(try await task.value == [0, 1])
    }

    @Test("Snapshots-in-sync listeners run on registration and after each sync, until removed")
    func snapshotsInSync() {
        let env = APITestEnvironment(manualWorker: true)
        let calls = Recorder<Bool>()
        let registration = env.db.addSnapshotsInSyncListener { calls.append(env.isOnCallbackQueue) }
        let listener = env.db.collection("c").addSnapshotListener { _, _ in }
        env.db.document("c/a").setData([:], completion: nil)
        env.settle()
        #expect(calls.values.count >= 2)
        registration.remove()
        let count = calls.values.count
        env.db.document("c/b").setData([:], completion: nil)
        env.settle()
        listener.remove()
        #expect(calls.values.count == count)
        #expect(calls.values.allSatisfy { $0 })
    }
}
