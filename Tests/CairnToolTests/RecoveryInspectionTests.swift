import Foundation
import CairnLocalStore
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

    @Test("verify reports a MANIFEST that is missing or zeroed while segments hold frames as damage (exit 1)")
    func verifyNamesManifestDamage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let missing = directory.path + "/missing", zeroed = directory.path + "/zeroed"
        try SampleCache.build(at: missing)
        try SampleCache.build(at: zeroed)
        try FileManager.default.removeItem(atPath: missing + "/MANIFEST")
        let size = try Data(contentsOf: URL(fileURLWithPath: zeroed + "/MANIFEST")).count
        try Data(count: size).write(to: URL(fileURLWithPath: zeroed + "/MANIFEST"))
        for (cache, damage) in [(missing, "MANIFEST is missing but"), (zeroed, "MANIFEST is not a Cairn segment-log manifest")] {
            let before = try snapshot(of: cache)
            let run = try Cairn.run(["verify", cache])
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains(damage), "\(run.stderr)")
            #expect(run.stderr.contains("cairn salvage \(cache) --output NEW"), "\(run.stderr)")
            #expect(try snapshot(of: cache) == before)
        }
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

    @Test("a cache another owner holds is not recovered, even with its MANIFEST gone: the lock error, nothing moves")
    func lockedIsNotRecovered() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/cache"
        try SampleCache.build(at: cache)
        let owner = try LocalStore.open(at: cache, configuration: SampleCache.configuration)
        defer { try? owner.close() }
        try FileManager.default.removeItem(atPath: cache + "/MANIFEST")
        do {
            _ = try DamagedCacheRecovery.open(at: cache, recover: true, configuration: SampleCache.configuration)
            Issue.record("a locked cache opened twice")
        } catch let error as LocalStoreError {
            #expect(error.storage?.code == .locked)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cache"])
    }
}
