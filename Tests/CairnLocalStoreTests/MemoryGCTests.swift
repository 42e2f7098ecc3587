import CairnModel
import Testing
@testable import CairnLocalStore

@Suite("Memory cache garbage collection")
struct MemoryGCTests: MutationQueueTesting {
    func query(_ path: String) -> Query { Query(path: ResourcePath(segments: path.split(separator: "/").map(String.init))) }

    func cached(_ store: LocalStore, _ paths: [String]) throws -> [String] {
        try paths.filter { try store.remoteDocument(key($0)) != nil }
    }

    @Test("eager: releases, acknowledgements, rejections and dropped view references remove exactly the unreferenced documents")
    func eager() throws {
        let store = LocalStore.inMemory()
        #expect(store.memoryGarbageCollector == .eager)
        let all = ["rooms/a", "rooms/b", "rooms/c", "rooms/d", "rooms/e", "free/x"]
        _ = try store.allocateTarget(roomsQuery())
        _ = try store.allocateTarget(query("rooms/c"))
        let halls = try store.allocateTarget(query("halls")).targetID
        try addToTarget(store, roomsQuery(), ["rooms/a", "rooms/b", "rooms/c", "rooms/d", "rooms/e"], at: 10)
        try addToTarget(store, query("rooms/c"), ["rooms/c"], at: 11)
        try store.applyRemoteDocuments([found("free/x", version: 1, [:])])  // stored while nothing references it
        let (ack, _) = try store.writeLocally([updateData("rooms/d", ["n": .integer(1)])], localWriteTime: time(12))
        let (reject, _) = try store.writeLocally([updateData("rooms/e", ["n": .integer(2)])], localWriteTime: time(12))
        store.notifyLocalViewChanges(targetID: halls, added: [key("rooms/b")], removed: [])

        // Releasing rooms removes the target; a (nothing else) goes, b (halls view), c (its own target),
        // d and e (pending writes) stay.
        try store.releaseTarget(store.targetData(for: roomsQuery())!.targetID, keepPersisted: false)
        #expect(store.targetData(for: roomsQuery()) == nil, "an eager release removes the target")
        #expect(try cached(store, all) == ["rooms/b", "rooms/c", "rooms/d", "rooms/e", "free/x"])

        store.notifyLocalViewChanges(targetID: halls, added: [], removed: [key("rooms/b")])
        #expect(try cached(store, all) == ["rooms/c", "rooms/d", "rooms/e", "free/x"])

        let batch = try #require(try store.nextMutationBatch(after: nil))
        #expect(batch.batchID == ack)
        let views = try store.acknowledgeBatch(acknowledgement(batch, at: 20))
        #expect(views[key("rooms/d")]??.data.fields["n"] == .integer(1), "the returned view is computed before the removal")
        #expect(try cached(store, all) == ["rooms/c", "rooms/e", "free/x"])
        try store.rejectBatch(reject)
        #expect(try cached(store, all) == ["rooms/c", "free/x"])

        try store.releaseTarget(store.targetData(for: query("rooms/c"))!.targetID, keepPersisted: true)
        #expect(try cached(store, all) == ["rooms/c", "free/x"], "keepPersisted keeps the target and its documents")
        #expect(try store.collectGarbage(threshold: 0).rounds == 0, "eager mode has no LRU runs")
    }

    @Test("eager: a document leaving an active target goes unless a view still shows it")
    func membershipRemoval() throws {
        let store = LocalStore.inMemory()
        let rooms = try store.allocateTarget(roomsQuery()).targetID
        try addToTarget(store, roomsQuery(), ["rooms/a", "rooms/b"], at: 10)
        store.notifyLocalViewChanges(targetID: rooms, added: [key("rooms/b")], removed: [])
        try store.applyRemoteEvent(RemoteEvent(
            snapshotVersion: time(20), targetChanges: [rooms: .init(resumeToken: [2], removed: [key("rooms/a"), key("rooms/b")])]))
        #expect(try cached(store, ["rooms/a", "rooms/b"]) == ["rooms/b"])
        store.notifyLocalViewChanges(targetID: rooms, added: [], removed: [key("rooms/b")])
        #expect(try cached(store, ["rooms/a", "rooms/b"]).isEmpty)
    }

    @Test("eager: a locally written document a view shows survives its acknowledgement")
    func viewedWriteSurvivesAcknowledgement() throws {
        let store = LocalStore.inMemory()
        let rooms = try store.allocateTarget(roomsQuery()).targetID
        _ = try store.writeLocally([setData("rooms/a", ["n": .integer(1)])], localWriteTime: time(5))
        store.notifyLocalViewChanges(targetID: rooms, added: [key("rooms/a")], removed: [])
        let batch = try #require(try store.nextMutationBatch(after: nil))
        let views = try store.acknowledgeBatch(acknowledgement(batch, at: 10))
        #expect(views[key("rooms/a")]??.hasCommittedMutations == true)
        #expect(try store.remoteDocument(key("rooms/a"))?.version == time(10))
        #expect(try store.executeLocalQuery(roomsQuery()).map(\.key) == [key("rooms/a")])
        store.notifyLocalViewChanges(targetID: rooms, added: [], removed: [key("rooms/a")])
        #expect(try store.remoteDocument(key("rooms/a")) == nil, "no view, no target, no write: gone")
    }

    @Test("the estimated size counts each live event's key and value plus a fixed overhead")
    func estimate() throws {
        let store = LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: 1 << 20))
        let before = try #require(store.estimatedMemoryBytes)
        let document = found("rooms/a", version: 1, ["name": .string("a room with a long name")])
        try store.applyRemoteDocuments([document])
        let event = RemoteDocumentEvent.encode(document)
        let added = try #require(store.estimatedMemoryBytes) - before
        #expect(added == Int64(event.key.count + event.value.count + MemoryEventStore.entryOverhead))
        try store.evictDocuments([document.key])
        #expect(store.estimatedMemoryBytes == before, "an evicted document's bytes are gone")
    }

    @Test("LRU: a run brings the estimated size under the threshold and keeps active, viewed and pending documents")
    func lru() throws {
        let store = LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: 4000))
        let filler = String(repeating: "m", count: 200)
        for i in 0..<60 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .string(filler)])]) }
        _ = try store.allocateTarget(roomsQuery())
        try addToTarget(store, roomsQuery(), (0..<5).map { "rooms/r\($0)" }, at: 10)
        let halls = try store.allocateTarget(query("halls")).targetID
        store.notifyLocalViewChanges(targetID: halls, added: [key("old/o0")], removed: [])
        _ = try store.writeLocally([updateData("old/o1", ["n": .integer(1)])], localWriteTime: time(12))
        let size = try #require(store.estimatedMemoryBytes)
        let threshold = size / 3
        let result = try store.collectGarbage(threshold: threshold)
        let after = try #require(store.estimatedMemoryBytes)
        #expect(result.bytesBefore == UInt64(size) && result.bytesAfter == UInt64(after))
        #expect(result.bytesAfter <= UInt64(threshold) && result.documentsEvicted > 0, "\(result)")
        #expect(try cached(store, (0..<5).map { "rooms/r\($0)" } + ["old/o0", "old/o1"]).count == 7)
        #expect(try store.collectGarbage(threshold: LocalStore.cacheSizeUnlimited).rounds == 0)
    }
}

/// A memory cache that keeps everything until told to collect (LRU mode, never run): the model that suites
/// written before eager collection compare the persistent cache with.
func keepingMemoryStore() -> LocalStore {
    LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: LocalStore.cacheSizeUnlimited))
}
