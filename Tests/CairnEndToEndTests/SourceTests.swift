import CairnCoreTestSupport
import CairnCore
import CairnModel
import Testing

@testable import Cairn

/// The `Source` rules of one-time reads, on the path apps take: `DocumentReference.getDocument(source:)` and
/// `Query.getDocuments(source:)` over the real core and a network that never answers (``SilentDatastore``), so the
/// client stays online-unknown until the test disables the network.
@Suite("Source semantics of one-time reads")
struct SourceTests {
    static let documentNotInCache =
        "Failed to get document from cache. (However, this document may exist on the server. Run again without "
        + "setting source to FirestoreSourceCache to attempt to retrieve the document from the server.)"
    static let clientOffline = "Failed to get document because the client is offline."
    static let documentOnlyInCache =
        "Failed to get document from server. (However, this document does exist in the local cache. Run again "
        + "without setting source to FirestoreSourceServer to retrieve the cached document.)"
    static let documentsOnlyInCache =
        "Failed to get documents from server. (However, these documents may exist in the local cache. Run again "
        + "without setting source to FirestoreSourceServer to retrieve the cached documents.)"

    /// Runs `body` with a Firestore instance on the real core (memory cache) over a ``SilentDatastore``.
    private func withSilentNetwork(_ body: (Firestore) async throws -> Void) async throws {
        let env = EndToEndEnvironment(cache: .memoryEager, prefix: "source", datastore: { _, _ in SilentDatastore() })
        do {
            try await body(env.db)
        } catch {
            await env.tearDown()
            throw error
        }
        await env.tearDown()
    }

    /// The Firestore error `call` throws, nil when it succeeds.
    private func error(_ call: () async throws -> Void) async -> FirestoreErrorCode? {
        do {
            try await call()
            return nil
        } catch {
            return error as? FirestoreErrorCode
        }
    }

    @Test("a document the cache does not know is unavailable from the cache, with Firebase's message")
    func unknownDocumentFromCache() async throws {
        try await withSilentNetwork { db in
            let failure = try #require(await error { _ = try await db.document("rooms/a").getDocument(source: .cache) })
            #expect(failure.code == .unavailable)
            #expect(failure.message == Self.documentNotInCache)
            #expect(failure.message.hasPrefix("Failed to get document from cache. (However, this document may exist"))
        }
    }

    @Test("a pending write is readable from the cache, with pending writes")
    func writtenDocumentFromCache() async throws {
        try await withSilentNetwork { db in
            let ref = db.document("rooms/a")
            ref.setData(["n": 1], completion: nil)
            let snapshot = try await ref.getDocument(source: .cache)
            #expect(snapshot.data()?["n"] as? Int64 == 1)
            #expect(snapshot.metadata.isFromCache)
            #expect(snapshot.metadata.hasPendingWrites)
        }
    }

    @Test("a query from the cache answers with what is cached, possibly nothing")
    func queryFromCache() async throws {
        try await withSilentNetwork { db in
            let rooms = db.collection("rooms")
            let empty = try await rooms.getDocuments(source: .cache)
            #expect(empty.isEmpty)
            #expect(empty.metadata.isFromCache)
            rooms.document("b").setData([:], completion: nil)
            let one = try await rooms.getDocuments(source: .cache)
            #expect(one.documents.map(\.documentID) == ["b"])
        }
    }

    @Test("offline, a default get of an unknown document fails: the client is offline")
    func offlineDefaultGet() async throws {
        try await withSilentNetwork { db in
            try await db.disableNetwork()
            let failure = try #require(await error { _ = try await db.document("rooms/a").getDocument(source: .default) })
            #expect(failure.code == .unavailable)
            #expect(failure.message == Self.clientOffline)
        }
    }

    @Test("offline, a default get answers from the cache; a server get fails with unavailable")
    func offlineServerGet() async throws {
        try await withSilentNetwork { db in
            let ref = db.document("rooms/a")
            ref.setData([:], completion: nil)
            try await db.disableNetwork()
            let cached = try await ref.getDocument(source: .default)
            #expect(cached.metadata.isFromCache)
            #expect(cached.exists)
            let server = await error { _ = try await ref.getDocument(source: .server) }
            #expect(server?.message == Self.documentOnlyInCache)
            let query = await error { _ = try await db.collection("rooms").getDocuments(source: .server) }
            #expect(query?.code == .unavailable)
            #expect(query?.message == Self.documentsOnlyInCache)
        }
    }

    @Test("while the client may be online, a default get waits for the server")
    func onlineDefaultGetWaits() async throws {
        try await withSilentNetwork { db in
            let ref = db.document("rooms/a")
            let answers = Inbox<FirestoreErrorCode?>()
            let clock = ContinuousClock()
            let asked = clock.now
            ref.getDocument(source: .default) { _, error in answers.put(error as? FirestoreErrorCode) }
            // A cache read queued after the get runs after it on the worker and answers after it on the callback
            // queue: had the get answered from the cache, its answer would be here by now. The online-state timer
            // (armed after the get started) ends the wait legitimately after 10 s, which a loaded machine can
            // reach: only an answer seen sooner than that is wrong.
            _ = await error { _ = try await ref.getDocument(source: .cache) }
            let early = answers.pending
            if clock.now - asked < .seconds(OnlineStateTracker.onlineStateTimeout) {
                #expect(early.isEmpty, "the default get answered before the server or the online-state timer")
            }
            try await db.disableNetwork()
            let answer = try #require(await answers.next())
            #expect(answer?.message == Self.clientOffline)
        }
    }

    @Test("reads and writes queued back to back are answered in order, through the same rules")
    func readsAndWritesInOrder() async throws {
        try await withSilentNetwork { db in
            let ref = db.document("rooms/a")
            let answers = Inbox<(DocumentSnapshot?, FirestoreErrorCode?)>()
            ref.getDocument(source: .cache) { snapshot, error in answers.put((snapshot, error as? FirestoreErrorCode)) }
            ref.setData([:], completion: nil)
            ref.getDocument(source: .cache) { snapshot, error in answers.put((snapshot, error as? FirestoreErrorCode)) }
            let before = try #require(await answers.next())
            #expect(before.1?.code == .unavailable)
            let after = try #require(await answers.next())
            #expect(after.0?.metadata.hasPendingWrites == true)
        }
    }
}
