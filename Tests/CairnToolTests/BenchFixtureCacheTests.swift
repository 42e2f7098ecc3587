import Foundation
import Testing

/// `cairn-bench query --fixture-cache DIR`: loaded engine caches kept between runs, never used when stale,
/// incomplete or damaged, never changed by a run. Runs the built `cairn-bench` at 1,000 documents.
@Suite("cairn-bench query --fixture-cache")
struct BenchFixtureCacheTests {
    static let persistentEngines = ["cairn", "sqlite", "leveldb"]

    /// The built `cairn-bench` next to the test bundle, or `$CAIRN_BENCH_BINARY`.
    static let binary: String = ProcessInfo.processInfo.environment["CAIRN_BENCH_BINARY"]
        ?? URL(fileURLWithPath: Cairn.binary).deletingLastPathComponent().appendingPathComponent("cairn-bench").path

    /// Runs the query suite on 1,000 documents with the three persistent engines, one run, no memory probes.
    static func bench(cache: String, workloads: String = "query_scan_eq") throws -> Cairn.Run {
        let run = try Cairn.run(
            [
                "query", "--docs", "1000", "--runs", "1", "--no-memory", "--engines", persistentEngines.joined(separator: ","),
                "--workloads", workloads, "--fixture-cache", cache,
            ], executable: binary)
        #expect(run.status == 0, "cairn-bench failed: \(run.stderr)")
        return run
    }

    /// The engines a run loaded (rather than copied from the cache), from its progress lines.
    static func loaded(_ run: Cairn.Run) -> Set<String> {
        Set(persistentEngines.filter { run.stderr.contains("loading 1.00k documents into \($0)\n") })
    }

    static func reused(_ run: Cairn.Run) -> Set<String> {
        Set(persistentEngines.filter { run.stderr.contains("fixture cache: reused \($0)'s loaded cache of 1000 documents") })
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
    }

    @Test("a second run copies every engine's loaded cache from the fixture cache and loads nothing; the cache is private")
    func reuse() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/fixtures"
        let first = try Self.bench(cache: cache)
        #expect(Self.loaded(first) == Set(Self.persistentEngines))
        #expect(Self.reused(first).isEmpty)
        for engine in Self.persistentEngines {
            #expect(first.stderr.contains("fixture cache: stored \(engine)'s loaded cache in \(cache)/\(engine)-1000 "))
        }
        let second = try Self.bench(cache: cache)
        #expect(Self.loaded(second).isEmpty, "\(second.stderr)")
        #expect(Self.reused(second) == Set(Self.persistentEngines))
        // The same answers from the copies as from the loads.
        let results = { (run: Cairn.Run) in run.stderr.split(separator: "\n").filter { $0.contains("query_scan_eq: ") && $0.hasSuffix(" results") } }
        #expect(!results(first).isEmpty && results(first) == results(second))
        // Directories 0700, files 0600.
        #expect(try Self.mode(cache) == 0o700)
        let enumerator = try #require(FileManager.default.enumerator(atPath: cache))
        var files = 0
        for case let name as String in enumerator {
            let path = cache + "/" + name
            let isDirectory = (try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeDirectory
            #expect(try Self.mode(path) == (isDirectory ? 0o700 : 0o600), "\(name)")
            if !isDirectory { files += 1 }
        }
        #expect(files > 3)
    }

    @Test("runs that write (listener writes, garbage collection, cold open, catch-up) leave the cached copy byte for byte unchanged")
    func unchangedByRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/fixtures"
        _ = try Self.bench(cache: cache)
        let before = try snapshot(of: cache)
        let writing = try Self.bench(
            cache: cache, workloads: "query_scan_eq,cold_open_first_query,listener_latency,lru_gc_to_threshold")
        #expect(Self.reused(writing) == Set(Self.persistentEngines))
        for engine in Self.persistentEngines {
            #expect(writing.stderr.contains("listener_latency run 1/1 \(engine): "))
            #expect(writing.stderr.contains("lru_gc_to_threshold run 1/1 \(engine): "))
        }
        #expect(try snapshot(of: cache) == before)
    }

    @Test("an entry whose manifest names another layout or corpus is removed and the engine loaded again")
    func staleEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/fixtures"
        _ = try Self.bench(cache: cache)
        let manifest = cache + "/sqlite-1000/manifest.json"
        let original = try String(contentsOfFile: manifest, encoding: .utf8)
        let edited = original.replacingOccurrences(of: "\"sqlite 1:", with: "\"sqlite 0:")
        #expect(edited != original)
        try edited.write(toFile: manifest, atomically: true, encoding: .utf8)
        let corpusManifest = cache + "/leveldb-1000/manifest.json"
        let corpus = try String(contentsOfFile: corpusManifest, encoding: .utf8)
        try corpus.replacingOccurrences(of: "seed 7", with: "seed 8").write(toFile: corpusManifest, atomically: true, encoding: .utf8)
        let second = try Self.bench(cache: cache)
        #expect(Self.loaded(second) == ["sqlite", "leveldb"])
        #expect(Self.reused(second) == ["cairn"])
        #expect(second.stderr.contains("sqlite-1000 is stale: its layout is \"sqlite 0:"))
        #expect(second.stderr.contains("leveldb-1000 is stale: its corpus is \"generator 1, seed 8"))
        // Stored anew under the current layout: the third run reuses it.
        #expect(try String(contentsOfFile: manifest, encoding: .utf8).contains("\"sqlite 1:"))
        #expect(Self.loaded(try Self.bench(cache: cache)).isEmpty)
    }

    @Test("an incomplete entry (no manifest) or an interrupted store is never used; the engine is loaded again")
    func incompleteEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/fixtures"
        _ = try Self.bench(cache: cache)
        try FileManager.default.removeItem(atPath: cache + "/leveldb-1000/manifest.json")
        // A store interrupted before its rename: a partial directory of a process that no longer runs (the pid is
        // above Linux's largest pid_max).
        let partial = cache + "/.cairn-1000.partial-4194399"
        try FileManager.default.moveItem(atPath: cache + "/cairn-1000", toPath: partial)
        let second = try Self.bench(cache: cache)
        #expect(Self.loaded(second) == ["leveldb", "cairn"])
        #expect(Self.reused(second) == ["sqlite"])
        #expect(second.stderr.contains("leveldb-1000 is incomplete or unreadable"))
        #expect(second.stderr.contains("fixture cache: no cairn entry for 1000 documents"))
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(FileManager.default.fileExists(atPath: cache + "/cairn-1000/manifest.json"))
        #expect(FileManager.default.fileExists(atPath: cache + "/leveldb-1000/manifest.json"))
    }

    @Test("a cached file changed on disk (same size) is noticed while it is copied; the engine is loaded again")
    func damagedEntry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/fixtures"
        _ = try Self.bench(cache: cache)
        let data = cache + "/sqlite-1000/data"
        let largest = try #require(try snapshot(of: data).max { $0.value.count < $1.value.count })
        var bytes = [UInt8](largest.value)
        bytes[bytes.count / 2] ^= 0x5A
        try Data(bytes).write(to: URL(fileURLWithPath: data + "/" + largest.key))
        let second = try Self.bench(cache: cache)
        #expect(Self.loaded(second) == ["sqlite"])
        #expect(second.stderr.contains("sqlite-1000 is damaged: \(largest.key) has \(bytes.count) bytes with CRC32C"))
    }
}
