import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection: pins and removals that last")
struct GarbageCollectionPinTests: MutationQueueTesting {
    func document(_ path: String) -> Query { Query(path: ResourcePath(segments: path.split(separator: "/").map(String.init))) }

    @Test("local views, pending writes of any user, active and limbo targets pin documents; releases unpin them")
    func pins() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        for i in 0..<20 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .integer(Int64(i))])]) }
        // o0: shown by the rooms view; o1: bob's pending write; o2: in an active limbo-resolution target;
        // o3: shown by the halls view, which is released later.
        let rooms = try store.allocateTarget(roomsQuery()).targetID
        let halls = try store.allocateTarget(Query(path: ResourcePath(segments: ["halls"]))).targetID
        store.notifyLocalViewChanges(targetID: rooms, added: [key("old/o0")], removed: [])
        store.notifyLocalViewChanges(targetID: halls, added: [key("old/o3")], removed: [])
        try store.switchUser(to: "bob")
        _ = try store.writeLocally([updateData("old/o1", ["g": .integer(1)])], localWriteTime: time(3))
        try store.switchUser(to: "")
        var limbo = try store.allocateTarget(document("old/o2"))
        limbo.purpose = .limboResolution
        limbo.resumeToken = [1]
        try store.updateTarget(limbo, added: [key("old/o2")], removed: [])
        #expect(store.localViewReferences(of: rooms) == [key("old/o0")])

        try store.collectGarbage(threshold: 0)
        func present() throws -> [Int] { try (0..<20).filter { try store.remoteDocument(key("old/o\($0)")) != nil } }
        #expect(try present() == [0, 1, 2, 3])

        store.notifyLocalViewChanges(targetID: rooms, added: [], removed: [key("old/o0")])
        try store.releaseTarget(halls, keepPersisted: false)
        #expect(store.localViewReferences(of: halls).isEmpty, "a released target's references go")
        try store.releaseTarget(limbo.targetID, keepPersisted: false)
        try store.collectGarbage(threshold: 0)
        #expect(try present() == [1], "only bob's pending write still pins")
        #expect(store.targetData(for: document("old/o2")) == nil && store.targetData(for: roomsQuery()) != nil)
        try store.close()
    }

    @Test("references notified for a target that is not active are ignored")
    func inactiveTargetReferences() throws {
        let store = LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: 0))
        try store.applyRemoteDocuments([found("old/a", version: 1, [:])])
        store.notifyLocalViewChanges(targetID: 40, added: [key("old/a")], removed: [])
        #expect(store.localViewReferences(of: 40).isEmpty)
        #expect(try store.collectGarbage(threshold: 0).documentsEvicted == 1)
    }

    @Test("evicted documents and removed targets stay gone through compaction and restarts")
    func noResurrection() throws {
        let fs = SimulatedFileSystem()
        var store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let filler = String(repeating: "q", count: 200)
        _ = try store.allocateTarget(roomsQuery())
        try addToTarget(store, roomsQuery(), (0..<10).map { "rooms/r\($0)" }, at: 10)
        try store.releaseTarget(try #require(store.targetData(for: roomsQuery())).targetID, keepPersisted: false)
        for round in 0..<3 {
            for i in 0..<40 { try store.applyRemoteDocuments([found("old/o\(i)", version: Int64(round + 1), ["f": .string(filler)])]) }
        }
        let result = try store.collectGarbage(threshold: Int64(segmentLog(of: store).statistics.fileBytes / 4))
        #expect(result.targetsRemoved == 1 && result.documentsEvicted > 0, "\(result)")
        func state(_ store: LocalStore) throws -> [String] {
            let old = try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).map { "\($0.key) v\($0.version.seconds)" }
            let members = try store.executeQuery(roomsQuery()).map { "\($0.key)" }
            return old + members + ["target \(String(describing: store.targetData(for: roomsQuery())?.targetID))"]
        }
        let expected = try state(store)
        #expect(expected.count < 51, "something was collected")
        for _ in 0..<3 {
            try store.close()
            store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            #expect(try state(store) == expected)
            // More writes and compactions over the evictions' segments.
            try store.applyRemoteDocuments([found("new/n", version: 1, ["f": .string(filler)])])
            while try store.compact(minimumDeadRatio: 0.01) != nil {}
        }
        try store.close()
    }

    @Test("eviction and target-removal records retire once every segment older than them is compacted away")
    func removalRecordsRetire() throws {
        let fs = SimulatedFileSystem()
        var store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let filler = String(repeating: "w", count: 200)
        for i in 0..<30 { try store.applyRemoteDocuments([found("old/o\(i)", version: 1, ["f": .string(filler)])]) }
        _ = try store.allocateTarget(roomsQuery())
        try addToTarget(store, roomsQuery(), (0..<4).map { "rooms/r\($0)" }, at: 10)
        let target = try #require(store.targetData(for: roomsQuery())).targetID
        try store.releaseTarget(target, keepPersisted: false)
        try store.removeTarget(target)
        try store.evictDocuments((0..<30).map { key("old/o\($0)") })
        #expect(store.liveRemovalRecordCount == 31)
        func removalRecordsInLog() throws -> Int {
            var count = 0
            try segmentLog(of: store).scan { record in
                if record.kind == EventKind.documentEvicted.rawValue || record.kind == EventKind.targetRemoved.rawValue { count += 1 }
            }
            return count
        }
        #expect(try removalRecordsInLog() == 31)
        // Every other record is superseded again and again, so every old segment ends up compacted away.
        var version: Int64 = 20
        for round in 0..<40 where store.liveRemovalRecordCount > 0 {
            version += 1
            try store.applyRemoteDocuments((0..<4).map { found("rooms/r\($0)", version: version, ["f": .string(filler)]) })
            try store.setSessionToken([UInt8(round)])
            while try store.compact(minimumDeadRatio: 0.01) != nil {}
        }
        #expect(store.liveRemovalRecordCount == 0, "every removal retired")
        while try store.compact(minimumDeadRatio: 0.01) != nil {}
        #expect(try removalRecordsInLog() == 0, "and compaction dropped them")
        try store.close()
        store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(try store.executeQuery(Query(path: ResourcePath(segments: ["old"]))).isEmpty, "nothing evicted came back")
        #expect(store.targetData(for: roomsQuery()) == nil && store.remoteKeys(forTarget: target).isEmpty)
        #expect(try store.executeQuery(roomsQuery()).count == 4)
        #expect(try store.allocateTarget(roomsQuery()).targetID > target, "the removed target's id stays used")
        try store.close()
    }

    @Test("an eviction outlives a segment that still holds an older record of its document, even when its own is compacted")
    func removalWaitsForOldSegments() throws {
        let fs = SimulatedFileSystem()
        var store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        var random = SeededRandom(seed: 11)
        // Incompressible bodies, so segments fill and roll.
        func filler() -> String { String((0..<300).map { _ in Character(UnicodeScalar(UInt8(97 + random.below(26)))) }) }
        // The victim's record shares its segments with documents that stay live, so they never get dirty enough.
        try store.applyRemoteDocuments([found("old/victim", version: 1, ["f": .integer(1)])])
        for i in 0..<40 { try store.applyRemoteDocuments([found("keep/k\(i)", version: 1, ["f": .string(filler())])]) }
        try store.evictDocuments([key("old/victim")])
        // The eviction's own segments fill with churn that dies, so they are compacted again and again.
        for round in 1...12 {
            for i in 0..<10 { try store.applyRemoteDocuments([found("churn/c\(i)", version: Int64(round), ["f": .string(filler())])]) }
            while try store.compact(minimumDeadRatio: 0.1) != nil {}
        }
        #expect(store.liveRemovalRecordCount == 1, "an older segment may still hold the victim's record")
        try store.close()
        store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(try store.remoteDocument(key("old/victim")) == nil, "the evicted document stays gone")
        #expect(try store.executeQuery(Query(path: ResourcePath(segments: ["keep"]))).count == 40)
        try store.close()
    }
}
