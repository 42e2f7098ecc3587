import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Remote events")
struct RemoteEventTests {
    func event(_ seconds: Int64, token: [UInt8], target: Int32, added: [String], documents: [Document]) -> RemoteEvent {
        RemoteEvent(
            snapshotVersion: time(seconds),
            targetChanges: [target: .init(resumeToken: token, added: Set(added.map(key)))],
            documentUpdates: byKey(documents))
    }

    /// What a remote event changes, as text.
    func state(_ store: LocalStore, _ query: Query) throws -> String {
        let data = store.targetData(for: query)
        let keys = data.map { store.remoteKeys(forTarget: $0.targetID).map(\.description).sorted() } ?? []
        let docs = try store.executeQuery(Query(path: ResourcePath(segments: ["rooms"]))).map {
            "\($0.key)@\($0.version.seconds)/r\($0.readTime.seconds)"
        }
        return "token \(data?.resumeToken ?? []) v\(data?.snapshotVersion.seconds ?? -1) keys \(keys) docs \(docs) "
            + "last \(store.lastRemoteSnapshotVersion.seconds)"
    }

    @Test("a remote event updates the target, its documents and the snapshot version, and all of it survives a restart")
    func appliesAndPersists() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let target = try store.allocateTarget(roomsQuery()).targetID
        let changed = try store.applyRemoteEvent(event(10, token: [7], target: target, added: ["rooms/a", "rooms/b"], documents: [
            found("rooms/a", version: 8, ["size": .integer(1)]), found("rooms/b", version: 9, ["size": .integer(2)]),
        ]))
        #expect(Set(changed.keys) == keySet("rooms/a", "rooms/b"))
        let expected = try state(store, roomsQuery())
        #expect(expected == "token [7] v10 keys [\"rooms/a\", \"rooms/b\"] docs [\"rooms/a@8/r10\", \"rooms/b@9/r10\"] last 10")
        try store.close()
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        _ = try reopened.allocateTarget(roomsQuery())
        #expect(try state(reopened, roomsQuery()) == expected)
        try reopened.close()
    }

    @Test("an event older than the last one is refused, and changes for inactive targets are ignored")
    func ordering() throws {
        let store = LocalStore.inMemory()
        let target = try store.allocateTarget(roomsQuery()).targetID
        try store.applyRemoteEvent(event(10, token: [1], target: target, added: [], documents: []))
        #expect(throws: LocalStoreError.self) {
            try store.applyRemoteEvent(event(5, token: [2], target: target, added: [], documents: []))
        }
        try store.releaseTarget(target, keepPersisted: true)
        try store.applyRemoteEvent(event(20, token: [3], target: target, added: ["rooms/x"], documents: []))
        #expect(store.remoteKeys(forTarget: target).isEmpty)
        #expect(store.lastRemoteSnapshotVersion == time(20))
    }

    @Test("a crash at any I/O operation of a remote event leaves all of it or none of it")
    func atomic() throws {
        let base = SimulatedFileSystem()
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(base))
            _ = try store.allocateTarget(roomsQuery())
            try store.close()
        }
        var outcomes: Set<String> = []
        for k in 1...40 {
            let disk = base.crashImage(.keepUnsyncedData, seed: 0)
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(disk))
            let target = try store.allocateTarget(roomsQuery()).targetID
            let before = try state(store, roomsQuery())
            disk.crashAtOperation = disk.operationCount + k
            var applied = false
            do {
                try store.applyRemoteEvent(event(10, token: [7], target: target, added: ["rooms/a"], documents: [
                    found("rooms/a", version: 8, ["size": .integer(1)]),
                ]))
                applied = true
            } catch {}
            let image = disk.crashImage(CrashModel.allCases[k % CrashModel.allCases.count], seed: UInt64(k))
            let recovered = try LocalStore.open(at: "/cache", configuration: smallLog(image))
            _ = try recovered.allocateTarget(roomsQuery())
            let after = try state(recovered, roomsQuery())
            let full = "token [7] v10 keys [\"rooms/a\"] docs [\"rooms/a@8/r10\"] last 10"
            #expect(after == before || after == full, "crash at operation \(k): \(after)")
            if applied { #expect(after == full, "an event that returned is durable (crash at \(k))") }
            outcomes.insert(after == full ? "all" : "none")
            try recovered.close()
            if applied { break }
        }
        #expect(outcomes == ["all", "none"], "both outcomes occur")
    }

    @Test("applyRemoteEvent returns the new local views of the documents it changed, pending writes applied")
    func returnsLocalViews() throws {
        let store = LocalStore.inMemory()
        let target = try store.allocateTarget(roomsQuery()).targetID
        try store.writeLocally(
            [.patch(key("rooms/a"), value: ObjectValue(["mine": .boolean(true)]), mask: FieldMask([FieldPath(segments: ["mine"])]))],
            localWriteTime: time(5))
        let changed = try store.applyRemoteEvent(event(10, token: [7], target: target, added: ["rooms/a", "rooms/b"], documents: [
            found("rooms/a", version: 8, ["size": .integer(1)]), found("rooms/b", version: 9, ["size": .integer(2)]),
        ]))
        #expect(Set(changed.keys) == keySet("rooms/a", "rooms/b"))
        let a = try #require(changed[key("rooms/a")] ?? nil)
        #expect(a.hasLocalMutations)
        #expect(a.data == ObjectValue(["size": .integer(1), "mine": .boolean(true)]))
        #expect(changed[key("rooms/b")]??.data == ObjectValue(["size": .integer(2)]))
    }

    @Test("a deletion at version 0 is among the changed documents even when the cache did not hold it")
    func synthesizedDeletion() throws {
        let store = LocalStore.inMemory()
        let missing = Document(key: key("rooms/gone"), state: .noDocument, version: TargetData.noSnapshotVersion)
        let changed = try store.applyRemoteEvent(RemoteEvent(snapshotVersion: time(3), documentUpdates: [missing.key: missing]))
        #expect(Array(changed.keys) == [missing.key])
        #expect(changed[missing.key]! == nil)
    }

    @Test("a target an existence filter contradicted is reset in the same atomic append as the rest of the event")
    func mismatchResetIsAtomic() throws {
        let base = SimulatedFileSystem()
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(base))
            let target = try store.allocateTarget(roomsQuery()).targetID
            try store.applyRemoteEvent(event(10, token: [7], target: target, added: ["rooms/a"], documents: [
                found("rooms/a", version: 8, ["size": .integer(1)]),
            ]))
            try store.close()
        }
        let before = "token [7] v10 keys [\"rooms/a\"] docs [\"rooms/a@8/r10\"] last 10"
        let full = "token [] v0 keys [\"rooms/a\"] docs [\"rooms/a@8/r10\", \"rooms/b@20/r20\"] last 20"
        var outcomes: Set<String> = []
        for k in 1...40 {
            let disk = base.crashImage(.keepUnsyncedData, seed: 0)
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(disk))
            let target = try store.allocateTarget(roomsQuery()).targetID
            #expect(try state(store, roomsQuery()) == before)
            disk.crashAtOperation = disk.operationCount + k
            var applied = false
            do {
                let b = found("rooms/b", version: 20, ["size": .integer(2)])
                try store.applyRemoteEvent(RemoteEvent(
                    snapshotVersion: time(20), targetMismatches: [target: .existenceFilterMismatch],
                    documentUpdates: [b.key: b]))
                applied = true
            } catch {}
            let image = disk.crashImage(CrashModel.allCases[k % CrashModel.allCases.count], seed: UInt64(k))
            let recovered = try LocalStore.open(at: "/cache", configuration: smallLog(image))
            _ = try recovered.allocateTarget(roomsQuery())
            let after = try state(recovered, roomsQuery())
            #expect(after == before || after == full, "crash at operation \(k): \(after)")
            if applied { #expect(after == full, "an event that returned is durable (crash at \(k))") }
            outcomes.insert(after == full ? "all" : "none")
            try recovered.close()
            if applied { break }
        }
        #expect(outcomes == ["all", "none"], "both outcomes occur")
    }
}
