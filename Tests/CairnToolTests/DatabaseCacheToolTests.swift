import CairnDatabaseCore
import Foundation
import SegmentLog
import Testing

/// A Realtime Database cache built through the persistence API: `/rooms` (active, complete, default), `/users`
/// limited to the first 2 (inactive, complete, 2 tracked keys), write 1 a set of `/rooms/r3`, write 2 a merge at
/// `/users/ada`.
enum SampleDatabaseCache {
    static func path(_ text: String) -> DatabasePath { try! DatabasePath(text) }
    static func node(_ json: JSONValue) -> Node { try! Node(json: json) }

    static let rooms = QuerySpec(path: path("rooms"))
    static let users = QuerySpec(path: path("users"), params: try! QueryParams().limited(toFirst: 2))

    static func build(at directory: String) throws {
        let manager = PersistenceManager(cache: try DatabaseCache.open(at: directory))
        manager.setQueryActive(rooms)
        manager.updateServerCache(node(.object([
            "r1": .object(["title": .string("Lobby"), "seats": .int(4)]), "r2": .object(["title": .string("Kitchen")]),
        ])), for: rooms)
        manager.setQueryActive(users)
        manager.updateServerCache(node(.object(["ada": .object(["age": .int(36)]), "bob": .object(["age": .int(41)])])), for: users)
        manager.setTrackedQueryKeys(["ada", "bob"], for: users)
        manager.setQueryInactive(users)
        manager.saveUserOverwrite(path("rooms/r3"), node(.object(["title": .string("New")])), writeId: 1)
        manager.saveUserMerge(path("users/ada"), [(path("age"), node(.int(37)))], writeId: 2)
        #expect(!manager.isOff)
        manager.close()
    }

    /// The exact live bytes of the cache, from a read-only replay in this process.
    static func liveBytes(at directory: String) throws -> UInt64 {
        var configuration = DatabaseCache.defaultLogConfiguration
        configuration.readOnly = true
        let cache = try DatabaseCache.open(at: directory, configuration: configuration)
        defer { cache.close() }
        return cache.liveBytes
    }
}

/// Every file of a directory with its bytes and modification time.
private func filesAndTimes(of directory: String) throws -> [String: Date] {
    var times: [String: Date] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
        times[name] = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.modificationDate] as? Date
    }
    return times
}

