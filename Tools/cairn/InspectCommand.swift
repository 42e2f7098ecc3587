import ArgumentParser
import SegmentLog

/// `cairn inspect DIR`: a report of what a log holds, segment by segment and kind by kind, from
/// ``SegmentLog/inspect(at:fileSystem:)``. Never changes a byte.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Report a segment log's segments, frames, record kinds, keys and live/dead bytes.",
        discussion: """
            Opens the log read-only (works while a writer has it open) and changes nothing. "Live" counts the \
            newest record of each key; the layers above may retire records differently.
            Exit status: 0 success, 1 corruption found, 2 not a log or an I/O error.
            """)

    @Argument(help: "The log directory.")
    var directory: String

    func run() throws {
        warnIfWriterHoldsLog(directory)
        let inspection = try reportingStorageErrors { try SegmentLog.inspect(at: directory) }
        print(Self.report(inspection))
    }

    /// The report's text.
    static func report(_ log: LogInspection) -> String {
        var lines: [String] = []
        lines.append("log \(log.directory) (format version \(log.formatVersion))")
        lines.append(
            "  \(log.segments.count) segment(s), \(formatBytes(log.fileBytes)) on disk; \(log.frameCount) frame(s), "
                + "\(log.compressedFrameCount) compressed")
        lines.append(
            "  \(log.recordCount) record(s), \(formatBytes(log.recordBytes)) encoded; \(log.distinctKeys) distinct key(s); "
                + "LSN \(log.lsnRange.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "none"), next \(log.nextLSN)")
        let liveShare = log.recordBytes == 0 ? 0 : Double(log.liveRecordBytes) / Double(log.recordBytes)
        lines.append(
            "  live (newest record per key): \(log.liveRecordCount) record(s), \(formatBytes(log.liveRecordBytes)) "
                + "(\(formatPercent(liveShare))); dead: \(log.recordCount - log.liveRecordCount) record(s), "
                + "\(formatBytes(log.deadRecordBytes))")
        if log.recovery.truncatedBytes > 0 {
            lines.append(
                "  unfinished tail: \(log.recovery.truncatedBytes) byte(s) after the last commit "
                    + "(\(log.recovery.tailProblem ?? "unknown")); the next writer to open the log cuts them")
        }
        lines.append("")
        var segmentRows = [["segment", "state", "file bytes", "frames", "compressed", "records", "record bytes", "ratio",
                            "live bytes", "dead", "LSN"]]
        for s in log.segments {
            segmentRows.append([
                String(s.id), s.isActive ? "active" : "sealed", String(s.fileBytes), String(s.frameCount),
                String(s.compressedFrameCount), String(s.recordCount), String(s.recordBytes),
                String(format: "%.2f", s.compressionRatio), String(s.liveRecordBytes), formatPercent(s.deadRatio),
                s.lsnRange.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "-",
            ])
        }
        lines.append(formatTable(segmentRows))
        lines.append("")
        var kindRows = [["kind", "records", "record bytes", "live records", "live bytes"]]
        for k in log.kinds {
            kindRows.append([
                String(k.kind), String(k.recordCount), String(k.recordBytes), String(k.liveRecordCount), String(k.liveRecordBytes),
            ])
        }
        lines.append(formatTable(kindRows))
        lines.append("")
        lines.append("ratio: record bytes per file byte (headers included). live/dead: newest record per key, an")
        lines.append("approximation of what the layers above retire.")
        return lines.joined(separator: "\n")
    }
}
