import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Garbage collection: crash consistency")
struct GarbageCollectionCrashTests: MutationQueueTesting {
    /// 150 letters that LZ4 cannot squeeze, different for each document: evicting a document must free more
    /// than its eviction record takes, and compacting the superseded versions alone must not be enough.
    static func filler(_ i: Int) -> String {
        var random = SeededRandom(seed: UInt64(i))
        return String((0..<150).map { _ in Character(Unicode.Scalar(UInt8(97 + random.below(26)))) })
    }

    /// A closed cache to collect: 30 old orphans (2 versions each), an inactive target holding 8 documents,
    /// the rooms target with 5 members, and pending writes of two users on old documents.
    func base() throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let halls = Query(path: ResourcePath(segments: ["halls"]))
        _ = try store.allocateTarget(halls)
        try addToTarget(store, halls, (0..<8).map { "halls/h\($0)" }, at: 5)
        try store.releaseTarget(try #require(store.targetData(for: halls)).targetID, keepPersisted: false)
        for version in 1...2 {
            for i in 0..<30 {
                try store.applyRemoteDocuments([found("old/o\(i)", version: Int64(version), ["f": .string(Self.filler(i))])])
            }
        }
        _ = try store.allocateTarget(roomsQuery())
        try addToTarget(store, roomsQuery(), (0..<5).map { "rooms/r\($0)" }, at: 10)
        _ = try store.writeLocally([updateData("old/o1", ["mine": .integer(1)])], localWriteTime: time(20))
        try store.switchUser(to: "bob")
        _ = try store.writeLocally([updateData("old/o2", ["bobs": .integer(2)])], localWriteTime: time(21))
        try store.close()
        return fs
    }

    /// One session: the rooms target active again, its view showing old/o0, then a collection to a quarter of
    /// the bytes on disk.
    @discardableResult
    func collect(_ store: LocalStore) throws -> GarbageCollectionResult {
        let rooms = try store.allocateTarget(roomsQuery()).targetID
        store.notifyLocalViewChanges(targetID: rooms, added: [key("old/o0")], removed: [])
        return try store.collectGarbage(threshold: Int64(segmentLog(of: store).statistics.fileBytes / 4))
    }

    /// What must survive any crash during the collection; throws when the cache does not open. Then what is
    /// gone stays gone through compactions (which retire removal records) and a restart.
    func expectAcknowledgedState(_ fs: SimulatedFileSystem, _ context: String) throws {
        let gone = try checkRecovered(fs, context)
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        defer { try? store.close() }
        for path in gone { #expect(try store.remoteDocument(key(path)) == nil, "\(path) came back: \(context)") }
    }

    /// Checks the recovered cache, collects and compacts it, and returns the old documents it no longer holds.
    func checkRecovered(_ fs: SimulatedFileSystem, _ context: String) throws -> [String] {
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        defer { try? store.close() }
        #expect(store.pendingBatchIDs == [1], "\(context)")
        #expect(try store.localDocument(key("old/o1"))?.data.fields["mine"] == .integer(1), "\(context)")
        try store.switchUser(to: "bob")
        #expect(store.pendingBatchIDs == [2], "\(context)")
        #expect(try store.localDocument(key("old/o2"))?.data.fields["bobs"] == .integer(2), "\(context)")
        let rooms = try #require(store.targetData(for: roomsQuery()), "\(context)")
        #expect(store.remoteKeys(forTarget: rooms.targetID).count == 5, "\(context)")
        #expect(try store.executeQuery(roomsQuery()).count == 5, "\(context)")
        #expect(try store.remoteDocument(key("old/o0")) != nil, "pinned by the view: \(context)")
        // Every other document is either gone or whole; a removed target took its membership with it.
        for i in 0..<30 {
            if let document = try store.remoteDocument(key("old/o\(i)")) {
                #expect(document.version == time(2) && document.data.fields["f"] == .string(Self.filler(i)), "\(context)")
            }
        }
        let halls = Query(path: ResourcePath(segments: ["halls"]))
        if let data = store.targetData(for: halls) {
            #expect(store.remoteKeys(forTarget: data.targetID).count == 8, "\(context)")
        }
        // The cache keeps working: a later collection runs.
        #expect(try store.collectGarbage(threshold: 0, maxRounds: 1).rounds == 1, "\(context)")
        while try store.compact(minimumDeadRatio: 0.01) != nil {}
        return try (0..<30).map { "old/o\($0)" }.filter { try store.remoteDocument(key($0)) == nil }
    }

    @Test("a crash at any I/O operation of a collection loses no pending write, active target or pinned document")
    func crashAtEveryOperation() throws {
        let base = try base()
        let clean = base.crashImage(.keepUnsyncedData, seed: 0)
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(clean))
            let result = try collect(store)
            #expect(result.targetsRemoved == 1 && result.documentsEvicted >= 20, "\(result)")
            try store.close()
        }
        try expectAcknowledgedState(clean.crashImage(.keepUnsyncedData, seed: 0), "clean run")
        let operations = clean.operationCount
        #expect(operations > 30, "the collection appends and compacts: \(operations) operations")

        var crashed = 0
        for crashPoint in 1...operations {
            let fs = base.crashImage(.keepUnsyncedData, seed: 0)
            fs.crashAtOperation = crashPoint
            do {
                let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
                try collect(store)
                try store.close()
            } catch {
                #expect(fs.isCrashed, "only the crash may fail the collection: \(error)")
            }
            guard fs.isCrashed else { continue }
            crashed += 1
            for model in [CrashModel.dropUnsyncedData, .keepUnsyncedData, .randomPrefix] {
                try expectAcknowledgedState(fs.crashImage(model, seed: UInt64(crashPoint)), "crash at \(crashPoint) (\(model))")
            }
        }
        #expect(crashed == operations, "every operation was a crash point")
    }
}
