// `cairn-bench engine`: Cairn's SegmentLog against SQLite (GRDB, WAL) and LevelDB on appends, replay, point reads and
// scans, in one process with interleaved runs. Counts here are for `--scale 1`.

import ArgumentParser
import Foundation

/// Runs the engine suite: SegmentLog vs SQLite and LevelDB on the same workloads.
struct EngineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "SegmentLog vs SQLite (GRDB DatabasePool, WAL) vs LevelDB: appends, replay, point reads, scans.",
        discussion: """
            Workloads: \(EngineSuite.workloadNames.joined(separator: ", ")). Runs alternate between the \
            engines (cairn 1, sqlite 1, leveldb 1, cairn 2, ...); the table shows medians and min–max. Files live in a \
            temporary directory that is removed at the end.
            """)

    @OptionGroup var options: SuiteOptions

    /// SegmentLog's frame target size in KiB instead of its default (to measure the trade-off on one binary).
    @Option(help: .hidden)
    var cairnFrameKib: Int?

    func validate() throws {
        _ = try options.selectedWorkloads(from: EngineSuite.workloadNames)
        if let cairnFrameKib, !(1...(16 << 10)).contains(cairnFrameKib) {
            throw ValidationError("--cairn-frame-kib must be between 1 and 16384")
        }
    }

    func run() throws {
        try EngineSuite(options: options, cairnFrameTargetSize: cairnFrameKib.map { $0 << 10 }).run()
    }
}

/// Builds the selected workloads, runs them, prints the table and writes the JSON.
struct EngineSuite {
    let options: SuiteOptions
    /// SegmentLog's frame target size; nil keeps its default.
    var cairnFrameTargetSize: Int? = nil

    /// Every workload of the suite, in report order.
    static let workloadNames = [
        "append_batched_1000", "append_single_durable", "replay_open", "point_read_hot", "point_read_cold",
        "scan_all",
    ]

    /// Records per commit in `append_batched_1000`.
    static let batchSize = 1000
    /// Cache size every engine gets in `point_read_hot`: holds the whole read data set (~110 MB at scale 1).
    static let hotCacheBytes = 256 << 20

    func run() throws {
        let names = try options.selectedWorkloads(from: Self.workloadNames)
        let scratch = try ScratchDirectory()
        defer {
            do { try scratch.removeAll() } catch { Console.progress("could not remove \(scratch.path): \(error)") }
        }
        Console.progress("scratch directory \(scratch.path), scale \(options.scale), \(options.runs) runs")
        let engines: [any StorageEngine] = [SegmentLogEngine(frameTargetSize: cairnFrameTargetSize), SQLiteEngine(), LevelDBEngine()]
        let workloads = makeWorkloads(names, scratch: scratch)
        var results: [WorkloadResult] = []
        for workload in workloads {
            results.append(try Harness.run(workload, engines: engines, runs: options.runs))
        }
        let report = SuiteReport(suite: "engine", subject: "cairn", baselines: ["sqlite", "leveldb"], results: results)
        print(report.table(), terminator: "")
        if let path = options.json {
            try report.json().write(to: URL(fileURLWithPath: path))
            Console.progress("wrote \(path)")
        }
    }

    /// The workloads named in `names`. Data sets are shared between workloads and loaded on first use.
    private func makeWorkloads(_ names: [String], scratch: ScratchDirectory) -> [any Workload] {
        let documents = DocumentGenerator(seed: 1, valueSize: 1024)
        let readSet = DataSet(
            label: "read-set", generator: DocumentGenerator(seed: 3, valueSize: 1024),
            count: options.scaled(100_000, minimum: 1000), scratch: scratch)
        return names.map { name -> any Workload in
            switch name {
            case "append_batched_1000":
                return AppendWorkload(
                    name: name, unit: "records/s", count: options.scaled(100_000, minimum: Self.batchSize),
                    batchSize: Self.batchSize, profile: .batched,
                    note: "\(Self.batchSize) records per commit. Cairn: WriteBatch, Durability.full (every commit "
                        + "fsyncs). SQLite: one transaction per \(Self.batchSize) inserts, cached statement, GRDB "
                        + "defaults (WAL, synchronous=NORMAL: commits are not fsynced, only checkpoints are). LevelDB: one "
                        + "WriteBatch per \(Self.batchSize) puts, sync=false as Firebase's Apple SDK writes (not fsynced).",
                    generator: documents, scratch: scratch)
            case "append_single_durable":
                return AppendWorkload(
                    name: name, unit: "commits/s", count: options.scaled(2000, minimum: 20), batchSize: 1,
                    profile: .durable,
                    note: "One record per commit, durable on return. Cairn: log.append, Durability.full; SQLite: "
                        + "one INSERT transaction each, WAL with synchronous=FULL (fsync per commit); LevelDB: one Put "
                        + "each, WriteOptions.sync=true (fsync per write).",
                    generator: documents, scratch: scratch)
            case "replay_open":
                return ReplayWorkload(
                    dataSet: DataSet(
                        label: "replay-set", generator: DocumentGenerator(seed: 2, valueSize: 200),
                        count: options.scaled(1_000_000, minimum: 1000), scratch: scratch))
            case "point_read_hot":
                return PointReadWorkload(
                    name: name, temperature: .hot(cacheBytes: Self.hotCacheBytes),
                    reads: options.scaled(200_000, minimum: 1000), dataSet: readSet)
            case "point_read_cold":
                return PointReadWorkload(
                    name: name, temperature: .cold, reads: options.scaled(10_000, minimum: 500), dataSet: readSet)
            case "scan_all":
                return ScanWorkload(dataSet: readSet)
            default:
                preconditionFailure("workload \(name) is listed but not built")
            }
        }
    }
}
