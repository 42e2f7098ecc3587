import Foundation
import LocalStore
import SegmentLog
import Testing

/// A cache that recovered from damage by itself (``DamagedCacheRecovery``) says so in `cairn inspect`: when,
/// why, where the damaged copy is, and what was kept.
@Suite("cairn inspect on a recovered cache")
struct RecoveryInspectionTests {
    @Test("inspect shows the recovery of a cache whose MANIFEST was deleted; outbox and verify see a sound cache")
    func inspectShowsRecovery() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/cache"
        try SampleCache.build(at: cache)
        try FileManager.default.removeItem(atPath: cache + "/MANIFEST")

        let opened = try DamagedCacheRecovery.open(at: cache, recover: true, configuration: SampleCache.configuration)
        try opened.store.close()
        let record = try #require(opened.recovery)
        #expect(record.pendingBatchesKept == 2, "both pending batches of the sample survive")
        #expect(record.damagedCopy.hasPrefix(cache + ".damaged-"))

        let inspect = try Cairn.run(["inspect", cache])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let line = try #require(inspect.stdout.split(separator: "\n").first { $0.hasPrefix("this cache was recovered at ") })
        #expect(line.contains("from damage: MANIFEST is missing but"), "\(line)")
        #expect(line.contains("the damaged copy is kept in \(record.damagedCopy)"), "\(line)")
        #expect(line.contains("salvage kept \(record.recordsKept) record(s) and 2 pending write batch(es)"), "\(line)")
        #expect(inspect.stdout.contains("outbox: 2 pending batch(es)"))
        #expect(try Cairn.run(["verify", cache]).status == 0)
        #expect(try Cairn.run(["verify", record.damagedCopy]).status != 0, "the damaged copy is kept as it was")
    }

    @Test("a damaged cache opened without recovery is dataLoss and left byte for byte as it was")
    func failLeavesDirectoryUnchanged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/cache"
        try SampleCache.build(at: cache)
        try FileManager.default.removeItem(atPath: cache + "/MANIFEST")
        let before = try snapshot(of: cache)
        do {
            _ = try DamagedCacheRecovery.open(at: cache, recover: false, configuration: SampleCache.configuration)
            Issue.record("a damaged cache opened")
        } catch let error as LocalStoreError {
            #expect(error.code == .dataLoss)
            #expect(error.message.contains("MANIFEST is missing"))
        }
        #expect(try snapshot(of: cache) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cache"])
    }

    @Test("a locked cache is not damage: the lock error comes back and nothing moves")
    func lockedIsNotDamage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/cache"
        try SampleCache.build(at: cache)
        let owner = try LocalStore.open(at: cache, configuration: SampleCache.configuration)
        defer { try? owner.close() }
        do {
            _ = try DamagedCacheRecovery.open(at: cache, recover: true, configuration: SampleCache.configuration)
            Issue.record("a locked cache opened twice")
        } catch let error as LocalStoreError {
            #expect(error.storage?.code == .locked)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cache"])
    }
}
