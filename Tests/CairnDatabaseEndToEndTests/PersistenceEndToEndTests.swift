import CairnDatabaseCore
import CairnTestSupport
import Foundation
import Testing

/// Issue 16's proofs 5 and 6: the persistent cache of `cairn database-child` processes across a hard exit and a
/// restart, against the local server: `keepSynced(true)` data survives pruning and is there offline; Firebase's
/// documented `queryLimited(toLast:)` example offline after a restart and its catch-up online.
@Suite("Realtime Database persistence end to end across processes: keepSynced, pruning, toLast")
struct PersistenceEndToEndTests {
    private static func temporaryCache() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cairn-e2e-cache-\(UUID().uuidString)").path
    }

    /// Random text that does not compress: `count` characters of hexadecimal.
    private static func noise(_ count: Int) -> String {
        var text = ""
        while text.count < count { text += UUID().uuidString.replacingOccurrences(of: "-", with: "") }
        return String(text.prefix(count))
    }

    @Test("keepSynced data the Admin SDK changed while the client was online is there offline after a hard exit, although pruning removed other paths",
          .enabled(if: AdminSDK.shouldRun, AdminSDK.skipReason))
    func keepSyncedSurvivesPruning() async throws {
        let fixture = ServerFixture()
        try await fixture.start()
        let cache = Self.temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let paths = 24
        // 24 paths of 100 KB each: 2.4 MB, over the child's 1 MiB cache.
        for i in 0..<paths {
            var children: [String: JSONValue] = [:]
            for j in 0..<100 { children[String(format: "c%03d", j)] = .string(Self.noise(1000)) }
            try fixture.write("big/" + String(format: "b%03d", i), .object(children))
        }
        let address = ["--emulator", "127.0.0.1:\(fixture.port)", "--ns", fixture.namespace]
        let tag = UUID().uuidString.prefix(8).lowercased()

        let child = try DatabaseChild(["keep", cache] + address + ["--count", "\(paths)"])
        defer { child.kill() }
        try #require(await child.waitForLine("ready"), "\(child)")
        try await AdminSDK.set("kept", json: #"{"note": "first-\#(tag)", "n": 1}"#, port: fixture.port, namespace: fixture.namespace)
        try #require(await child.waitForLine(#"kept {"n":1,"note":"first-\#(tag)"}"#), "\(child)")
        try #require(await child.waitForLine("loaded \(paths)"), "\(child)")

        // Only keepSynced listens to `kept` now; then over 1,000 server updates, so the cache's prune check runs.
        try await AdminSDK.set("kept", json: #"{"note": "second-\#(tag)", "n": 2, "deep": {"ok": true}}"#, port: fixture.port, namespace: fixture.namespace)
        for tick in 0..<1_100 { try fixture.write("ticks/n", .int(Int64(tick))) }
        try fixture.write("ticks/done", .bool(true))
        try #require(await child.waitForLine("ticks done"), "\(child)")
        #expect(await child.waitForExit() == 0, "\(child)")
        await fixture.stop()

        let inspector = try DatabaseCacheInspector.open(at: cache)
        let report = try inspector.report(threshold: nil)
        let server = try inspector.serverData()
        inspector.close()
        let trackedBig = report.queries.filter { $0.query.query.path.front == "big" }
        let cachedBig = server.child(DatabasePath(unvalidated: "big")).numChildren
        #expect(trackedBig.count < paths, "pruning removed no query: \(trackedBig.count) of \(paths) still tracked")
        #expect(cachedBig < paths, "pruning removed no data: \(cachedBig) of \(paths) paths still cached")
        #expect(report.liveBytes < 2 << 20, "the cache holds \(report.liveBytes) live bytes")
        let second = JSONValue.object(["note": .string("second-\(tag)"), "n": .int(2), "deep": .object(["ok": .bool(true)])])
        #expect(server.child(DatabasePath(unvalidated: "kept")).exportJSON() == second)

        let reader = try DatabaseChild(["keep", cache] + address + ["--offline"])
        defer { reader.kill() }
        #expect(await reader.waitForExit() == 0, "\(reader)")
        #expect(reader.lines == [#"kept {"deep":{"ok":true},"n":2,"note":"second-\#(tag)"}"#], "\(reader)")
    }

    @Test("Firebase's toLast example through the server: toLast(4) cached online; after a restart offline toLast(2) gives the top 2 without value, toLast(6) the 4 at once; online the other 2 and one value of 6")
    func limitToLastAcrossRestart() async throws {
        let fixture = ServerFixture()
        try await fixture.start()
        let cache = Self.temporaryCache()
        defer { try? FileManager.default.removeItem(atPath: cache) }
        try fixture.write("scores", .object(["a": .int(10), "b": .int(20), "c": .int(30), "d": .int(40), "e": .int(50), "f": .int(60)]))
        let address = ["--emulator", "127.0.0.1:\(fixture.port)", "--ns", fixture.namespace]

        let first = try DatabaseChild(["tolast", cache] + address)
        defer { first.kill() }
        #expect(await first.waitForExit() == 0, "\(first)")
        try #require(first.lines == ["cached c,d,e,f"], "\(first)")

        let second = try DatabaseChild(["tolast", cache] + address + ["--offline"])
        defer { second.kill() }
        #expect(await second.waitForExit() == 0, "\(second)")
        let lines = second.lines
        let online = try #require(lines.firstIndex(of: "mark last6"), "\(second)")
        #expect(Array(lines[...online]) == ["last2 added e", "last2 added f", "mark last2",
                                            "last6 added c", "last6 added d", "last6 added e", "last6 added f", "mark last6"])
        let afterOnline = Array(lines[(online + 1)...])
        #expect(afterOnline.filter { $0.hasPrefix("last6") } == ["last6 added a", "last6 added b", "last6 value a=10,b=20,c=30,d=40,e=50,f=60"])
        #expect(afterOnline.filter { $0.hasPrefix("last2") } == ["last2 value e=50,f=60"])
        #expect(afterOnline.last == "end")
        await fixture.stop()
    }
}
