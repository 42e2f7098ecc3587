import CairnModel
import Foundation
import SegmentLog

/// Offline maintenance of a cache directory no app has open (`cairn compact`, `cairn gc`): compaction and LRU
/// garbage collection through ``LocalStore``, with a before/after summary. Both take the directory's lock, so
/// they refuse a cache a running app holds. Their dry runs change nothing: compaction lists the segments it
/// would rewrite, garbage collection runs on a temporary copy and reports what it removed there.
///
/// ```swift
/// let result = try CacheMaintenance.collectGarbage(at: path, threshold: 1 << 20, dryRun: true) { print($0) }
/// print(result.evictedDocuments)   // exactly what a real run evicts
/// ```
package enum CacheMaintenance {
    /// Compacts every sealed segment whose dead share of record bytes is at least `minimumDeadRatio`, calling
    /// `progress` after each step.
    package static func compact(
        at directory: String, minimumDeadRatio: Double, progress: (String) -> Void
    ) throws -> CompactionResult {
        try checkIsCache(directory)
        return try withStore(at: directory) { store, log in
            let before = CacheSize(log)
            var steps = 0
            while let summary = try store.compact(minimumDeadRatio: minimumDeadRatio) {
                steps += 1
                progress(
                    "step \(steps): segment(s) \(summary.inputs.map(String.init).joined(separator: ", ")) → "
                        + "\(summary.outputs.isEmpty ? "none" : summary.outputs.map(String.init).joined(separator: ", ")); "
                        + "kept \(summary.recordsKept) record(s), dropped \(summary.recordsDropped)")
            }
            return CompactionResult(before: before, after: CacheSize(log), steps: steps)
        }
    }

    /// Brings the cache under `threshold` bytes on disk by LRU garbage collection
    /// (``LocalStore/collectGarbage(threshold:maxRounds:roundBudget:)``). With `dryRun`, works on a temporary copy of the
    /// directory and leaves the cache itself untouched: the lists are what a real run would remove.
    package static func collectGarbage(
        at directory: String, threshold: Int64, dryRun: Bool, progress: (String) -> Void
    ) throws -> GarbageCollectionReport {
        try checkIsCache(directory)
        guard dryRun else { return try collect(at: directory, threshold: threshold, progress: progress) }
        if let holder = SegmentLog.lockHolder(at: directory) {
            throw InspectionError(.locked, "\(directory) is in use by \(holder); close that app first")
        }
        let copy = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-gc-dry-run-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        do {
            try PrivateCopy.createDirectory(copy)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name != "LOCK" {
                try PrivateCopy.copyFile(directory + "/" + name, to: copy + "/" + name)
            }
        } catch {
            throw InspectionError(.io, "cannot copy \(directory) for the dry run to \(copy): \(error)")
        }
        progress("dry run on a copy of the cache")
        var report = try collect(at: copy, threshold: threshold, progress: progress)
        report.isDryRun = true
        return report
    }

    private static func collect(at directory: String, threshold: Int64, progress: (String) -> Void) throws -> GarbageCollectionReport {
        try withStore(at: directory) { store, log in
            let documentsBefore = cachedKeys(store)
            let targetsBefore = Set(store.targets.saved.keys)
            let before = CacheSize(log)
            progress("collecting: \(before.bytesOnDisk) bytes on disk, threshold \(threshold)")
            let result = try store.collectGarbage(threshold: threshold)
            progress("collected in \(result.rounds) round(s)")
            let documentsAfter = cachedKeys(store)
            return GarbageCollectionReport(
                before: before, after: CacheSize(log), rounds: result.rounds,
                removedTargets: targetsBefore.subtracting(store.targets.saved.keys).sorted(),
                evictedDocuments: documentsBefore.subtracting(documentsAfter).sorted().map(\.description), isDryRun: false)
        }
    }

    /// The keys of every cached document, existing or not.
    private static func cachedKeys(_ store: LocalStore) -> Set<DocumentKey> {
        var keys = Set<DocumentKey>()
        store.remoteDocuments.forEachEntry { key, _ in keys.insert(key) }
        return keys
    }

    /// Refuses a directory that holds no cache before a writable open could create one there.
    private static func checkIsCache(_ directory: String) throws {
        let inspector = try CacheInspector.open(at: directory)
        defer { inspector.close() }
        _ = try inspector.replayed()
    }

    private static func withStore<T>(at directory: String, _ body: (LocalStore, SegmentLog) throws -> T) throws -> T {
        do {
            let store = try LocalStore.open(at: directory)
            defer { try? store.close() }
            return try body(store, store.persistentLog!)
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
    }
}

/// The size of a cache at one moment (before or after maintenance).
package struct CacheSize: Sendable, Equatable, Codable {
    package var segments: Int
    package var bytesOnDisk: UInt64
    package var records: UInt64
    package var deadRecordBytes: UInt64

    init(_ log: SegmentLog) {
        let statistics = log.statistics
        segments = statistics.segments.count
        bytesOnDisk = statistics.fileBytes
        records = statistics.recordCount
        deadRecordBytes = statistics.deadRecordBytes
    }
}

/// What ``CacheMaintenance/compact(at:minimumDeadRatio:progress:)`` did.
package struct CompactionResult: Sendable, Equatable {
    package var before: CacheSize
    package var after: CacheSize
    /// Compactions run (0: nothing was dirty enough).
    package var steps: Int
}

/// What ``CacheMaintenance/collectGarbage(at:threshold:dryRun:progress:)`` removed (or, in a dry run, would).
package struct GarbageCollectionReport: Sendable, Equatable {
    package var before: CacheSize
    package var after: CacheSize
    package var rounds: Int
    /// Target ids removed, ascending.
    package var removedTargets: [Int32]
    /// Document paths evicted, ascending.
    package var evictedDocuments: [String]
    package var isDryRun: Bool
}

extension CacheInspector {
    /// The sealed segments compaction would rewrite, dirtiest first (as ``LocalStore/compact(minimumDeadRatio:stepBudget:)``
    /// picks them).
    package func compactionCandidates(minimumDeadRatio: Double) throws -> [SegmentReport] {
        _ = try replayed()
        let reports = Dictionary(uniqueKeysWithValues: try segmentReports().map { ($0.id, $0) })
        return log.compactionCandidates(minimumDeadRatio: minimumDeadRatio).compactMap { reports[$0] }
    }
}
