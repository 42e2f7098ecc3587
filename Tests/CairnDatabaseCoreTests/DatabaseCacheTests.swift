import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnDatabaseCore

@Suite("Realtime Database cache: views rebuilt by replay, liveness, compaction")
struct DatabaseCacheTests {
    let paths = ["/", "a", "a/b", "a/b/c", "a/x", "d", "d/e"]

    /// A seeded random history of every record kind over a few paths.
    func history(seed: UInt64, count: Int) -> [[CacheRecord]] {
        var random = SeededRandom(seed: seed)
        let nodes = [#"{"b": {"c": 1, "z": 2}, "x": "s"}"#, #"{"c": 3}"#, "4", #"{"e": {"f": true}}"#, "null"]
        var batches: [[CacheRecord]] = []
        let query = QuerySpec(path: dbPath("a"), params: try! QueryParams().limited(toLast: 2))
        for step in 0..<count {
            let path = dbPath(paths[Int(random.next() % UInt64(paths.count))])
            let node = dbNode(nodes[Int(random.next() % UInt64(nodes.count))])
            let id = random.next() % 4 + 1
            switch random.next() % 8 {
            case 0, 1: batches.append([.serverOverwrite(path, node)])
            case 2: batches.append([.serverPruned(path)])
            case 3: batches.append([.trackedQuerySaved(id: id, query: query, isComplete: step % 2 == 0, isActive: step % 3 == 0)])
            case 4: batches.append([.trackedQueryRemoved(id: id), .serverPruned(path)])
            case 5: batches.append([.trackedKeysChanged(id: id, keys: Set(["b", "x", "\(step)"].prefix(Int(id))))])
            case 6: batches.append([.userWriteAdded(PersistedWrite(id: UInt64(step + 1), path: path, overwrite: node))])
            default: batches.append([.userWriteRemoved(id: UInt64(random.next() % UInt64(step + 1) + 1)), .serverOverwrite(path, node)])
            }
        }
        return batches
    }

    @Test("Replay rebuilds the state the commits left, also after compaction dropped the dead records", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func replayEqualsLiveState(seed: UInt64) throws {
        let fs = SimulatedFileSystem()
        let cache = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        for (index, batch) in history(seed: seed, count: 300).enumerated() {
            try cache.commit(batch)
            if index % 50 == 49 { try cache.compact() }
        }
        try cache.commit([.globals(session: 9)])
        let live = try describeCache(cache, paths: paths)
        let liveBytes = cache.liveBytes
        cache.close()
        let reopened = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        let replayed = try describeCache(reopened, paths: paths)
        #expect(replayed == live)
        #expect(reopened.liveBytes == liveBytes, "replay retires exactly what the commits retired")
        try reopened.compact()
        reopened.close()
        let again = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        let replayedAgain = try describeCache(again, paths: paths)
        #expect(replayedAgain == live)
    }

    @Test("Reading a path composes the nearest record above with the newer records below; a prune is unknown data")
    func composition() throws {
        let cache = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(SimulatedFileSystem()))
        try cache.commit([.serverOverwrite(dbPath("a"), dbNode(#"{"b": {"c": 1, "d": 2}, "e": 3}"#))])
        try cache.commit([.serverOverwrite(dbPath("a/b/c"), dbNode("9")), .serverPruned(dbPath("a/e"))])
        #expect(json(try cache.serverCache(at: dbPath("a"))) == #"{"b":{"c":9,"d":2}}"#)
        #expect(json(try cache.serverCache(at: dbPath("a/b"))) == #"{"c":9,"d":2}"#)
        #expect(json(try cache.serverCache(at: .root)) == #"{"a":{"b":{"c":9,"d":2}}}"#)
        // An overwrite above retires everything below it.
        try cache.commit([.serverOverwrite(dbPath("a"), dbNode(#"{"e": 5}"#))])
        #expect(json(try cache.serverCache(at: dbPath("a"))) == #"{"e":5}"#)
        #expect(json(try cache.serverCache(forKeys: ["e", "zz"], at: dbPath("a"))) == #"{"e":5}"#)
        cache.close()
    }

    @Test("Replay rebuilds the state the commits left when bounded compaction steps run between the commits, and a removal written during one keeps hiding the copies it made",
          arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func replayEqualsLiveStateWithCompactionSteps(seed: UInt64) throws {
        let fs = SimulatedFileSystem()
        let cache = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        var steps = 0
        for batch in history(seed: seed, count: 400) {
            try cache.commit(batch)
            if cache.isCompacting { steps += 1 }
            try cache.compactStep()
        }
        #expect(steps > 0, "compactions were in progress across commits")
        try cache.commit([.globals(session: 9)])
        let live = try describeCache(cache, paths: paths)
        let liveBytes = cache.liveBytes
        cache.close()
        let reopened = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        #expect(try describeCache(reopened, paths: paths) == live)
        #expect(reopened.liveBytes == liveBytes, "replay retires exactly what the commits retired")
        // Compacting until nothing is dirty drops every removal whose hidden records are gone.
        for _ in 0..<4 { try reopened.compact() }
        reopened.close()
        let again = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        #expect(try describeCache(again, paths: paths) == live)
        again.close()
    }

    @Test("A prune written while a compaction is in progress keeps hiding the copy the compaction made of the data it prunes, after the prune's own segment is compacted")
    func pruneDuringCompactionKeepsHidingTheCopy() throws {
        var random = SeededRandom(seed: 7)
        func filler(_ count: Int) -> Node {
            Node(leaf: .string(String((0..<count).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) })))
        }
        let fs = SimulatedFileSystem()
        let cache = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        try cache.commit([.serverOverwrite(dbPath("gone"), dbNode("1")), .serverOverwrite(dbPath("keep"), filler(1500))])
        for _ in 0..<8 { try cache.commit([.serverOverwrite(dbPath("junk"), filler(300))]) }
        _ = try cache.log.sealActiveSegment()
        // The first step copies the first frame, /gone's record among it; then /gone is pruned.
        try cache.compactStep(budget: 1)
        #expect(cache.isCompacting)
        try cache.commit([.serverPruned(dbPath("gone"))])
        while cache.isCompacting { try cache.compactStep() }
        // Dead records after the prune, so that the prune's segment is compacted and the copy's is not.
        for _ in 0..<12 { try cache.commit([.serverOverwrite(dbPath("junk2"), filler(300))]) }
        try cache.compact()
        #expect(json(try cache.serverCache(at: dbPath("gone"))) == "null")
        cache.close()
        let reopened = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        #expect(json(try reopened.serverCache(at: dbPath("gone"))) == "null", "the pruned data came back from the copy")
        #expect(try reopened.serverCache(at: dbPath("keep")).leafValue != nil)
        reopened.close()
    }

    @Test("A removal keeps hiding older records until compaction has dropped them, so nothing comes back")
    func removalsOutliveWhatTheyHide() throws {
        let fs = SimulatedFileSystem()
        let cache = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        try cache.commit([.serverOverwrite(dbPath("old/data"), dbNode(#"{"v": 1}"#)),
                          .trackedQuerySaved(id: 1, query: QuerySpec(path: dbPath("old")), isComplete: true, isActive: false),
                          .userWriteAdded(PersistedWrite(id: 1, path: dbPath("w"), overwrite: dbNode("1")))])
        _ = try cache.log.sealActiveSegment()
        try cache.commit([.serverPruned(dbPath("old")), .trackedQueryRemoved(id: 1), .userWriteRemoved(id: 1)])
        // Filler so that the segment with the removals is sealed and dirty enough to compact first.
        for index in 0..<40 { try cache.commit([.serverOverwrite(dbPath("filler"), dbNode("\(index)"))]) }
        _ = try cache.log.sealActiveSegment()
        try cache.compact()
        cache.close()
        let reopened = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        #expect(json(try reopened.serverCache(at: dbPath("old"))) == "null")
        #expect(reopened.trackedQueries.isEmpty)
        #expect(reopened.writes.isEmpty)
        try reopened.compact()
        #expect(reopened.liveBytes < 200, "once the hidden records are gone, the removals are dead too: \(reopened.liveBytes)")
        reopened.close()
    }

    @Test("Files the cache creates are private: the directory 0700, every file 0600")
    func filesArePrivate() throws {
        let directory = temporaryCacheDirectory() + "/nested/cache"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try DatabaseCache.open(at: directory)
        try cache.commit([.serverOverwrite(dbPath("a"), dbNode("1"))])
        cache.close()
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let mode = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(name)")
        }
    }

    @Test("A second opener of the directory gets a locked error naming the owner")
    func secondOpener() throws {
        let directory = temporaryCacheDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = try DatabaseCache.open(at: directory)
        let error = #expect(throws: PersistenceError.self) { try DatabaseCache.open(at: directory) }
        #expect(error?.code == .locked)
        #expect(error?.message.contains("pid \(getpid())") == true)
        cache.close()
        try DatabaseCache.open(at: directory).close()
    }
}
