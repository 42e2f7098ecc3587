import CairnModel
import Foundation
import Testing

@testable import Cairn

@Suite("API listeners and gets over the client bridge")
struct APIListenTests {
    private func view(_ query: CairnModel.Query, _ documents: [CairnModel.Document], fromCache: Bool,
                      mutated: Set<DocumentKey> = []) -> ViewSnapshotData {
        .initial(query: query, documents: documents, isFromCache: fromCache, mutatedKeys: mutated, excludesMetadataChanges: false)
    }

    @Test("Listeners get snapshots on the settings' dispatch queue, with the options they asked for")
    func listenerDelivery() throws {
        let env = APITestEnvironment()
        let onQueue = Recorder<Bool>()
        let counts = Recorder<Int>()
        let query = env.db.collection("c").whereField("n", isGreaterThan: 1)
        query.addSnapshotListener(includeMetadataChanges: true) { snapshot, error in
            onQueue.append(env.isOnCallbackQueue)
            counts.append(snapshot?.count ?? -1)
        }
        let listen = try #require(env.bridge.listens.first)
        #expect(listen.options == ClientListenOptions(includeMetadataChanges: true))
        #expect(listen.query == (try query.state.get()))
        env.bridge.emit(.success(view(listen.query, [fakeDocument("c/a", ["n": .integer(2)])], fromCache: true)))
        env.bridge.emit(.success(view(listen.query, [], fromCache: false)))
        env.flush()
        #expect(counts.values == [1, 0])
        #expect(onQueue.values == [true, true])
    }

    @Test("remove() stops delivery at once, even of events already queued, and stops the bridge's listen")
    func removal() throws {
        let env = APITestEnvironment()
        let seen = Recorder<Int>()
        let registration = env.db.collection("c").addSnapshotListener { snapshot, _ in seen.append(snapshot?.count ?? -1) }
        let query = try #require(env.bridge.listens.first).query
        env.queue.suspend()
        env.bridge.emit(.success(view(query, [], fromCache: true)))
        registration.remove()
        env.queue.resume()
        env.flush()
        #expect(seen.values.isEmpty)
        #expect(env.bridge.listens.first?.removed == true)
    }

    @Test("An error is delivered once and ends the listen")
    func errorEndsListen() throws {
        let env = APITestEnvironment()
        let errors = Recorder<FirestoreErrorCode?>()
        env.db.document("c/d").addSnapshotListener { _, error in errors.append(error as? FirestoreErrorCode) }
        let query = try #require(env.bridge.listens.first).query
        env.bridge.emit(.failure(FirestoreErrorCode(.permissionDenied, "no")))
        env.bridge.emit(.success(view(query, [], fromCache: true)))
        env.flush()
        #expect(errors.values.map { $0?.code } == [.permissionDenied])
        #expect(env.bridge.listens.first?.removed == true)
    }

    @Test("Document listeners see existence and pending writes of their document")
    func documentListener() throws {
        let env = APITestEnvironment()
        let snapshots = Recorder<DocumentSnapshot>()
        env.db.document("c/d").addSnapshotListener(options: SnapshotListenOptions().withSource(.cache)) { snapshot, _ in
            if let snapshot { snapshots.append(snapshot) }
        }
        let listen = try #require(env.bridge.listens.first)
        #expect(listen.options.source == .cache && listen.query.isDocumentQuery)
        let document = fakeDocument("c/d", ["x": .integer(1)])
        env.bridge.emit(.success(view(listen.query, [document], fromCache: true, mutated: [document.key])))
        env.bridge.emit(.success(view(listen.query, [], fromCache: false)))
        env.flush()
        #expect(snapshots.values.map(\.exists) == [true, false])
        #expect(snapshots.values.first?.metadata == SnapshotMetadata(hasPendingWrites: true, isFromCache: true))
        #expect(snapshots.values.first?.get("x") as? Int == 1)
    }

