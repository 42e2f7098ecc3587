import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnDatabaseCore

@Suite("Realtime Database persistence: pruning on exact live bytes")
struct CachePruningTests {
    func manager(_ fs: SimulatedFileSystem = SimulatedFileSystem(), policy: CachePolicy) throws -> PersistenceManager {
        PersistenceManager(cache: try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs)), policy: policy)
    }

    /// An inactive, complete default query at `path` holding `node`.
    func cachedQuery(_ persistence: PersistenceManager, _ path: String, _ node: String, active: Bool = false) {
        let query = QuerySpec(path: dbPath(path))
        persistence.setQueryActive(query)
        persistence.updateServerCache(dbNode(node), for: query)
        if !active { persistence.setQueryInactive(query) }
    }

    @Test("A round removes the least recently used 20% of inactive queries with their data; active queries and pending writes stay")
    func leastRecentlyUsedShare() throws {
        var policy = CachePolicy(maxBytes: 1)
        policy.maxRounds = 1
        let persistence = try manager(policy: policy)
        for index in 0..<10 { cachedQuery(persistence, "q\(index)", #"{"v": \#(index)}"#) }
        cachedQuery(persistence, "synced", #"{"kept": true}"#, active: true)   // a listener or keepSynced
        persistence.saveUserOverwrite(dbPath("q0/mine"), dbNode("1"), writeId: 1)
        // q5 used again: it is no longer among the least recently used.
        persistence.setQueryActive(QuerySpec(path: dbPath("q5")))
        persistence.setQueryInactive(QuerySpec(path: dbPath("q5")))
        persistence.setQueryActive(QuerySpec(path: dbPath("q0")))
        persistence.setQueryInactive(QuerySpec(path: dbPath("q0")))

        #expect(persistence.pruneIfNeeded() == 1)
        let left = persistence.cache.trackedQueries.values.map(\.query.path.description).sorted()
        #expect(left == ["/q0", "/q3", "/q4", "/q5", "/q6", "/q7", "/q8", "/q9", "/synced"])
        #expect(json(try persistence.cache.serverCache(at: dbPath("q1"))) == "null")
        #expect(json(try persistence.cache.serverCache(at: dbPath("q2"))) == "null")
        #expect(json(try persistence.cache.serverCache(at: dbPath("q3"))) == #"{"v":3}"#)
        #expect(json(try persistence.cache.serverCache(at: dbPath("synced"))) == #"{"kept":true}"#)
        #expect(persistence.pendingWrites.map(\.id) == [1])
    }

    @Test("Keep wins: a kept query below a pruned path keeps its data, and nothing is pruned under a kept path")
    func keepWinsOverPrune() throws {
        var policy = CachePolicy(maxBytes: 1)
        policy.maxRounds = 1
        let persistence = try manager(policy: policy)
        cachedQuery(persistence, "chats", #"{"room1": {"m": "hi"}, "room2": {"m": "yo"}}"#)
        cachedQuery(persistence, "p/child", #"{"x": 1}"#)
        cachedQuery(persistence, "a", "1")
        cachedQuery(persistence, "b", "2")
        cachedQuery(persistence, "c", "3")
        // Newer, so kept this round: a query below /chats and one above /p/child.
        persistence.setQueryActive(QuerySpec(path: dbPath("chats/room1")))
        persistence.setQueryInactive(QuerySpec(path: dbPath("chats/room1")))
        persistence.setQueryActive(QuerySpec(path: dbPath("p"), params: try QueryParams().limited(toFirst: 1)))
        persistence.setQueryInactive(QuerySpec(path: dbPath("p"), params: try QueryParams().limited(toFirst: 1)))

        // 7 inactive queries: a round removes 2, the least recently used: /chats and /p/child.
        #expect(persistence.pruneIfNeeded() == 1)
        #expect(persistence.trackedQuery(QuerySpec(path: dbPath("chats"))) == nil)
        #expect(persistence.trackedQuery(QuerySpec(path: dbPath("p/child"))) == nil)
        #expect(json(try persistence.cache.serverCache(at: dbPath("chats"))) == #"{"room1":{"m":"hi"}}"#)
        #expect(json(try persistence.cache.serverCache(at: dbPath("p/child"))) == #"{"x":1}"#)
        #expect(!persistence.isQueryComplete(QuerySpec(path: dbPath("chats"))))
    }

    @Test("Rounds run while the live bytes exceed the size; compaction then shrinks the files")
    func prunesToTheSize() throws {
        let fs = SimulatedFileSystem()
        let persistence = try manager(fs, policy: CachePolicy(maxBytes: 6000))
        let payload = String(repeating: "x", count: 400)
        for index in 0..<60 { cachedQuery(persistence, "big/q\(index)", #"{"payload": "\#(payload)\#(index)"}"#) }
        let before = persistence.cache.log.statistics
        #expect(before.liveRecordBytes > 20_000)
        let rounds = persistence.pruneIfNeeded()
        let after = persistence.cache.log.statistics
        #expect(rounds > 1)
        #expect(after.liveRecordBytes <= 6000)
        #expect(after.fileBytes < before.fileBytes / 2, "compaction shrank the files: \(before.fileBytes) → \(after.fileBytes)")
        let kept = persistence.cache.trackedQueries.values.map(\.query.path.description)
        #expect(kept.contains("/big/q59"), "the most recently used query stays")
        #expect(!kept.contains("/big/q0"))
        persistence.close()
        let reopened = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
        #expect(reopened.liveBytes <= 6000)
        #expect(reopened.trackedQueries.count == kept.count)
        reopened.close()
    }

    @Test("The check runs once more than 1,000 server updates were stored, and prunes inactive queries past the maximum")
    func checkAfterServerUpdates() throws {
        var policy = CachePolicy(maxBytes: 100 << 20)
        policy.maxInactiveQueries = 5
        let persistence = try manager(policy: policy)
        for index in 0..<8 { persistence.setQueryActive(QuerySpec(path: dbPath("q\(index)"))); persistence.setQueryInactive(QuerySpec(path: dbPath("q\(index)"))) }
        for index in 0..<1000 { persistence.updateServerCache(merge: [(dbPath("n"), dbNode("\(index)"))], at: dbPath("counter")) }
        #expect(persistence.pruneRounds == 0)
        #expect(persistence.cache.trackedQueries.count == 8)
        persistence.updateServerCache(dbNode("1"), for: QuerySpec(path: dbPath("last")))
        #expect(persistence.pruneRounds == 1)
        // max(ceil(8 × 0.2), 8 − 5) = 3 removed, the least recently used.
        #expect(persistence.cache.trackedQueries.values.map(\.query.path.description).sorted() == ["/q3", "/q4", "/q5", "/q6", "/q7"])
    }
}
