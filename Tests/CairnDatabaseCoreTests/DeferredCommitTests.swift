import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnDatabaseCore

/// The tracked-query records are deferred commits: no sync of their own, durable with the next durable commit or
/// at a clean close. A power loss may lose them (the cache knows less), never a write.
@Suite("Realtime Database cache: deferred tracked-query commits")
struct DeferredCommitTests {
    let query = QuerySpec(path: dbPath("scores"), params: try! QueryParams().orderedBy(.value).limited(toLast: 2))

    /// The cache a power loss at this moment would leave (nothing unsynced survives).
    func afterPowerLoss(_ fs: SimulatedFileSystem) throws -> DatabaseCache {
        try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs.crashImage(.dropUnsyncedData, seed: 1)))
    }

    @Test("Starting and stopping a listener and a window's keys cost no sync: a power loss right after loses them, and only them")
    func trackedQueryRecordsAreNotSyncedAlone() throws {
        let fs = SimulatedFileSystem()
        let persistence = PersistenceManager(cache: try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs)))
        defer { persistence.close() }
        persistence.saveUserOverwrite(dbPath("scores/ada"), dbNode("1"), writeId: 1)
        persistence.setQueryActive(query)
        persistence.setTrackedQueryKeys(["ada"], for: query)
        persistence.setQueryComplete(query)
        #expect(persistence.trackedQuery(query)?.isComplete == true)

        let lost = try afterPowerLoss(fs)
        defer { lost.close() }
        #expect(lost.trackedQueries.isEmpty, "the listener's records were not synced")
        #expect(lost.trackedKeys.isEmpty)
        #expect(lost.writes.keys.sorted() == [1], "the durable write before them is there")
    }

    @Test("The next durable commit makes the deferred records before it durable, in one sync")
    func nextDurableCommitCarriesThem() throws {
        let fs = SimulatedFileSystem()
        let persistence = PersistenceManager(cache: try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs)))
        defer { persistence.close() }
        persistence.setQueryActive(query)
        persistence.setTrackedQueryKeys(["ada", "bob"], for: query)
        persistence.saveUserOverwrite(dbPath("scores/ada"), dbNode("1"), writeId: 1)

        let kept = try afterPowerLoss(fs)
        defer { kept.close() }
        #expect(kept.session == 1, "the session record of the start")
        #expect(kept.trackedQueries.values.map(\.query) == [query])
        #expect(kept.trackedQueries.values.first?.isActive == true)
        #expect(kept.trackedKeys.values.first == ["ada", "bob"])
        #expect(kept.writes.keys.sorted() == [1])
    }

    @Test("A clean close makes the last deferred records durable")
    func cleanCloseKeepsThem() throws {
        let fs = SimulatedFileSystem()
        let persistence = PersistenceManager(cache: try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs)))
        persistence.saveUserOverwrite(dbPath("scores/ada"), dbNode("1"), writeId: 1)
        persistence.setQueryActive(query)
        persistence.setQueryInactive(query)
        persistence.close()

        let kept = try afterPowerLoss(fs)
        defer { kept.close() }
        #expect(kept.trackedQueries.values.map(\.query) == [query])
        #expect(kept.trackedQueries.values.first?.isActive == false, "the last record, the query made inactive, is there")
    }
}