    @Test("getDocument: offline answers and errors follow the source, with Firebase's messages")
    func getDocumentSources() async throws {
        let env = APITestEnvironment()
        let ref = env.db.document("c/d")
        let document = fakeDocument("c/d", ["x": .integer(1)], local: true)

        let missing = Task { try await ref.getDocument() }
        try await waitForListen(env, count: 1)
        env.bridge.emit(.success(view(try ref.documentQuery.get(), [], fromCache: true)), toListen: 0)
        await #expect(throws: FirestoreErrorCode(.unavailable, "Failed to get document because the client is offline.")) {
            _ = try await missing.value
        }
        #expect(env.bridge.listens[0].removed && env.bridge.listens[0].options == Firestore.getOptions)

        let fromServer = Task { try await ref.getDocument(source: .server) }
        try await waitForListen(env, count: 2)
        env.bridge.emit(.success(view(try ref.documentQuery.get(), [document], fromCache: true)), toListen: 1)
        do {
            _ = try await fromServer.value
            Issue.record("a server get was answered from the cache")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .unavailable && error.message.hasPrefix("Failed to get document from server."))
        }

        await #expect(throws: FirestoreErrorCode.self) { _ = try await ref.getDocument(source: .cache) }
        env.bridge.state.withLock { $0.cache[document.key] = document }
        let cached = try await ref.getDocument(source: .cache)
        #expect(cached.exists && cached.metadata == SnapshotMetadata(hasPendingWrites: true, isFromCache: true))
        env.bridge.state.withLock { $0.cache[document.key]?.state = .noDocument }
        #expect(try await ref.getDocument(source: .cache).exists == false)
    }

    @Test("getDocuments: cache reads run the query on the cache; server reads refuse cached results")
    func getDocumentsSources() async throws {
        let env = APITestEnvironment()
        env.bridge.state.withLock { state in
            for (id, n) in [("a", 3), ("b", 1), ("c", 2)] as [(String, Int64)] {
                let document = fakeDocument("c/\(id)", ["n": .integer(n)])
                state.cache[document.key] = document
            }
        }
        let query = env.db.collection("c").order(by: "n").limit(to: 2)
        let cached = try await query.getDocuments(source: .cache)
        #expect(cached.documents.map(\.documentID) == ["b", "c"])
        #expect(cached.metadata.isFromCache)

        let server = Task { try await query.getDocuments(source: .server) }
        try await waitForListen(env, count: 1)
        env.bridge.emit(.success(view(try query.state.get(), [], fromCache: true)))
        await #expect(throws: FirestoreErrorCode.self) { _ = try await server.value }

        let online = Task { try await query.getDocuments() }
        try await waitForListen(env, count: 2)
        env.bridge.emit(.success(view(try query.state.get(), [], fromCache: false)), toListen: 1)
        #expect(try await online.value.isEmpty)
    }

    @Test("snapshots yields each snapshot and removes the listener when the loop ends")
    func asyncSequence() async throws {
        let env = APITestEnvironment()
        let query = env.db.collection("c")
        let task = Task {
            var counts: [Int] = []
            for try await snapshot in query.snapshots {
                counts.append(snapshot.count)
                if counts.count == 2 { break }
            }
            return counts
        }
        try await waitForListen(env, count: 1)
        let model = try query.state.get()
        env.bridge.emit(.success(view(model, [fakeDocument("c/a", [:])], fromCache: true)))
        env.bridge.emit(.success(view(model, [], fromCache: false)))
        #expect(try await task.value == [1, 0])
        env.flush()
        #expect(env.bridge.listens[0].removed)
    }

    @Test("Snapshots-in-sync listeners run on registration and after each sync, until removed")
    func snapshotsInSync() {
        let env = APITestEnvironment()
        let calls = Recorder<Bool>()
        let registration = env.db.addSnapshotsInSyncListener { calls.append(env.isOnCallbackQueue) }
        env.bridge.raiseInSync()
        env.flush()
        registration.remove()
        env.bridge.raiseInSync()
        env.flush()
        #expect(calls.values == [true, true])
    }

    /// Waits (without timing assumptions beyond a generous bound) until the bridge has `count` listens.
    private func waitForListen(_ env: APITestEnvironment, count: Int) async throws {
        for _ in 0..<10_000 where env.bridge.listens.count < count {
            await Task.yield()
            try await Task.sleep(nanoseconds: 100_000)
        }
        try #require(env.bridge.listens.count >= count)
    }
}
