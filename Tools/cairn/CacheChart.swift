import Foundation
import CairnLocalStore

/// The picture `cairn stats --svg` draws, as plain SVG text: one row per segment with its live (green) and
/// dead (red) bytes on disk, a row for the total with the cache-size threshold as a dashed line on the same
/// scale, and a bar per collection for the bytes of its documents. Every bar has a tooltip with the exact
/// numbers.
struct CacheChart {
    var statistics: CacheStatistics

    private let width = 860.0
    private let left = 150.0
    private let labelColumn = 190.0
    private let rowHeight = 20.0
    private let rowGap = 6.0
    private let maximumRows = 24

    private var plotWidth: Double { width - left - labelColumn }

    /// The SVG document.
    func render() -> String {
        var body = ""
        var y = 70.0
        let threshold = statistics.thresholdBytes
        let total = statistics.bytesOnDisk
        let thresholdOnScale = threshold >= 0 && UInt64(threshold) <= max(total, 1) * 3
        let scale = plotWidth / Double(max(max(total, thresholdOnScale ? UInt64(threshold) : 0), 1))

        body += heading("Segments: bytes on disk, live and dead", y: y)
        y += 14
        let sectionTop = y
        let shown = statistics.segments.suffix(maximumRows)
        if shown.count < statistics.segments.count {
            body += text("\(statistics.segments.count - shown.count) older segment(s) not shown", x: left, y: y + 12, size: 11)
            y += rowHeight
        }
        for segment in shown {
            let live = Double(segment.liveFileBytes) * scale
            let dead = Double(segment.fileBytes) * scale - live
            body += text("segment \(segment.id)\(segment.isActive ? " (active)" : "")", x: left - 8, y: y + 14, anchor: "end")
            body += bar(x: left, y: y, live: live, dead: dead, tooltip:
                "segment \(segment.id): \(segment.fileBytes) bytes on disk, \(segment.liveRecordBytes) live and "
                    + "\(segment.deadRecordBytes) dead record bytes")
            body += text("\(formatBytes(segment.fileBytes)), \(formatPercent(segment.deadRatio)) dead",
                         x: left + plotWidth + 10, y: y + 14)
            y += rowHeight + rowGap
        }
        let liveTotal = Double(statistics.segments.reduce(0) { $0 + $1.liveFileBytes }) * scale
        body += text("total on disk", x: left - 8, y: y + 14, anchor: "end", weight: "bold")
        body += bar(x: left, y: y, live: liveTotal, dead: Double(total) * scale - liveTotal, tooltip:
            "\(total) bytes on disk; threshold \(threshold < 0 ? "unlimited" : String(threshold))")
        body += text(formatBytes(total), x: left + plotWidth + 10, y: y + 14, weight: "bold")
        let sectionBottom = y + rowHeight
        y += rowHeight + 14
        if thresholdOnScale {
            let x = left + Double(threshold) * scale
            body += "<line x1=\"\(f(x))\" y1=\"\(f(sectionTop - 4))\" x2=\"\(f(x))\" y2=\"\(f(sectionBottom + 4))\" "
                + "stroke=\"#1565c0\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n"
            body += text("threshold \(formatThreshold(threshold))", x: x, y: sectionBottom + 18, anchor: "middle",
                         size: 11, color: "#1565c0")
        } else {
            let note = threshold < 0 ? "no threshold (unlimited)"
                : "threshold \(formatThreshold(threshold)): off this scale, \(String(format: "%.0f", Double(threshold) / Double(max(total, 1))))× the bytes on disk"
            body += text(note, x: left, y: sectionBottom + 18, size: 11, color: "#1565c0")
        }
        y += 24

        let collections = statistics.collections.sorted { ($0.bytes, $1.path) > ($1.bytes, $0.path) }
        body += heading("Collections: bytes of their documents (encoded, before compression)", y: y)
        y += 14
        let largest = Double(max(collections.first?.bytes ?? 0, 1))
        for collection in collections.prefix(maximumRows) {
            let w = plotWidth * Double(collection.bytes) / largest
            body += text(shorten(collection.path), x: left - 8, y: y + 14, anchor: "end")
            body += "<g><title>\(escape("\(collection.path): \(collection.documents) document(s), \(collection.bytes) bytes"))</title>"
                + "<rect x=\"\(f(left))\" y=\"\(f(y))\" width=\"\(f(max(w, 1)))\" height=\"\(f(rowHeight))\" fill=\"#6a1b9a\"/></g>\n"
            body += text("\(collection.documents) doc(s), \(formatBytes(collection.bytes))", x: left + plotWidth + 10, y: y + 14)
            y += rowHeight + rowGap
        }
        if collections.count > maximumRows {
            body += text("\(collections.count - maximumRows) smaller collection(s) not shown", x: left, y: y + 12, size: 11)
            y += rowHeight
        }
        if collections.isEmpty {
            body += text("no documents", x: left, y: y + 14, size: 11)
            y += rowHeight
        }
        let height = y + 20
        let title = "Cairn cache: \(formatBytes(total)) on disk, threshold \(formatThreshold(threshold))"
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="20" y="30" font-size="17" font-weight="bold">\(escape(title))</text>
            \(legend())\(body)</svg>

            """
    }

    private func legend() -> String {
        let x = width - 250
        return "<rect x=\"\(f(x))\" y=\"40\" width=\"12\" height=\"12\" fill=\"#2e7d32\"/>\n"
            + text("live", x: x + 16, y: 50, size: 11)
            + "<rect x=\"\(f(x + 56))\" y=\"40\" width=\"12\" height=\"12\" fill=\"#c62828\"/>\n"
            + text("dead", x: x + 72, y: 50, size: 11)
            + "<line x1=\"\(f(x + 116))\" y1=\"46\" x2=\"\(f(x + 136))\" y2=\"46\" stroke=\"#1565c0\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n"
            + text("threshold", x: x + 140, y: 50, size: 11)
    }

    private func heading(_ title: String, y: Double) -> String {
        text(title, x: 20, y: y, size: 14, weight: "bold")
    }

    private func bar(x: Double, y: Double, live: Double, dead: Double, tooltip: String) -> String {
        "<g><title>\(escape(tooltip))</title>"
            + "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(max(live, 0)))\" height=\"\(f(rowHeight))\" fill=\"#2e7d32\"/>"
            + "<rect x=\"\(f(x + max(live, 0)))\" y=\"\(f(y))\" width=\"\(f(max(dead, 0)))\" height=\"\(f(rowHeight))\" fill=\"#c62828\"/></g>\n"
    }

    private func text(
        _ content: String, x: Double, y: Double, anchor: String = "start", size: Int = 12, weight: String = "normal",
        color: String = "#222"
    ) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\" font-size=\"\(size)\" font-weight=\"\(weight)\" "
            + "fill=\"\(color)\">\(escape(content))</text>\n"
    }

    /// Long collection paths keep their end, the part that tells them apart.
    private func shorten(_ path: String) -> String { path.count <= 22 ? path : "…" + path.suffix(21) }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
