import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnDatabaseCore

@Suite("Realtime Database cache: crash consistency")
struct DatabaseCacheCrashTests {
    let paths = ["/", "a", "a/b", "w"]

    /// A scripted workload: every record kind, an acknowledgement with its cache update, a prune, a compaction in
    /// bounded steps with a write between them, a whole compaction. Tracking a query and pruning are deferred
    /// commits (as the persistence manager makes them): they become durable with the next durable step.
    var steps: [(name: String, durable: Bool, run: (DatabaseCache) throws -> Void)] {
        let query = QuerySpec(path: dbPath("a"), params: try! QueryParams().limited(toFirst: 2))
        let filler = String(repeating: "f", count: 300)
        return [
            ("server data", true, { try $0.commit([.serverOverwrite(dbPath("a"), dbNode(#"{"b": {"c": 1}, "d": "\#(filler)"}"#))]) }),
            ("track a query", false, { try $0.commit([.trackedQuerySaved(id: 1, query: query, isComplete: true, isActive: true),
                                                      .trackedKeysChanged(id: 1, keys: ["b", "d"])], durable: false) }),
            ("write 1", true, { try $0.commit([.userWriteAdded(PersistedWrite(id: 1, path: dbPath("w"), overwrite: dbNode(#"{".sv": "timestamp"}"#)))]) }),
            ("write 2", true, { try $0.commit([.userWriteAdded(PersistedWrite(id: 2, path: dbPath("a"), merge: [(dbPath("b/c"), dbNode("2"))]))]) }),
            ("acknowledge write 1", true, { try $0.commit([.userWriteRemoved(id: 1), .serverOverwrite(dbPath("w"), dbNode("1700")),
                                                     .trackedQuerySaved(id: 2, query: QuerySpec(path: dbPath("w")), isComplete: true, isActive: false)]) }),
            // Twelve overwrites of one path in one batch: eleven of them dead at once, for the compaction.
            ("more server data", true, { try $0.commit((0..<12).map { .serverOverwrite(dbPath("a/b"), dbNode(#"{"c": \#($0), "p": "\#(filler)"}"#)) }) }),
            // A prune is deferred (as pruning makes it); its compaction runs in bounded steps with a write between.
            ("prune", false, { try $0.commit([.trackedQueryRemoved(id: 1), .serverPruned(dbPath("a"))], durable: false) }),
            ("first compaction step", false, { try $0.compactStep(budget: 256) }),
            ("write 3", true, { try $0.commit([.userWriteAdded(PersistedWrite(id: 3, path: dbPath("a/b"), overwrite: dbNode("3")))]) }),
            ("the other compaction steps", true, { while $0.isCompacting { try $0.compactStep(budget: 256) } }),
            ("server data again", true, { try $0.commit((0..<12).map { .serverOverwrite(dbPath("d"), dbNode(#"{"n": \#($0), "p": "\#(filler)"}"#)) }) }),
            ("compact", true, { try $0.compact() }),
            ("globals", true, { try $0.commit([.globals(session: 2)]) }),
        ]
    }

    @Test("A crash at any I/O operation leaves every finished durable step on disk, a deferred step after it whole or absent, the interrupted one whole or absent, and the cache opens")
    func crashAtEveryOperation() throws {
        // The state after each prefix of the workload.
        let clean = SimulatedFileSystem()
        let cache = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(clean))
        var expected = [try describeCache(cache, paths: paths)]
        for step in steps {
            try step.run(cache)
            expected.append(try describeCache(cache, paths: paths))
        }
        cache.close()
        let operations = clean.operationCount

        let durable = steps.map(\.durable)
        let report = try CrashSweep.run(
            steps: steps.map { ($0.name, $0.run) }, expected: expected, operations: operations,
            open: { try DatabaseCache.open(at: "/db", configuration: smallCacheLog($0)) },
            describe: { try describeCache($0, paths: paths) },
            afterRecovery: { recovered in
                // The recovered cache keeps working.
                try recovered.commit([.userWriteAdded(PersistedWrite(id: 99, path: dbPath("z"), overwrite: dbNode("1")))])
                #expect(recovered.writes[99] != nil)
                recovered.close()
            },
            isDurable: { durable[$0] })
        #expect(report.problems == [])
        #expect(report.outcomes == ["whole", "absent", "deferred lost"],
                "some crashes kept the interrupted step, others lost it, and some lost a finished deferred step")
        #expect(report.interrupted.isSuperset(of: 0..<steps.count), "the crash points interrupt every step")
    }
}
