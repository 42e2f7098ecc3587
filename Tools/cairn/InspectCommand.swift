import ArgumentParser
import CairnDatabaseCore
import CairnLocalStore

/// `cairn inspect DIR`: the cache at a glance, from ``CacheInspector/report(threshold:)``.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Report what a cache holds: segments, events, documents, outbox, targets, indexes, LRU.",
        discussion: """
            Shows the format version; each segment's size, frames, compression ratio and live versus dead \
            record bytes; the records by event type; documents per collection; the outbox length and its \
            oldest pending batch; the saved targets; the globals; the field indexes, each with the documents \
            a backfill reads after the next open and the entries it then holds (entries are not stored: the \
            inspector backfills in memory), and whether automatic index creation is on; and the bytes on disk \
            against the cache-size threshold (give the app's with --threshold). A cache that the app recovered \
            from damage by itself first says when, why, where the damaged copy is and what was kept.
            Live and dead are exact: the cache's own replay decides which records are superseded.
            For a Realtime Database cache: the session, the segments, the tracked queries (path, parameters, \
            complete, active, last use, tracked keys), the pending writes (path, overwrite or merge, bytes), the \
            exact live bytes against the threshold (default 10485760) and what the next pruning check does.
            Opens the directory read-only and changes nothing.

            Example:
              cairn inspect ~/Library/Caches/app/firestore --threshold 52428800
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @OptionGroup var threshold: ThresholdOption

    func run() throws {
        if DatabaseCacheDetection.isDatabaseCache(at: directory) {
            let threshold = threshold.databaseThreshold
            let report = try withDatabaseInspector(directory) { (inspector) throws(PersistenceError) in try inspector.report(threshold: threshold) }
            print(DatabaseCacheText.inspect(report))
            return
        }
        let report = try withInspector(directory) { try $0.report(threshold: threshold.threshold) }
        print(Self.render(report))
    }

    /// The report's text.
    static func render(_ report: CacheReport) -> String {
        let statistics = report.statistics
        var lines = ["format version \(report.formatVersion)", ""]
        if let recovery = report.recovery { lines += ["this cache was \(recovery.summary)", ""] }
        lines.append("segments: \(statistics.segments.count), \(formatBytes(statistics.bytesOnDisk)) on disk")
        var segmentRows = [["segment", "state", "file bytes", "frames", "compressed", "records", "record bytes",
                            "ratio", "live bytes", "dead bytes", "dead"]]
        for s in statistics.segments {
            segmentRows.append([
                String(s.id), s.isActive ? "active" : "sealed", String(s.fileBytes), String(s.frames),
                String(s.compressedFrames), String(s.records), String(s.recordBytes),
                String(format: "%.2f", s.compressionRatio), String(s.liveRecordBytes), String(s.deadRecordBytes),
                formatPercent(s.deadRatio),
            ])
        }
        lines.append(indent(formatTable(segmentRows)))
        if let tail = report.unfinishedTail { lines.append("  unfinished write at the end (the next writer cuts it): \(tail)") }
        for damage in report.activeSegmentDamage {
            lines.append("  damage in the active segment, with durable commits after it (see cairn verify): \(damage)")
        }
        lines.append("")
        lines.append("records by event:")
        var kindRows = [["kind", "event", "records", "bytes", "live records", "live bytes"]]
        for k in report.kinds {
            kindRows.append([String(k.kind), k.event, String(k.records), String(k.recordBytes), String(k.liveRecords),
                             String(k.liveRecordBytes)])
        }
        lines.append(indent(formatTable(kindRows)))
        lines.append("")
        lines.append("documents: \(report.foundDocuments) found, \(report.missingDocuments) known missing, "
                     + "\(report.unknownDocuments) unknown; \(statistics.collections.count) collection(s)")
        var collectionRows = [["collection", "documents", "missing/unknown", "bytes"]]
        for c in statistics.collections {
            collectionRows.append([c.path, String(c.documents), String(c.absentDocuments), String(c.bytes)])
        }
        if !statistics.collections.isEmpty { lines.append(indent(formatTable(collectionRows))) }
        lines.append("")
        let outbox = report.outbox
        lines.append("outbox: \(outbox.pendingBatches) pending batch(es), \(outbox.writes) write(s)"
                     + (outbox.batchesPerUser.isEmpty ? "" : "; per user: " + outbox.batchesPerUser.keys.sorted().map {
                         "\(userName($0)) \(outbox.batchesPerUser[$0]!)" }.joined(separator: ", ")))
        if let oldest = outbox.oldest {
            lines.append("  oldest: batch \(oldest.batchID) of \(userName(oldest.user)), written "
                         + "\(InspectionJSON.formatTimestamp(oldest.localWriteTime)), \(oldest.writes.count) write(s)")
        }
        lines.append("")
        lines.append("targets: \(report.targets.count)")
        for t in report.targets {
            lines.append("  target \(t.targetID) (\(t.purpose)): \(t.query)")
            lines.append("    \(t.documents) document(s), sequence \(t.sequence), snapshot \(t.snapshotVersion), "
                         + "resume token \(t.resumeTokenBytes) B")
        }
        let globals = report.globals
        lines.append("globals: last remote snapshot \(globals.lastRemoteSnapshotVersion), highest target id "
                     + "\(globals.highestTargetID), session token \(globals.sessionTokenBytes) B, write-stream tokens for "
                     + (globals.writeStreamUsers.isEmpty ? "no user" : globals.writeStreamUsers.map(userName).joined(separator: ", ")))
        lines.append("")
        lines.append(contentsOf: renderIndexes(report.indexes))
        lines.append("")
        let share = statistics.thresholdBytes > 0 ? " (\(formatPercent(Double(statistics.bytesOnDisk) / Double(statistics.thresholdBytes))))" : ""
        lines.append("LRU: \(formatBytes(statistics.bytesOnDisk)) on disk\(share), threshold \(formatThreshold(statistics.thresholdBytes)); "
                     + (statistics.thresholdBytes >= 0 && statistics.bytesOnDisk > UInt64(statistics.thresholdBytes)
                         ? "over: garbage collection would run" : "under: garbage collection would not run"))
        lines.append("  collectable now: \(report.collectableTargets) inactive target(s), \(report.orphanedDocuments) "
                     + "orphaned document(s); dead record bytes \(statistics.deadRecordBytes) (compaction frees them)")
        return lines.joined(separator: "\n")
    }

    /// The field indexes: a table of index, backfill work and entries, and the auto-creation switch.
    static func renderIndexes(_ report: IndexReport) -> [String] {
        let automatic = "automatic index creation \(report.isAutoCreationEnabled ? "on" : "off")"
        guard !report.indexes.isEmpty else {
            return ["indexes: none configured; \(automatic); \(report.configurationRecords) configuration record(s)"]
        }
        var rows = [["index", "documents to backfill", "entries once backfilled"]]
        for index in report.indexes {
            rows.append([index.id, String(index.documentsToBackfill), String(index.entryCount)])
        }
        return [
            "indexes: \(report.indexes.count) configured; \(automatic); \(report.configurationRecords) configuration record(s)",
            indent(formatTable(rows)),
            "  entries are not stored: each open backfills them from the documents, and an index serves queries "
                + "once its backfill is done",
        ]
    }
}

/// `"ada"`, or `(unauthenticated)` for the empty user id.
func userName(_ user: String) -> String { user.isEmpty ? "(unauthenticated)" : "\"\(user)\"" }

func indent(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
}
