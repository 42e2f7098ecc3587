import CairnCoreTestSupport
import CairnCore
import Cairn
import Foundation
import Testing

/// The public API on the real core with no backend (the default `UnreachableDatastore`), used as an app uses it:
/// listeners, writes, gets by source and queries, all answered by the cache.
@Suite("End to end: offline")
struct EndToEndOfflineTests {
    private static let notFound = UInt(NSNotFound)

    @Test("Listener events carry isFromCache, hasPendingWrites and indexed changes, on the dispatch queue")
    func listenerEvents() async throws {
        let env = EndToEndEnvironment()
        let events = Inbox<(QueryEvent, Bool)>()
        let cities = env.db.collection("cities")
        let registration = cities.order(by: "population").addSnapshotListener { snapshot, error in
            #expect(error == nil)
            if let snapshot { events.put((QueryEvent(snapshot, includeMetadataChanges: false), env.isOnCallbackQueue)) }
        }
        let first = try #require(await events.next())
        #expect(first.0 == QueryEvent.expect([], [], pending: false))
        #expect(first.1, "callbacks run on settings.dispatchQueue")

        cities.document("LA").setData(["name": "Los Angeles", "population": 4], completion: nil)
        let added = try #require(await events.next())
        #expect(added.0 == QueryEvent.expect(["LA"], [.init(type: .added, id: "LA", oldIndex: Self.notFound, newIndex: 0)]))

        cities.document("SF").setData(["name": "San Francisco", "population": 1], completion: nil)
        let second = try #require(await events.next())
        #expect(second.0 == QueryEvent.expect(
            ["SF", "LA"], [.init(type: .added, id: "SF", oldIndex: Self.notFound, newIndex: 0)]))

        cities.document("LA").updateData(["population": 0], completion: nil)
        let moved = try #require(await events.next())
        #expect(moved.0 == QueryEvent.expect(["LA", "SF"], [.init(type: .modified, id: "LA", oldIndex: 1, newIndex: 0)]))

        cities.document("SF").delete(completion: nil)
        let removed = try #require(await events.next())
        #expect(removed.0 == QueryEvent.expect(["LA"], [.init(type: .removed, id: "SF", oldIndex: 1, newIndex: Self.notFound)]))
        #expect(removed.1)
        registration.remove()
        await env.tearDown()
    }

    @Test("Gets by source: cache miss, offline default, server while offline, and cached documents")
    func sourceSemantics() async throws {
        let env = EndToEndEnvironment()
        let missing = env.db.collection("cities").document("nowhere")
        let cacheMiss = await Self.get(missing, source: .cache)
        #expect(firestoreCode(cacheMiss.1) == .unavailable)
        #expect((cacheMiss.1 as? FirestoreErrorCode)?.message.hasPrefix("Failed to get document from cache.") == true)
        let offline = await Self.get(missing, source: .default)
        #expect(firestoreCode(offline.1) == .unavailable)
        #expect((offline.1 as? FirestoreErrorCode)?.message == "Failed to get document because the client is offline.")

        let tokyo = env.db.collection("cities").document("TOK")
        tokyo.setData(["name": "Tokyo"], completion: nil)
        let cached = await Self.get(tokyo, source: .cache)
        #expect(cached.0?.data()?["name"] as? String == "Tokyo")
        #expect(cached.0?.metadata.isFromCache == true)
        #expect(cached.0?.metadata.hasPendingWrites == true)
        let byDefault = await Self.get(tokyo, source: .default)
        #expect(byDefault.0?.get("name") as? String == "Tokyo")
        let server = await Self.get(tokyo, source: .server)
        #expect(firestoreCode(server.1) == .unavailable)
        #expect((server.1 as? FirestoreErrorCode)?.message.hasPrefix("Failed to get document from server.") == true)
        await env.tearDown()
    }

    @Test("Queries are answered from the cache offline, possibly empty; server-only queries fail")
    func queriesFromCache() async throws {
        let env = EndToEndEnvironment()
        let cities = env.db.collection("cities")
        let empty = try await cities.getDocuments(source: .cache)
        #expect(empty.isEmpty && empty.metadata.isFromCache)
        for (id, state, population) in [("SF", "CA", 870), ("LA", "CA", 3900), ("NY", "NY", 8400)] {
            cities.document(id).setData(["state": state, "population": population], completion: nil)
        }
        let california = try await cities.whereField("state", isEqualTo: "CA").order(by: "population", descending: true)
            .getDocuments()
        #expect(california.documents.map(\.documentID) == ["LA", "SF"])
        #expect(california.metadata.isFromCache && california.metadata.hasPendingWrites)
        await #expect(throws: FirestoreErrorCode.self) { try await cities.getDocuments(source: .server) }
        await env.tearDown()
    }

    @Test("A memory cache with eager GC serves listeners, writes and cache gets, and writes no files")
    func memoryEagerCache() async throws {
        try await Self.checkMemoryCache(EndToEndEnvironment(cache: .memoryEager))
    }

    @Test("A memory cache with LRU GC serves listeners, writes and cache gets, and writes no files")
    func memoryLRUCache() async throws {
        try await Self.checkMemoryCache(EndToEndEnvironment(cache: .memoryLRU(2 << 20)))
    }

    private static func checkMemoryCache(_ env: EndToEndEnvironment) async throws {
        let events = Inbox<QueryEvent>()
        let registration = env.db.collection("notes").addSnapshotListener { snapshot, _ in
            if let snapshot { events.put(QueryEvent(snapshot, includeMetadataChanges: false)) }
        }
        #expect(await events.next()?.ids == [])
        env.db.collection("notes").document("n1").setData(["text": "hello"], completion: nil)
        #expect(await events.next()?.ids == ["n1"])
        let note = try await env.db.collection("notes").document("n1").getDocument(source: .cache)
        #expect(note.get("text") as? String == "hello")
        #expect(!FileManager.default.fileExists(atPath: env.directory.path), "a memory cache writes no files")
        registration.remove()
        await env.tearDown()
    }

    @Test("Snapshots-in-sync listeners run once at registration and after the listener events of each change")
    func snapshotsInSync() async throws {
        let env = EndToEndEnvironment()
        let order = Inbox<String>()
        let sync = env.db.addSnapshotsInSyncListener { order.put("sync") }
        #expect(await order.next() == "sync")
        let listener = env.db.collection("a").addSnapshotListener { snapshot, _ in
            if let snapshot { order.put("event \(snapshot.count)") }
        }
        #expect(await order.next() == "event 0")
        #expect(await order.next() == "sync")
        env.db.collection("a").document("b").setData(["x": 1], completion: nil)
        #expect(await order.next() == "event 1")
        #expect(await order.next() == "sync")
        listener.remove()
        sync.remove()
        await env.tearDown()
    }

    @Test("Codable values round-trip through a real write and read")
    func codableRoundTrip() async throws {
        struct City: Codable, Equatable {
            var name: String
            var population: Int
            var tags: [String]
            var founded: Timestamp
            var location: GeoPoint?
        }
        let env = EndToEndEnvironment()
        let city = City(
            name: "Lisbon", population: 545_000, tags: ["coast", "hills"],
            founded: Timestamp(seconds: 1_000_000, nanoseconds: 5_000), location: GeoPoint(latitude: 38.7, longitude: -9.1))
        let reference = env.db.collection("cities").document("LIS")
        try reference.setData(from: city)
        let read = try await reference.getDocument(source: .cache).data(as: City.self)
        #expect(read == city)
        await env.tearDown()
    }

    @Test("Bad index JSON is invalidArgument; a valid configuration is accepted")
    func indexConfiguration() async throws {
        let env = EndToEndEnvironment()
        await #expect(throws: FirestoreErrorCode.self) { try await env.db.setIndexConfiguration("{not json") }
        do {
            try await env.db.setIndexConfiguration("{\"indexes\": 3}")
            Issue.record("a configuration whose indexes are not a list was accepted")
        } catch {
            #expect(firestoreCode(error) == .invalidArgument)
        }
        try await env.db.setIndexConfiguration(
            #"{"indexes": [{"collectionGroup": "cities", "queryScope": "COLLECTION", "fields": "#
                + #"[{"fieldPath": "population", "order": "ASCENDING"}]}], "fieldOverrides": []}"#)
        await env.tearDown()
    }

    private static func get(_ reference: DocumentReference, source: FirestoreSource) async -> (DocumentSnapshot?, Error?) {
        await withCheckedContinuation { continuation in
            reference.getDocument(source: source) { snapshot, error in
                continuation.resume(returning: UncheckedBox((snapshot, error)))
            }
        }.value
    }
}

extension QueryEvent {
    /// An event as the offline tests expect it: from the cache, with pending writes unless told otherwise.
    static func expect(_ ids: [String], _ changes: [Change], pending: Bool = true) -> QueryEvent {
        QueryEvent(ids: ids, changes: changes, isFromCache: true, hasPendingWrites: pending)
    }

    init(ids: [String], changes: [Change], isFromCache: Bool, hasPendingWrites: Bool) {
        self.ids = ids
        self.changes = changes
        self.isFromCache = isFromCache
        self.hasPendingWrites = hasPendingWrites
    }
}
