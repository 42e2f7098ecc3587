// Peak resident memory per engine. The suite runs its engines interleaved in one process, so one process's
// peak says nothing about any one engine; instead, after the timed workloads, the suite starts itself once per
// engine in a hidden mode (`cairn-bench query --memory-probe ENGINE --probe-directory DIR ...`). That child
// notes its resident size before touching any cache (the baseline: runtime, libraries, the binary), opens the
// engine's loaded cache (the floor: decodes the corpus into memory), finishes its background work, answers the
// run's query workloads' queries and the listened chat query twice each, and prints one JSON line with its
// peak (`VmHWM`) and current (`VmRSS`) resident sizes from /proc/self/status, and (Cairn) the bytes its bounded
// caches hold at the end: the log's frame cache and the scans' cache of field values. The parent adds the
// cache's bytes on disk and reports both per engine and per cached document, Cairn's also beyond its bounded
// caches.

import CairnModel
import Foundation

/// One engine's memory, measured in a process of its own.
struct EngineMemory: Codable {
    let engine: String
    let documents: Int
    /// Resident bytes of the child before it touched the cache.
    let baselineRSSBytes: Int
    /// The child's peak resident bytes (open, catch-up, queries).
    let peakRSSBytes: Int
    /// The child's resident bytes after the queries, the cache still open.
    let residentBytes: Int
    /// The cache's bytes on disk; nil for the in-memory floor.
    var diskBytes: Int?
    /// Bytes in the engine's bounded caches after the queries (Cairn: SegmentLog's frame cache and the scans'
    /// cache of decoded field values); nil for engines that do not report them.
    var frameCacheBytes: Int?
    var scanCacheBytes: Int?

    /// Resident bytes above the baseline per cached document, with the cache open and warm.
    var residentBytesPerDocument: Double { Double(max(0, residentBytes - baselineRSSBytes)) / Double(documents) }
    var diskBytesPerDocument: Double? { diskBytes.map { Double($0) / Double(documents) } }
    var boundedCacheBytes: Int? { frameCacheBytes.map { $0 + (scanCacheBytes ?? 0) } }
    /// ``residentBytesPerDocument`` without the bounded caches: what grows with the number of documents.
    var residentBytesPerDocumentBeyondBoundedCaches: Double? {
        boundedCacheBytes.map { Double(max(0, residentBytes - baselineRSSBytes - $0)) / Double(documents) }
    }
}

enum MemoryProbe {
    /// Times each query is answered in the child.
    static let repeats = 2

    /// The child's side: measures `engine` on the cache in `directory` and prints an ``EngineMemory`` line.
    static func runChild(engine: any QueryEngine, directory: String, corpus: QueryCorpus, queries: [Query]) throws {
        let baseline = try status("VmRSS")
        if !engine.isPersistent { try engine.load(corpus, into: directory) }
        let cache = try engine.open(directory)
        try cache.catchUp()
        for query in queries + [try QueryCatalog.lobbyBySentAt()] {
            for _ in 0..<repeats { _ = try cache.execute(query) }
        }
        var memory = EngineMemory(
            engine: engine.name, documents: corpus.count, baselineRSSBytes: baseline, peakRSSBytes: try status("VmHWM"),
            residentBytes: try status("VmRSS"))
        if let cairn = cache as? CairnQueryCache {
            memory.frameCacheBytes = cairn.store.cachedFrameBytes
            memory.scanCacheBytes = cairn.store.scanCacheBytes
        }
        try cache.close()
        FileHandle.standardOutput.write(try JSONEncoder().encode(memory) + Data("\n".utf8))
    }

    /// The parent's side: runs the child for `engine` on its loaded cache in `directory` (closed), answering
    /// the queries of `workloads` with the run's bounds of Cairn's caches, and returns what it measured with the cache's bytes on disk.
    static func measure(
        _ engine: any QueryEngine, directory: String, documents: Int, workloads: [String], cairnBounds: CairnCacheBounds
    ) throws -> EngineMemory {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [
            "query", "--docs", String(documents), "--runs", "1", "--workloads", workloads.joined(separator: ","),
            "--memory-probe", engine.name, "--probe-directory", directory,
        ] + cairnBounds.arguments
        let output = Pipe()
        process.standardOutput = output
        Console.progress("memory: \(engine.name) in a process of its own")
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("memory probe for \(engine.name) exited with status \(process.terminationStatus)")
        }
        var memory = try JSONDecoder().decode(EngineMemory.self, from: data)
        if engine.isPersistent { memory.diskBytes = ScratchDirectory.diskBytes(directory) }
        return memory
    }

    /// A `kB` line of /proc/self/status (`VmRSS`, `VmHWM`), in bytes.
    static func status(_ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
            if let number { return number * 1024 }
        }
        throw BenchError("/proc/self/status has no \(field) line (memory is measured on Linux only)")
    }
}
