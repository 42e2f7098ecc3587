import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnDatabaseCore

@Suite("Realtime Database persistence: tracked queries, completeness, serving, acknowledged writes")
struct PersistenceManagerTests {
    func manager(_ fs: SimulatedFileSystem = SimulatedFileSystem(), policy: CachePolicy = CachePolicy()) throws -> PersistenceManager {
        PersistenceManager(cache: try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs)), policy: policy)
    }

    func limited(_ path: String, toLast count: Int) -> QuerySpec {
        QuerySpec(path: dbPath(path), params: try! QueryParams().orderedBy(.value).limited(toLast: count))
    }

    @Test("A default query complete at a path or above makes every query below complete; a load-all query needs one")
    func completeByDefaultQueryAbove() throws {
        let persistence = try manager()
        let filtered = limited("scores", toLast: 2)
        let byChild = QuerySpec(path: dbPath("scores"), params: try QueryParams().orderedBy(.child(dbPath("n"))))
        persistence.setQueryActive(filtered)
        #expect(!persistence.isQueryComplete(filtered))
        #expect(!persistence.isQueryComplete(byChild))
        persistence.setQueryActive(QuerySpec(path: .root))
        #expect(!persistence.isQueryComplete(QuerySpec(path: dbPath("scores/ada"))))
        persistence.setQueryComplete(QuerySpec(path: .root))
        #expect(persistence.isQueryComplete(QuerySpec(path: dbPath("scores/ada"))))
        #expect(persistence.isQueryComplete(filtered))
        #expect(persistence.isQueryComplete(byChild), "a load-all query is the default query at its path")
        #expect(persistence.trackedQuery(filtered)?.isComplete == true, "a complete default query completes the tracked queries below it")
    }

    @Test("A filtered query is complete only by its own listen or a default query; a server overwrite for it completes it")
    func filteredQueryCompleteness() throws {
        let persistence = try manager()
        let top2 = limited("scores", toLast: 2)
        let top4 = limited("scores", toLast: 4)
        persistence.setQueryActive(top4)
        persistence.updateServerCache(dbNode(#"{"a": 1, "b": 2, "c": 3, "d": 4}"#), for: top4)
        #expect(persistence.isQueryComplete(top4))
        #expect(!persistence.isQueryComplete(top2))
        #expect(!persistence.isQueryComplete(QuerySpec(path: dbPath("scores"))))
        persistence.setQueryActive(top2)
        persistence.setQueryComplete(top2)
        #expect(persistence.isQueryComplete(top2))
    }

    @Test("Incomplete data is served from the union of the tracked keys at the path and children with a complete default query")
    func servingIncompleteData() throws {
        let fs = SimulatedFileSystem()
        let persistence = try manager(fs)
        let top2 = limited("scores", toLast: 2)
        let top1 = QuerySpec(path: dbPath("scores"), params: try QueryParams().orderedBy(.key).limited(toFirst: 1))
        persistence.setQueryActive(top2)
        persistence.updateServerCache(dbNode(#"{"c": 3, "d": 4}"#), for: top2)
        persistence.setTrackedQueryKeys(["c", "d"], for: top2)
        persistence.setQueryActive(top1)
        persistence.updateServerCache(dbNode(#"{"a": 1}"#), for: top1)
        persistence.setTrackedQueryKeys(["a"], for: top1)
        persistence.setQueryActive(QuerySpec(path: dbPath("scores/z")))
        persistence.updateServerCache(dbNode(#"{"deep": 1}"#), for: QuerySpec(path: dbPath("scores/z")))
        persistence.updateServerCache(dbNode("99"), for: QuerySpec(path: dbPath("elsewhere")))

        let served = persistence.serverCache(for: limited("scores", toLast: 6))
        #expect(!served.isFullyInitialized)
        #expect(json(served.node) == #"{"a":1,"c":3,"d":4,"z":{"deep":1}}"#)
        let complete = persistence.serverCache(for: top2)
        #expect(complete.isFullyInitialized && complete.isFiltered)
        #expect(json(complete.node) == #"{"c":3,"d":4}"#)
        #expect(!persistence.serverCache(for: QuerySpec(path: dbPath("scores"))).isFullyInitialized)
        let whole = persistence.serverCache(for: QuerySpec(path: dbPath("scores/z")))
        #expect(whole.isFullyInitialized && !whole.isFiltered)
        #expect(json(whole.node) == #"{"deep":1}"#)
    }

    @Test("An acknowledged write enters the server cache with a complete default query where no active default query covers it")
    func acknowledgedWrites() throws {
        let persistence = try manager()
        persistence.saveUserOverwrite(dbPath("notes/n1"), dbNode(#"{"t": {".sv": "timestamp"}}"#), writeId: 1)
        persistence.saveUserMerge(dbPath("notes"), [(dbPath("n2"), dbNode("2"))], writeId: 2)
        #expect(persistence.pendingWrites.map(\.id) == [1, 2])
        #expect(json(persistence.pendingWrites[0].overwrite!) == #"{"t":{".sv":"timestamp"}}"#, "server values stay unresolved")
        let resolved = WriteRecord(writeId: 1, path: dbPath("notes/n1"), snap: dbNode(#"{"t": 1700}"#), children: nil, visible: true)
        persistence.userWriteFinished(resolved, acked: true)
        #expect(persistence.pendingWrites.map(\.id) == [2])
        #expect(persistence.isQueryComplete(QuerySpec(path: dbPath("notes/n1"))))
        #expect(json(persistence.serverCache(for: QuerySpec(path: dbPath("notes/n1"))).node) == #"{"t":1700}"#)
        #expect(persistence.trackedQuery(QuerySpec(path: dbPath("notes/n1")))?.isActive == false)

        // Under an active default query the server's own data will come: the write is not cached as server data.
        persistence.setQueryActive(QuerySpec(path: dbPath("notes")))
        let merge = WriteRecord(writeId: 2, path: dbPath("notes"), snap: nil, children: [(dbPath("n2"), dbNode("2"))], visible: true)
        persistence.userWriteFinished(merge, acked: true)
        #expect(persistence.pendingWrites.isEmpty)
        #expect(persistence.trackedQuery(QuerySpec(path: dbPath("notes/n2"))) == nil)
        // A rejected write just leaves.
        persistence.saveUserOverwrite(dbPath("x"), dbNode("1"), writeId: 3)
        persistence.userWriteFinished(WriteRecord(writeId: 3, path: dbPath("x"), snap: dbNode("1"), children: nil, visible: true), acked: false)
        #expect(persistence.pendingWrites.isEmpty)
        #expect(json(persistence.serverCache(for: QuerySpec(path: dbPath("x"))).node) == "null")
    }

    @Test("A new session sets every query of the last one inactive, keeps completeness and counts the session")
    func newSession() throws {
        let fs = SimulatedFileSystem()
        let first = try manager(fs)
        first.setQueryActive(limited("a", toLast: 1))
        first.setQueryActive(QuerySpec(path: dbPath("b")))
        first.setQueryComplete(QuerySpec(path: dbPath("b")))
        let session = first.cache.session
        first.close()
        let second = try manager(fs)
        #expect(second.cache.session == session + 1)
        #expect(second.cache.trackedQueries.values.allSatisfy { !$0.isActive })
        #expect(second.isQueryComplete(QuerySpec(path: dbPath("b/c"))))
        #expect(!second.isQueryComplete(limited("a", toLast: 1)))
        second.setQueryActive(QuerySpec(path: dbPath("c")))
        #expect(second.trackedQuery(QuerySpec(path: dbPath("c")))!.id > second.trackedQuery(QuerySpec(path: dbPath("b")))!.id,
                "query ids continue after the last session's")
    }

    @Test("A storage failure turns persistence off with one logged line; the calls after it do nothing")
    func failureTurnsPersistenceOff() throws {
        let fs = SimulatedFileSystem()
        let persistence = try manager(fs)
        let lines = LogLines()
        let previous = DatabaseLog.warningSink.withLock { sink in
            defer { sink = { lines.add($0) } }
            return sink
        }
        defer { DatabaseLog.warningSink.withLock { $0 = previous } }
        fs.injectFault(.failAlways(.write))
        persistence.saveUserOverwrite(dbPath("a"), dbNode("1"), writeId: 1)
        persistence.saveUserOverwrite(dbPath("b"), dbNode("2"), writeId: 2)
        #expect(persistence.isOff)
        let cacheLines = lines.all.filter { $0.contains("failed to save a write") }
        #expect(cacheLines.count == 1)
        #expect(cacheLines.first?.contains("failed to save a write and is off for this session") == true)
        #expect(!persistence.serverCache(for: QuerySpec(path: dbPath("a"))).isFullyInitialized)
    }
}

/// Lines the database log received.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