@Suite("cairn on Realtime Database caches")
struct DatabaseCacheToolTests {
    @Test("inspect shows the tracked queries, the pending writes and the exact live bytes against the threshold")
    func inspect() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let live = try SampleDatabaseCache.liveBytes(at: directory.path)
        let run = try Cairn.run(["inspect", directory.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.first == "Realtime Database cache, session 1")
        #expect(lines.contains("tracked queries: 2 (1 inactive)"), "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("1 /rooms default complete active LSN ") && $0.hasSuffix(" -") }, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("2 /users {\"l\":2,\"vf\":\"l\"} complete inactive LSN ") && $0.hasSuffix(" 2") }, "\(run.stdout)")
        #expect(lines.contains("pending writes: 2"), "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("1 /rooms/r3 overwrite ") }, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("2 /users/ada merge (1 children) ") }, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("cache: \(live) B live (") && $0.contains("threshold 10.0 MiB;") }, "\(run.stdout)")
        #expect(lines.contains("pruning: under the threshold and at most 1000 inactive queries: the next check prunes nothing"))

        let over = try Cairn.run(["inspect", directory.path, "--threshold", "100"])
        #expect(over.status == 0, "\(over.stderr)")
        #expect(over.stdout.contains("pruning: over the threshold: the next check prunes the least recently used of the 1 inactive query(ies)"),
                "\(over.stdout)")
    }

    @Test("dump prints the server data by path and the pending writes, as text and as JSON lines")
    func dump() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let text = try Cairn.run(["dump", directory.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == """
            /rooms/r1/seats  4
            /rooms/r1/title  "Lobby"
            /rooms/r2/title  "Kitchen"
            /users/ada/age  36
            /users/bob/age  41
            write 1  set  /rooms/r3  {"title":"New"}
            write 2  update  /users/ada  {"age":37}

            """)
        let json = try Cairn.run(["dump", directory.path, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let objects = try json.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 7)
        #expect(objects[0]["path"] as? String == "/rooms/r1/seats" && objects[0]["value"] as? Int == 4)
        #expect(objects[6]["write"] as? Int == 2 && objects[6]["op"] as? String == "update" && objects[6]["path"] as? String == "/users/ada")
        let filtered = try Cairn.run(["dump", directory.path, "--segment", "1"])
        #expect(filtered.status == 2 && filtered.stderr.contains("Realtime Database cache"), "\(filtered.stderr)")
    }

    @Test("verify checks every frame, decodes every record and replays the views")
    func verify() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let run = try Cairn.run(["verify", directory.path])
        #expect(run.status == 0, "\(run.stderr)")
        // The users query's data is split per child (it is filtered): 3 overwrites.
        #expect(run.stdout.contains(
            "records by kind: globals 1, serverOverwrite 3, trackedKeysChanged 1, trackedQuerySaved 5, userWriteAdded 2\n"), "\(run.stdout)")
        #expect(run.stdout.contains("replay: 2 tracked query(ies), 2 pending write(s), session 1"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("clean\n"))
    }

    @Test("a record that does not decode is damage: verify names it and exits 1, inspect exits 1")
    func undecodableRecord() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let log = try SegmentLog.open(at: directory.path, configuration: DatabaseCache.defaultLogConfiguration)
        var batch = WriteBatch()
        batch.append(kind: CacheRecord.Kind.trackedQuerySaved.rawValue, key: CacheRecord.queryKey(9), value: [CacheRecord.formatVersion, 0xFF])
        _ = try log.commit(batch)
        try log.close()
        let verify = try Cairn.run(["verify", directory.path])
        #expect(verify.status == 1, "\(verify.stdout)")
        #expect(verify.stdout.contains("problem: record LSN "), "\(verify.stdout)")
        #expect(verify.stdout.contains("problem: replay failed: "), "\(verify.stdout)")
        let inspect = try Cairn.run(["inspect", directory.path])
        #expect(inspect.status == 1)
        #expect(inspect.stderr.contains("cairn: corruption: the cache cannot be replayed"), "\(inspect.stderr)")
    }

    @Test("stats shows the log's segments and the live bytes against the threshold")
    func stats() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let live = try SampleDatabaseCache.liveBytes(at: directory.path)
        let run = try Cairn.run(["stats", directory.path, "--threshold=-1"])
        #expect(run.status == 0, "\(run.stderr)")
        let words = run.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(words.first == "segment state file bytes records live bytes dead bytes dead", "\(run.stdout)")
        #expect(words.count > 1 && words[1].hasPrefix("1 active "), "\(run.stdout)")
        #expect(run.stdout.contains("\(live) B live, "), "\(run.stdout)")
        #expect(run.stdout.contains("threshold unlimited: under"), "\(run.stdout)")
    }

    @Test("inspect, dump, verify and stats leave every byte and modification time as it was",
          arguments: [["inspect"], ["dump"], ["dump", "--json"], ["verify"], ["stats", "--threshold", "10"]])
    func readOnly(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let bytes = try snapshot(of: directory.path), times = try filesAndTimes(of: directory.path)
        let run = try Cairn.run([command[0], directory.path] + command.dropFirst())
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try snapshot(of: directory.path) == bytes)
        #expect(try filesAndTimes(of: directory.path) == times)
    }

    @Test("outbox, compact and gc, for Firestore caches only, refuse a Realtime Database cache (exit 2) and change nothing",
          arguments: [["outbox"], ["compact"], ["gc", "--threshold", "0"]])
    func firestoreOnly(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let bytes = try snapshot(of: directory.path)
        let run = try Cairn.run([command[0], directory.path] + command.dropFirst())
        #expect(run.status == 2)
        #expect(run.stderr.contains("is a Realtime Database cache; `cairn \(command[0])` works on Firestore caches only"), "\(run.stderr)")
        #expect(try snapshot(of: directory.path) == bytes)
    }

    @Test("a cache a running app holds is refused with exit status 2, and read once the app has closed it")
    func locked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        let cache = try DatabaseCache.open(at: directory.path)
        let refused = try Cairn.run(["inspect", directory.path])
        cache.close()
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("is in use by pid \(getpid())"), "\(refused.stderr)")
        let read = try Cairn.run(["inspect", directory.path])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.hasPrefix("Realtime Database cache, session 1"))
    }

    @Test("a Realtime Database cache is recognised by its globals record, a Firestore cache and an empty log are not")
    func detection() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleDatabaseCache.build(at: directory.path)
        #expect(DatabaseCacheDetection.isDatabaseCache(at: directory.path))

        let firestore = try TemporaryDirectory()
        defer { firestore.cleanUp() }
        try SampleCache.build(at: firestore.path)
        #expect(!DatabaseCacheDetection.isDatabaseCache(at: firestore.path))
        let run = try Cairn.run(["inspect", firestore.path])
        #expect(run.status == 0 && run.stdout.hasPrefix("format version "), "\(run.stderr)")

        let empty = try TemporaryDirectory()
        defer { empty.cleanUp() }
        try SegmentLog.open(at: empty.path).close()
        #expect(!DatabaseCacheDetection.isDatabaseCache(at: empty.path))
        #expect(!DatabaseCacheDetection.isDatabaseCache(at: empty.path + "/missing"))
    }
}
