import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Component registry")
struct ComponentRegistryTests {
    @Test("every event kind has exactly one owning component, and the registry dispatches it there")
    func everyKindHasOneOwner() throws {
        let store = LocalStore.inMemory()
        for kind in EventKind.allCases {
            let owners = store.registry.components.filter { type(of: $0).eventKinds.contains(kind) }
            #expect(owners.count == 1, "event kind \(kind) has \(owners.count) owners")
            let owner = try #require(store.registry.owner(of: kind), "event kind \(kind) has no owner in the registry")
            #expect(owners.first === owner)
            let ownerType = try #require(ComponentRegistry.ownerType(of: kind))
            let replayingType: any StoreComponent.Type = type(of: owner)
            #expect(
                ObjectIdentifier(ownerType) == ObjectIdentifier(replayingType),
                "inspection decodes \(kind) with the component that replays it")
        }
    }

    @Test("the index manager finishes replay after the remote documents it backfills from")
    func replayOrder() throws {
        let store = LocalStore.inMemory()
        let order = store.registry.components.map { ObjectIdentifier($0) }
        let documents = try #require(order.firstIndex(of: ObjectIdentifier(store.documentCache)))
        let indexes = try #require(order.firstIndex(of: ObjectIdentifier(store.indexManager)))
        #expect(documents < indexes)
    }

    /// Live records of the log the store must hold: every kind but batch removals, which stay live for good.
    func expectLiveRecordsHeld(_ store: LocalStore, _ moment: String) throws {
        let log = try #require(store.events.log)
        var live = 0
        try log.scan { record in
            if record.kind != EventKind.mutationBatchRemoved.rawValue && !log.isRetired(record.location) { live += 1 }
        }
        let held = store.registry.components.reduce(0) { $0 + $1.liveEventCount } + store.compactionCoordinator.removals.count
        #expect(held == live, "\(moment): the components hold \(held) records, the log has \(live) live")
    }

    @Test("what the components report as live is exactly what the log keeps live, before and after compaction and replay")
    func liveRecordsHaveOneHolder() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        try store.applyRemoteDocuments((0..<40).map { found("rooms/r\($0)", version: 1, ["n": .integer(Int64($0))]) })
        try store.applyRemoteDocuments([found("rooms/r1", version: 2, ["n": .integer(10)])])
        try store.applyRemoteDocuments([Document(key: key("rooms/r2"), state: .noDocument, version: time(3))])
        try store.evictDocuments([key("rooms/r3"), key("rooms/r6")])
        var room = try store.allocateTarget(roomsQuery())
        room.resumeToken = [1]
        room.snapshotVersion = time(4)
        room = try store.updateTarget(room, added: [key("rooms/r4"), key("rooms/r5")], removed: [])
        room.resumeToken = [2]
        try store.updateTarget(room, added: [], removed: [key("rooms/r4")])
        let other = try store.allocateTarget(roomsQuery(sizeAbove: 3))
        try store.updateTarget(other, added: [key("rooms/r7")], removed: [])
        try store.releaseTarget(other.targetID, keepPersisted: false)
        try store.removeTarget(other.targetID)
        let index = #"{"indexes": [{"collectionGroup": "rooms", "queryScope": "COLLECTION", "fields": [{"fieldPath": "n", "order": "ASCENDING"}]}]}"#
        try store.setIndexConfiguration(json: index)
        try store.setIndexAutoCreationEnabled(true)
        let first = try store.writeLocally([.set(key("rooms/new"), value: ObjectValue(["n": .integer(1)]))], localWriteTime: time(5)).batchID
        try store.writeLocally([.delete(key("rooms/r8"))], localWriteTime: time(6))
        try store.rejectBatch(first)
        try store.setSessionToken([7])
        try store.saveNamedQuery(NamedQuery(name: "rooms", query: roomsQuery(), readTime: time(7)))
        try store.saveNamedQuery(NamedQuery(name: "rooms", query: roomsQuery(sizeAbove: 1), readTime: time(8)))
        try store.saveBundleMetadata(BundleMetadata(id: "b", createTime: time(9), version: 1, totalDocuments: 1, totalBytes: 10))
        try expectLiveRecordsHeld(store, "after the writes")
        try store.compact(minimumDeadRatio: 0.01)
        try expectLiveRecordsHeld(store, "after compaction")
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        try expectLiveRecordsHeld(reopened, "after replay")
        try reopened.close()
    }
}
