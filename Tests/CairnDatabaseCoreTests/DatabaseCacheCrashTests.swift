import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnDatabaseCore

@Suite("Realtime Database cache: crash consistency")
struct DatabaseCacheCrashTests {
    let paths = ["/", "a", "a/b", "w"]

    /// A scripted workload: every record kind, an acknowledgement with its cache update, a prune, a compaction.
    /// Tracking a query is a deferred commit (as the persistence manager makes it): it becomes durable with the
    /// next durable step.
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
            ("prune", true, { try $0.commit([.trackedQueryRemoved(id: 1), .serverPruned(dbPath("a"))]) }),
            ("compact", true, { try $0.compact() }),
            ("write 3", true, { try $0.commit([.userWriteAdded(PersistedWrite(id: 3, path: dbPath("a/b"), overwrite: dbNode("3")))]) }),
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

        var interrupted = Set<Int>()
        var outcomes = Set<String>()
        for crashPoint in 1...operations {
            let fs = SimulatedFileSystem(seed: UInt64(crashPoint))
            fs.crashAtOperation = crashPoint
            var completed = 0
            do {
                let cache = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(fs))
                for step in steps {
                    try step.run(cache)
                    completed += 1
                }
            } catch {
                #expect(fs.isCrashed, "only the crash may fail the workload: \(error)")
            }
            interrupted.insert(completed)
            for crashModel in [CrashModel.dropUnsyncedData, .keepUnsyncedData, .randomPrefix] {
                let image = fs.crashImage(crashModel, seed: UInt64(crashPoint))
                let recovered = try DatabaseCache.open(at: "/db", configuration: smallCacheLog(image))
                let state = try describeCache(recovered, paths: paths)
                // Every durable commit that returned is there, and what survives is a prefix of the commits: the
                // deferred steps after the last durable one may be lost (a power loss), the interrupted step is
                // all there or not at all.
                let step = completed < steps.count ? steps[completed].name : "nothing"
                let durableSteps = steps.prefix(completed).lastIndex { $0.durable }.map { $0 + 1 } ?? 0
                let whole = completed < steps.count && state == expected[completed + 1]
                let prefix = (durableSteps...completed).first { state == expected[$0] }
                #expect(prefix != nil || whole, "crash at operation \(crashPoint) (\(crashModel)) during \(step)")
                if prefix == completed { outcomes.insert("absent") } else if prefix != nil { outcomes.insert("deferred lost") } else if whole { outcomes.insert("whole") }
                // The recovered cache keeps working.
                try recovered.commit([.userWriteAdded(PersistedWrite(id: 99, path: dbPath("z"), overwrite: dbNode("1")))])
                #expect(recovered.writes[99] != nil)
                recovered.close()
            }
        }
        #expect(outcomes == ["whole", "absent", "deferred lost"], "some crashes kept the interrupted step, others lost it, and some lost a finished deferred step")
        #expect(interrupted == Set(0..<steps.count), "the crash points interrupt every step")
    }
}
