// `cairn-bench query`: Cairn's LocalStore against a SQLite cache laid out like Firebase's Android SDK, a LevelDB
// cache laid out like Firebase's Apple SDK and an in-memory floor, on the offline queries that are slow in Firebase's SDKs once the cache grows (issue 7),
// plus local writes, cold open, listener latency and LRU garbage collection.

import ArgumentParser
import Foundation

/// Runs the query suite.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Cairn's LocalStore vs SQLite as Firebase Android vs LevelDB as Firebase iOS vs an in-memory floor: "
            + "offline queries.",
        discussion: """
            Workloads: \(QuerySuite.workloadNames.joined(separator: ", ")). Builds a cache of --docs documents \
            (~1 KiB each; orders, users and rooms/*/messages) in each engine, then runs the engines in turn \
            (cairn 1, sqlite 1, leveldb 1, limit 1, cairn 2, ...). The table shows medians, p95 and ratios; --json and \
            --svg write the same results. Files live in a temporary directory removed at the end; with \
            --fixture-cache DIR each engine's loaded cache is kept in DIR and copied from there in later runs \
            instead of loaded again (Docs/Benchmarks.md says what invalidates an entry).
            """)

    @OptionGroup var options: SuiteOptions

    @Option(help: "Cached documents (multiplied by --scale).")
    var docs = 100_000

    @Option(help: "Also draw the results as an SVG chart at this path.")
    var svg: String?

    @Flag(inversion: .prefixedNo, help: "Measure each engine's peak resident memory in a process of its own.")
    var memory = true

    @Option(help: "Bound of Cairn's scan cache of decoded field values, in MiB (default: LocalStore's 32; 0 turns it off).")
    var cairnScanCacheMib: Int?

    @Option(help: "Bound of Cairn's frame cache of decompressed log frames, in MiB (default: LocalStore's).")
    var cairnFrameCacheMib: Int?

    @Option(help: "Comma-separated engines to run (cairn, sqlite, leveldb, limit; default: all), e.g. cairn alone at 1M documents.")
    var engines: String?

    @Option(help: "Keep each engine's loaded cache in this directory and reuse it in later runs (default: load in every run).")
    var fixtureCache: String?

    @Option(help: "Stop an engine's lru_gc_to_threshold run after this many seconds, reported as not finished (its later runs are skipped; default: no cap).")
    var gcCapSeconds: Int?

    /// Milliseconds to sleep after each lru_gc_to_threshold round (tests make a run outlast --gc-cap-seconds).
    @Option(help: .hidden)
    var gcRoundPauseMs = 0

    /// The child of the memory measurement: the engine to measure (MemoryProbe.swift).
    @Option(help: .hidden)
    var memoryProbe: String?

    /// The child's loaded cache.
    @Option(help: .hidden)
    var probeDirectory: String?

    func validate() throws {
        _ = try options.selectedWorkloads(from: QuerySuite.workloadNames)
        guard options.scaled(docs) >= 1000 else {
            throw ValidationError("--docs times --scale must be at least 1000 (the listened chat alone holds 1,000 messages)")
        }
        _ = try selectedEngines()
        if let gcCapSeconds, gcCapSeconds < 1 { throw ValidationError("--gc-cap-seconds must be at least 1") }
        if gcRoundPauseMs < 0 { throw ValidationError("--gc-round-pause-ms must not be negative") }
        if let fixtureCache, fixtureCache.isEmpty { throw ValidationError("--fixture-cache needs a directory") }
    }

    /// The names given with --engines, checked; nil for all.
    func selectedEngines() throws -> Set<String>? {
        guard let engines else { return nil }
        let names = Set(engines.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let known = Set(QueryReport.engines)
        guard !names.isEmpty, names.isSubset(of: known) else {
            throw ValidationError("--engines takes names from \(QueryReport.engines.joined(separator: ", ")), not \(engines)")
        }
        return names
    }

    func run() throws {
        let documents = options.scaled(docs)
        let bounds = CairnCacheBounds(
            scanCacheBytes: cairnScanCacheMib.map { $0 << 20 }, frameCacheBytes: cairnFrameCacheMib.map { $0 << 20 })
        if let memoryProbe {
            let engines = QuerySuite.engines(bounds)
            guard let engine = engines.first(where: { $0.name == memoryProbe }), let probeDirectory else {
                throw ValidationError("--memory-probe needs an engine (cairn, sqlite, leveldb, limit) and --probe-directory")
            }
            let names = try options.selectedWorkloads(from: QuerySuite.workloadNames)
            try MemoryProbe.runChild(
                engine: engine, directory: probeDirectory, corpus: QueryCorpus(count: documents),
                queries: try names.compactMap(QueryCatalog.query(forWorkload:)))
            return
        }
        try QuerySuite(
            options: options, documents: documents, svg: svg, measuresMemory: memory, cairnBounds: bounds,
            engineNames: try selectedEngines(), fixtureCache: fixtureCache, gcCapSeconds: gcCapSeconds,
            gcRoundPauseMilliseconds: gcRoundPauseMs
        ).run()
    }
}

