import ArgumentParser
import Foundation
import SegmentLog

/// `cairn stats DIR [--svg PATH]`: live versus dead record bytes per segment, as a table and optionally as an
/// SVG bar chart. Built on ``SegmentLog/inspect(at:fileSystem:)``; never changes a byte of the log.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show live versus dead bytes per segment; optionally draw them as an SVG chart.",
        discussion: """
            "Live" is the newest record of each key, an approximation of what the layers above retire.
            Exit status: 0 success, 1 corruption found, 2 not a log or an I/O error.
            """)

    @Argument(help: "The log directory.")
    var directory: String

    @Option(help: "Write an SVG bar chart of live and dead bytes per segment to this file.")
    var svg: String?

    func run() throws {
        warnIfWriterHoldsLog(directory)
        let inspection = try reportingStorageErrors { try SegmentLog.inspect(at: directory) }
        var rows = [["segment", "state", "records", "live bytes", "dead bytes", "dead", "file bytes"]]
        for s in inspection.segments {
            rows.append([
                String(s.id), s.isActive ? "active" : "sealed", String(s.recordCount), String(s.liveRecordBytes),
                String(s.deadRecordBytes), formatPercent(s.deadRatio), String(s.fileBytes),
            ])
        }
        let deadShare = inspection.recordBytes == 0 ? 0 : Double(inspection.deadRecordBytes) / Double(inspection.recordBytes)
        rows.append([
            "total", "", String(inspection.recordCount), String(inspection.liveRecordBytes),
            String(inspection.deadRecordBytes), formatPercent(deadShare), String(inspection.fileBytes),
        ])
        print(formatTable(rows))
        guard let svg else { return }
        let chart = LiveDeadChart(segments: inspection.segments, title: "Live and dead record bytes per segment: \(directory)")
        do {
            try Data(chart.render().utf8).write(to: URL(fileURLWithPath: svg))
        } catch {
            printError("error: cannot write the chart to \(svg): \(error.localizedDescription)")
            throw ExitCode(2)
        }
        print("chart written to \(svg)")
    }
}
