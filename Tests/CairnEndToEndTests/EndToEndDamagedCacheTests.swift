import CairnCoreTestSupport
import CairnCore
import Cairn
import Foundation
import CairnLocalStore
import Testing

/// A damaged persistent cache never leaves the app stuck: by default it is moved aside, salvaged into a fresh
/// cache with its pending writes, and the recovery recorded for `cairn inspect`; with `onDamage: .fail` every
/// call fails with `dataLoss` and nothing in the directory changes. (LocalStore is imported to inspect the
/// recovered cache as `cairn inspect` does.)
@Suite("End to end: a damaged cache")
struct EndToEndDamagedCacheTests {
    typealias Fixture = DamagedCacheFixture

    @Test("A damaged cache is recovered on open: calls work, the intact documents and pending writes are there",
          arguments: DamagedCacheFixture.Damage.allCases)
    func recoversByDefault(damage: DamagedCacheFixture.Damage) async throws {
        let env = EndToEndEnvironment()
        try await Fixture.writeOfflineData(env)
        try await env.restart()
        try damage.apply(to: env.directory)

        let cities = try await env.db.collection("cities").getDocuments(source: .cache)
        #expect(cities.documents.map(\.documentID) == ["LA", "SF"])
        #expect(cities.documents.allSatisfy { $0.metadata.hasPendingWrites }, "the pending writes are still pending")
        #expect(cities.documents.last?.get("visits") as? Int64 == 3, "both writes to SF survived")
        let fillers = try await env.db.collection("fill").getDocuments(source: .cache)
        if damage.keepsEverything {
            #expect(fillers.count == Fixture.fillerCount)
        } else {
            #expect(fillers.count < Fixture.fillerCount, "the damaged segment's documents are gone")
        }
        env.db.collection("cities").document("NYC").setData(["name": "New York"], completion: nil)

        let copies = try Fixture.damagedCopies(of: env.directory)
        let copy = try #require(copies.first)
        #expect(copies.count == 1)
        #expect(try Fixture.permissions(of: copy) == 0o700, "the damaged copy is private")

        try await env.restart()
        let inspector = try CacheInspector.open(at: env.directory.path)
        let record = try #require(try inspector.recovery(), "the recovery is recorded in the cache")
        let outbox = try inspector.outbox()
        let report = try inspector.report(threshold: 100 << 20)
        inspector.close()
        #expect(record.damage.contains(damage.reportedAs), "\(record.damage)")
        #expect(record.damagedCopy == copy.path)
        #expect(record.salvageFailure == nil)
        #expect(record.recordsKept > 0)
        #expect(record.pendingBatchesKept == (damage.keepsEverything ? Fixture.fillerCount + 3 : outbox.count - 1))
        #expect(outbox.count >= 4, "SF's two batches, LA's, and NYC's written after the recovery")
        #expect(report.recovery == record)
        #expect(try Fixture.permissions(of: env.directory.appendingPathComponent("RECOVERED")) == 0o600)

        // After another restart the recovered cache is an ordinary one.
        let after = try await env.db.collection("cities").getDocuments(source: .cache)
        #expect(after.documents.map(\.documentID) == ["LA", "NYC", "SF"])
        #expect(after.documents.allSatisfy { $0.metadata.hasPendingWrites })
        #expect(try Fixture.damagedCopies(of: env.directory).count == 1, "a healthy cache is opened, not recovered")
        await Fixture.tearDown(env)
    }

    @Test("With onDamage: .fail every call fails with dataLoss naming the damage and cairn salvage; nothing changes",
          arguments: DamagedCacheFixture.Damage.allCases)
    func failsWhenAsked(damage: DamagedCacheFixture.Damage) async throws {
        let env = EndToEndEnvironment()
        try await Fixture.writeOfflineData(env)
        try await env.restart()
        Fixture.setOnDamage(.fail, env)
        try damage.apply(to: env.directory)
        let before = try Fixture.snapshot(of: env.directory)

        do {
            _ = try await env.db.collection("cities").getDocuments(source: .cache)
            Issue.record("a damaged cache opened with onDamage: .fail")
        } catch {
            #expect(firestoreCode(error) == .dataLoss, "\(error)")
            #expect("\(error)".contains(damage.reportedAs), "\(error)")
            #expect("\(error)".contains("cairn salvage \(env.directory.path) --output NEW"), "\(error)")
        }
        await #expect(throws: FirestoreErrorCode.self) {
            try await env.db.collection("cities").document("NYC").setData(["name": "New York"]) as Void
        }
        let written = Inbox<(any Error)?>()
        env.db.collection("cities").document("NYC").setData(["name": "New York"]) { written.put($0) }
        let error = await written.next()
        #expect(firestoreCode(error ?? nil) == .dataLoss, "every call reports the same error")
        #expect(try Fixture.snapshot(of: env.directory) == before, "nothing in the directory changed")
        #expect(try Fixture.damagedCopies(of: env.directory).isEmpty)
        await Fixture.tearDown(env)
    }

    @Test("When nothing can be salvaged the app starts on an empty cache, the damaged copy kept aside")
    func unsalvageableStartsEmpty() async throws {
        let env = EndToEndEnvironment()
        try await Fixture.writeOfflineData(env)
        try await env.restart()
        // No manifest, and the first segment is unreadable (a directory where its file was): salvage fails.
        let sealed = try #require(try Fixture.segments(in: env.directory).first)
        try FileManager.default.removeItem(at: env.directory.appendingPathComponent("MANIFEST"))
        try FileManager.default.removeItem(at: sealed)
        try FileManager.default.createDirectory(at: sealed, withIntermediateDirectories: false)

        let cities = try await env.db.collection("cities").getDocuments(source: .cache)
        #expect(cities.isEmpty)
        env.db.collection("cities").document("NYC").setData(["name": "New York"], completion: nil)
        let written = try await env.db.collection("cities").getDocuments(source: .cache)
        #expect(written.documents.map(\.documentID) == ["NYC"], "the fresh cache takes writes")
        let copy = try #require(try Fixture.damagedCopies(of: env.directory).first)
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent(sealed.lastPathComponent).path))

        try await env.restart()
        let inspector = try CacheInspector.open(at: env.directory.path)
        let record = try #require(try inspector.recovery())
        inspector.close()
        #expect(record.salvageFailure != nil)
        #expect(record.damage.contains("MANIFEST is missing"))
        #expect(record.damagedCopy == copy.path)
        #expect(record.summary.contains("salvage failed"))
        await Fixture.tearDown(env)
    }
}