/// Builds the selected workloads, runs them, and writes the table, the JSON and the chart.
struct QuerySuite {
    let options: SuiteOptions
    let documents: Int
    let svg: String?
    let measuresMemory: Bool
    /// Cairn's scan cache bound; nil keeps LocalStore's default.
    let cairnBounds: CairnCacheBounds
    /// The engines to run; nil for all.
    let engineNames: Set<String>?
    /// The fixture cache's directory; nil loads every engine.
    let fixtureCache: String?
    /// lru_gc_to_threshold's time cap per run; nil for none.
    let gcCapSeconds: Int?
    /// Milliseconds slept after each lru_gc_to_threshold round (tests of the cap); 0 for none.
    let gcRoundPauseMilliseconds: Int

    static let workloadNames = [
        "query_scan_eq", "query_scan_range_order_limit", "query_index_range_order_limit", "query_index_array_contains",
        "query_collection_group", "write_batched_500", "cold_open_first_query", "listener_latency",
        "lru_gc_to_threshold",
    ]

    func run() throws {
        let names = try options.selectedWorkloads(from: Self.workloadNames)
        let scratch = try ScratchDirectory()
        let fixture = QueryFixture(
            corpus: QueryCorpus(count: documents), scratch: scratch, cache: try fixtureCache.map(FixtureCache.init(root:)))
        defer {
            do { try fixture.closeAll() } catch { Console.progress("could not close a cache: \(error)") }
            do { try scratch.removeAll() } catch { Console.progress("could not remove \(scratch.path): \(error)") }
        }
        Console.progress("scratch directory \(scratch.path), \(documents) documents, \(options.runs) runs")
        let engines = Self.engines(cairnBounds).filter { engineNames?.contains($0.name) ?? true }
        var results: [QueryWorkloadResult] = []
        for name in names {
            results.append(try QueryHarness.run(try workload(name, fixture), engines: engines, runs: options.runs))
        }
        var memory: [EngineMemory] = []
        if measuresMemory {
            try fixture.closeAll()
            for engine in engines {
                let directory = engine.isPersistent ? try fixture.directory(for: engine) : scratch.path
                memory.append(try MemoryProbe.measure(
                    engine, directory: directory, documents: documents, workloads: names, cairnBounds: cairnBounds))
            }
        }
        let report = QueryReport(documents: documents, runs: options.runs, results: results, memory: memory)
        print(report.table(), terminator: "")
        if let path = options.json {
            try report.json().write(to: URL(fileURLWithPath: path))
            Console.progress("wrote \(path)")
        }
        if let svg {
            try Data(QueryChart(report: report).svg().utf8).write(to: URL(fileURLWithPath: svg))
            Console.progress("wrote \(svg)")
        }
    }

    /// The engines of a run, in the order they alternate.
    static func engines(_ cairnBounds: CairnCacheBounds) -> [any QueryEngine] {
        [CairnQueryEngine(bounds: cairnBounds), AndroidSQLiteEngine(), IOSLevelDBEngine(), MemoryFloorEngine()]
    }

    private func workload(_ name: String, _ fixture: QueryFixture) throws -> any QueryWorkload {
        if let query = try QueryCatalog.query(forWorkload: name), let description = QueryCatalog.descriptions[name] {
            return QueryExecutionWorkload(name: name, query: query, description: description, fixture: fixture)
        }
        switch name {
        case "write_batched_500":
            return WriteBatchWorkload(batchCount: 10, corpus: fixture.corpus, scratch: fixture.scratch)
        case "cold_open_first_query":
            return ColdOpenWorkload(query: try QueryCatalog.scanEquality(), fixture: fixture)
        case "listener_latency":
            return ListenerLatencyWorkload(query: try QueryCatalog.lobbyBySentAt(), writes: 50, fixture: fixture)
        case "lru_gc_to_threshold":
            return GarbageCollectionWorkload(
                query: try QueryCatalog.lobbyBySentAt(), fixture: fixture, timeCapSeconds: gcCapSeconds,
                roundPauseMilliseconds: gcRoundPauseMilliseconds)
        default:
            throw BenchError("workload \(name) is listed but not built")
        }
    }
}
