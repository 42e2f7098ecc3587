import ArgumentParser
import Foundation
import CairnDatabaseCore
import CairnLocalStore

/// `cairn stats DIR [--svg PATH]`: sizes per collection and per segment, from
/// ``CacheInspector/statistics(threshold:)``, optionally drawn as an SVG picture (``CacheChart``).
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show documents, bytes and LRU age per collection; optionally draw the cache as SVG.",
        discussion: """
            Per collection: documents, known-missing or unknown documents, bytes of their latest events, and \
            their LRU sequence numbers (oldest, median, newest; the age is how many events the log has \
            appended since). Per segment: live versus dead bytes. Then the bytes on disk against the threshold.
            --svg draws one picture: each segment as a bar of live and dead bytes, the total on disk with the \
            threshold line, and the collections' sizes.
            For a Realtime Database cache: per segment records and live/dead bytes, then the live bytes against \
            the threshold (default 10485760); no --svg.
            Opens the directory read-only and changes nothing (the SVG file is written where you say).

            Example:
              cairn stats cache --threshold 1048576 --svg cache-stats.svg
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @OptionGroup var threshold: ThresholdOption

    @Option(help: ArgumentHelp("Write an SVG picture of the cache to this file.", valueName: "path"))
    var svg: String?

    func run() throws {
        if DatabaseCacheDetection.isDatabaseCache(at: directory) {
            guard svg == nil else { throw ValidationError("--svg draws Firestore caches only; \(directory) is a Realtime Database cache") }
            let statistics = try withDatabaseInspector(directory) { (inspector) throws(PersistenceError) in inspector.statistics }
            print(DatabaseCacheText.stats(statistics, threshold: threshold.databaseThreshold))
            return
        }
        let statistics = try withInspector(directory) { try $0.statistics(threshold: threshold.threshold) }
        print(Self.render(statistics))
        guard let svg else { return }
        do {
            try Data(CacheChart(statistics: statistics).render().utf8).write(to: URL(fileURLWithPath: svg))
        } catch {
            printError("cairn: error: cannot write the picture to \(svg): \(error.localizedDescription)")
            throw ExitCode(2)
        }
        print("picture written to \(svg)")
    }

    static func render(_ statistics: CacheStatistics) -> String {
        var rows = [["collection", "documents", "missing/unknown", "bytes", "oldest seq", "median seq", "newest seq",
                     "oldest age"]]
        for c in statistics.collections {
            rows.append([
                c.path, String(c.documents), String(c.absentDocuments), String(c.bytes), String(c.oldestSequence),
                String(c.medianSequence), String(c.newestSequence),
                c.documents == 0 ? "-" : String(statistics.nextSequence - c.oldestSequence),
            ])
        }
        var segments = [["segment", "state", "file bytes", "live bytes", "dead bytes", "dead"]]
        for s in statistics.segments {
            segments.append([String(s.id), s.isActive ? "active" : "sealed", String(s.fileBytes), String(s.liveRecordBytes),
                             String(s.deadRecordBytes), formatPercent(s.deadRatio)])
        }
        let over = statistics.thresholdBytes >= 0 && statistics.bytesOnDisk > UInt64(statistics.thresholdBytes)
        return [
            formatTable(rows), "", formatTable(segments), "",
            "\(formatBytes(statistics.bytesOnDisk)) on disk, threshold \(formatThreshold(statistics.thresholdBytes))"
                + (over ? ": over, garbage collection would run" : ": under"),
            "next sequence number \(statistics.nextSequence)",
        ].joined(separator: "\n")
    }
}
