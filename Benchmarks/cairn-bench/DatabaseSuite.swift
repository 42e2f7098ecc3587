// `cairn-bench database`: the Realtime Database cache (issue 15's performance goals), measured, not asserted:
// open a ~10 MiB cache and raise the first `value` event; the same with 200,000 tracked queries; 1,000 queued
// writes replayed after a restart; the longest pruning round or compaction step; 10,000 children added one at a
// time under a listened path (memory only: the sync tree's child updates). Each run opens a fresh copy
// of a fixture built once through the cache's own records.

import ArgumentParser
import CairnDatabase
import CairnDatabaseCore
import CairnTestSupport
import Foundation

/// Runs the database suite and prints one line per measurement (median, min–max over the runs).
struct DatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database",
        abstract: "The Realtime Database cache: open and first value, 200,000 tracked queries, 1,000 restored writes, pruning; child updates under a listener.",
        subcommands: [DatabaseOnlineCommand.self])

    @Option(help: "Timed runs per measurement.")
    var runs = 5

    @Option(help: "Multiplies the data sizes and counts (0.05 is a quick smoke test).")
    var scale = 1.0

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard scale > 0, scale.isFinite else { throw ValidationError("--scale must be a positive number") }
    }

    func run() throws {
        let scratch = try ScratchDirectory()
        defer { try? scratch.removeAll() }
        let children = max(10, Int(10_000 * scale))
        let queries = max(10, Int(200_000 * scale))
        let writes = max(10, Int(1_000 * scale))
        Console.progress("scratch directory \(scratch.path), scale \(scale), \(runs) runs")

        let data = try scratch.freshDirectory("data")
        try Self.buildData(at: data, children: children, queries: 0)
        let many = try scratch.freshDirectory("queries")
        try Self.buildData(at: many, children: children, queries: queries)
        let queued = try scratch.freshDirectory("writes")
        try Self.buildWrites(at: queued, count: writes)

        var lines: [String] = []
        lines.append(try measure("open \(Self.size(data)) cache, first value", runs) { try firstValue(copying: data, scratch, path: "items/k\(children / 2)") })
        lines.append(try measure("open with \(queries) tracked queries, first value", runs) { try firstValue(copying: many, scratch, path: "items/k\(children / 2)") })
        lines.append(try measure("restart with \(writes) queued writes, value over them", runs) { try firstValue(copying: queued, scratch, path: "w/\(writes - 1)") })
        lines.append(try measure("longest pruning round or compaction step", runs) { try longestPruneRound(scratch, children: children) })
        lines.append(try measure("add \(children) children one at a time under a listened path", runs) { try addChildren(children) })
        print(lines.joined(separator: "\n"))
    }

    /// A memory-only database whose `childAdded` listener on /list sees `count` children set one at a time (the
    /// sync tree's child updates): the time from the first `setValue` to the last child's event.
    private func addChildren(_ count: Int) throws -> Duration {
        let (database, app) = makeDatabase()
        defer { app.delete { _ in } }
        database.useConnection(OfflineDatabaseConnection())
        database.callbackQueue = DispatchQueue(label: "bench.callbacks")
        let added = LockedCount()
        let last = DispatchSemaphore(value: 0)
        let list = database.reference(withPath: "list")
        list.observe(.childAdded) { _ in
            added.set(added.value + 1)
            if added.value == count { last.signal() }
        }
        let start = ContinuousClock.now
        for index in 0..<count { list.child(String(format: "k%06d", index)).setValue(index) }
        guard last.wait(timeout: .now() + 600) == .success else { throw BenchError("saw \(added.value) of \(count) children in 600 s") }
        return ContinuousClock.now - start
    }

    /// The database of a new app (`bench-…`) for the fixtures' URL; the caller deletes the app when done.
    private func makeDatabase() -> (Database, FirebaseApp) {
        let name = "bench-" + UUID().uuidString.prefix(8).lowercased()
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.databaseURL = "https://bench.firebaseio.com"
        FirebaseApp.configure(name: name, options: options)
        let app = FirebaseApp.app(name: name)!
        return (Database.database(app: app), app)
    }

    private func measure(_ name: String, _ runs: Int, _ body: () throws -> Duration) throws -> String {
        var samples: [Duration] = []
        for run in 1...runs {
            samples.append(try body())
            Console.progress("\(name): run \(run) \(Console.seconds(samples.last!))")
        }
        samples.sort()
        return "\(name): median \(Console.seconds(samples[samples.count / 2])) (min \(Console.seconds(samples.first!)), max \(Console.seconds(samples.last!)))"
    }

    /// A fresh copy of `fixture`, opened by a new database whose first observer of `path` gets its `value`.
    private func firstValue(copying fixture: String, _ scratch: ScratchDirectory, path: String) throws -> Duration {
        let copy = try scratch.freshDirectory("run")
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: fixture, toPath: copy)
        let (database, app) = makeDatabase()
        defer { app.delete { _ in } }
        database.isPersistenceEnabled = true
        database.usePersistenceDirectory(copy)
        database.useConnection(OfflineDatabaseConnection())
        database.callbackQueue = DispatchQueue(label: "bench.callbacks")
        let fired = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        database.reference(withPath: path).observeSingleEvent(of: .value) { _ in fired.signal() }
        guard fired.wait(timeout: .now() + 120) == .success else { throw BenchError("no value event for \(path)") }
        return ContinuousClock.now - start
    }

    /// A cache over the threshold; the longest `pruneIfNeeded` round of one check, each with its bounded compaction
    /// step, or the longest of the steps that finish the compaction afterwards; the files must end under the size.
    private func longestPruneRound(_ scratch: ScratchDirectory, children: Int) throws -> Duration {
        let directory = try scratch.freshDirectory("prune")
        var policy = CachePolicy(maxBytes: UInt64(1000 * children / 2))
        policy.maxRounds = 1
        let persistence = PersistenceManager(cache: try DatabaseCache.open(at: directory), policy: policy)
        defer { persistence.close() }
        let groups = max(10, children / 10)
        for group in 0..<groups {
            let node = Node(children: (0..<10).map { NamedNode("k\($0)", Node(leaf: .string(Self.payload(group * 10 + $0)))) })
            let query = QuerySpec(path: DatabasePath(keys: ["items", "g\(group)"]))
            persistence.setQueryActive(query)
            persistence.updateServerCache(node, for: query)
            persistence.setQueryInactive(query)
        }
        var longest = Duration.zero
        while true {
            let start = ContinuousClock.now
            guard persistence.pruneIfNeeded() > 0 else { break }
            longest = max(longest, ContinuousClock.now - start)
        }
        // The compaction steps left after the last round (server updates run them): each counts as a round.
        while persistence.cache.isCompacting {
            let start = ContinuousClock.now
            try persistence.cache.compactStep()
            longest = max(longest, ContinuousClock.now - start)
        }
        let live = persistence.cache.log.statistics
        guard live.liveRecordBytes <= policy.maxBytes, live.fileBytes < UInt64(1000 * children) else {
            throw BenchError("pruning left \(live.liveRecordBytes) live bytes in \(live.fileBytes) file bytes")
        }
        return longest
    }

    /// ~1 KiB of letters that LZ4 cannot squeeze away, different for each `seed`.
    static func payload(_ seed: Int) -> String {
        var random = SeededRandom(seed: UInt64(seed) &+ 1)
        return String((0..<1000).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) })
    }

    /// `children` ~1 KiB children under /items with a complete default query there, and `queries` inactive
    /// filtered tracked queries, committed in batches of 1,000 records.
    static func buildData(at directory: String, children: Int, queries: Int) throws {
        let cache = try DatabaseCache.open(at: directory)
        defer { cache.close() }
        for start in stride(from: 0, to: children, by: 1000) {
            try cache.commit((start..<min(start + 1000, children)).map {
                .serverOverwrite(DatabasePath(keys: ["items", "k\($0)"]), Node(leaf: .string(payload($0))))
            })
        }
        try cache.commit([.trackedQuerySaved(id: 1, query: QuerySpec(path: DatabasePath(keys: ["items"])), isComplete: true, isActive: false)])
        let params = try QueryParams().limited(toLast: 10)
        for start in stride(from: 0, to: queries, by: 1000) {
            try cache.commit((start..<min(start + 1000, queries)).map {
                .trackedQuerySaved(id: UInt64($0 + 2), query: QuerySpec(path: DatabasePath(keys: ["q", "p\($0)"]), params: params),
                                   isComplete: true, isActive: false)
            })
        }
    }

    /// `count` pending overwrites at /w/<i>, each with a server timestamp.
    static func buildWrites(at directory: String, count: Int) throws {
        let cache = try DatabaseCache.open(at: directory)
        defer { cache.close() }
        let node = try Node(json: .object(["at": .object([".sv": .string("timestamp")]), "n": .int(1)]))
        try cache.commit((0..<count).map { .userWriteAdded(PersistedWrite(id: UInt64($0 + 1), path: DatabasePath(keys: ["w", "\($0)"]), overwrite: node)) })
    }

    static func size(_ directory: String) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let bytes = names.reduce(0) { total, name in
            total + (((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name))?[.size] as? NSNumber)?.intValue ?? 0)
        }
        return Console.megabytes(bytes)
    }
}
