import CairnModel
import Dispatch
import Synchronization
import Testing
@testable import Cairn

@Suite("Source semantics of one-time reads")
struct SourceTests {
    typealias F = CoreFixtures

    private func error(_ result: Result<ViewSnapshot, FirestoreErrorCode>?) -> FirestoreErrorCode? {
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test("a document the cache does not know is unavailable from the cache, with Firebase's message")
    func unknownDocumentFromCache() throws {
        let harness = try SourceTestClient()
        let result = harness.result { harness.client.getDocument(key: F.key("rooms/a"), source: .cache, completion: $0) }
        let failure = try #require(error(result))
        #expect(failure.code == .unavailable)
        #expect(failure.message == FirestoreClient.documentNotInCacheMessage)
        #expect(failure.message.hasPrefix("Failed to get document from cache. (However, this document may exist"))
    }

    @Test("a pending write is readable from the cache, with pending writes")
    func writtenDocumentFromCache() throws {
        let harness = try SourceTestClient()
        let key = F.key("rooms/a")
        harness.client.write(mutations: [.set(key, value: ObjectValue(["n": .integer(1)]))]) { _ in }
        let snapshot = try #require(try harness.result {
            harness.client.getDocument(key: key, source: .cache, completion: $0)
        }?.get())
        #expect(snapshot.documents.document(key)?.data == ObjectValue(["n": .integer(1)]))
        #expect(snapshot.isFromCache)
        #expect(snapshot.hasPendingWrites)
    }

    @Test("a query from the cache answers with what is cached, possibly nothing")
    func queryFromCache() throws {
        let harness = try SourceTestClient()
        let empty = try #require(try harness.result { harness.client.getDocuments(query: F.rooms, source: .cache, completion: $0) }?.get())
        #expect(empty.documents.isEmpty)
        #expect(empty.isFromCache)
        harness.client.write(mutations: [.set(F.key("rooms/b"), value: ObjectValue())]) { _ in }
        let one = try #require(try harness.result { harness.client.getDocuments(query: F.rooms, source: .cache, completion: $0) }?.get())
        #expect(one.documents.keys == [F.key("rooms/b")])
    }

    @Test("offline, a default get of an unknown document fails: the client is offline")
    func offlineDefaultGet() throws {
        let harness = try SourceTestClient()
        _ = harness.result { harness.client.disableNetwork(completion: $0) }
        let result = harness.result { harness.client.getDocument(key: F.key("rooms/a"), source: .default, completion: $0) }
        let failure = try #require(error(result))
        #expect(failure.code == .unavailable)
        #expect(failure.message == "Failed to get document because the client is offline.")
    }

    @Test("offline, a default get answers from the cache; a server get fails with unavailable")
    func offlineServerGet() throws {
        let harness = try SourceTestClient()
        let key = F.key("rooms/a")
        harness.client.write(mutations: [.set(key, value: ObjectValue())]) { _ in }
        _ = harness.result { harness.client.disableNetwork(completion: $0) }
        let cached = try #require(try harness.result { harness.client.getDocument(key: key, source: .default, completion: $0) }?.get())
        #expect(cached.isFromCache)
        #expect(cached.documents.contains(key))
        let server = harness.result { harness.client.getDocument(key: key, source: .server, completion: $0) }
        #expect(error(server)?.message == FirestoreClient.documentOnlyInCacheMessage)
        let query = harness.result { harness.client.getDocuments(query: F.rooms, source: .server, completion: $0) }
        #expect(error(query)?.code == .unavailable)
        #expect(error(query)?.message == FirestoreClient.documentsOnlyInCacheMessage)
    }

    @Test("while the client may be online, a default get waits for the server")
    func onlineDefaultGetWaits() throws {
        let harness = try SourceTestClient()
        let result = harness.result { harness.client.getDocument(key: F.key("rooms/a"), source: .default, completion: $0) }
        #expect(result == nil)
    }
}

@Suite("Source semantics on a production queue")
struct SourceProductionQueueTests {
    @Test("a client on its own serial queue answers a cache read and a write through the same rules")
    func productionQueue() throws {
        let client = try FirestoreClient(datastore: SilentDatastore(), persistence: .memory)
        let key = CoreFixtures.key("rooms/a")
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<[Result<ViewSnapshot, FirestoreErrorCode>]>([])
        client.getDocument(key: key, source: .cache) { result in
            outcome.withLock { $0.append(result) }
            done.signal()
        }
        client.write(mutations: [.set(key, value: ObjectValue())]) { _ in }
        client.getDocument(key: key, source: .cache) { result in
            outcome.withLock { $0.append(result) }
            done.signal()
        }
        // A hang guard only: the reads answer as soon as the worker runs them.
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(done.wait(timeout: .now() + 30) == .success)
        let results = outcome.withLock { $0 }
        #expect(results.count == 2)
        if case .failure(let error) = results.first { #expect(error.code == .unavailable) } else { Issue.record("first read succeeded") }
        #expect((try? results.last?.get())?.hasPendingWrites == true)
        client.terminate { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success)
    }
}
