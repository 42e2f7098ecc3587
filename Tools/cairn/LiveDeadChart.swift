import Foundation
import SegmentLog

/// An SVG bar chart of live versus dead record bytes per segment, built as plain text: one stacked bar per
/// segment (live at the bottom, dead on top), a title, labelled axes with ticks, and a legend.
struct LiveDeadChart {
    var segments: [SegmentInspection]
    var title: String

    private let width = 760.0
    private let height = 420.0
    private let left = 90.0
    private let right = 150.0
    private let top = 50.0
    private let bottom = 60.0

    init(segments: [SegmentInspection], title: String) {
        self.segments = segments
        self.title = title
    }

    /// The SVG document.
    func render() -> String {
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let maximum = niceCeiling(segments.map(\.recordBytes).max() ?? 0)
        let slot = plotWidth / Double(max(segments.count, 1))
        let barWidth = max(2, min(60, slot * 0.7))
        func y(_ bytes: UInt64) -> Double { top + plotHeight - plotHeight * Double(bytes) / Double(maximum) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(width / 2))" y="28" text-anchor="middle" font-size="16" font-weight="bold">\(escape(title))</text>

            """
        for tick in 0...4 {
            let bytes = maximum / 4 * UInt64(tick)
            let ty = y(bytes)
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(ty))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(ty))\" stroke=\"#e0e0e0\"/>\n"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(ty + 4))\" text-anchor=\"end\">\(escape(formatBytes(bytes)))</text>\n"
        }
        for (i, segment) in segments.enumerated() {
            let x = left + slot * Double(i) + (slot - barWidth) / 2
            let liveTop = y(segment.liveRecordBytes)
            let totalTop = y(segment.recordBytes)
            let label = "segment \(segment.id)\(segment.isActive ? " (active)" : ""): "
                + "\(formatBytes(segment.liveRecordBytes)) live, \(formatBytes(segment.deadRecordBytes)) dead"
            svg += "<g><title>\(escape(label))</title>\n"
            svg += "<rect x=\"\(f(x))\" y=\"\(f(liveTop))\" width=\"\(f(barWidth))\" height=\"\(f(y(0) - liveTop))\" fill=\"#2e7d32\"/>\n"
            svg += "<rect x=\"\(f(x))\" y=\"\(f(totalTop))\" width=\"\(f(barWidth))\" height=\"\(f(liveTop - totalTop))\" fill=\"#c62828\"/>\n"
            svg += "</g>\n"
            if segments.count <= 40 || i % Int((Double(segments.count) / 40).rounded(.up)) == 0 {
                svg += "<text x=\"\(f(x + barWidth / 2))\" y=\"\(f(top + plotHeight + 16))\" text-anchor=\"middle\">"
                    + "\(segment.id)\(segment.isActive ? "*" : "")</text>\n"
            }
        }
        svg += """
            <line x1="\(f(left))" y1="\(f(top))" x2="\(f(left))" y2="\(f(top + plotHeight))" stroke="black"/>
            <line x1="\(f(left))" y1="\(f(top + plotHeight))" x2="\(f(left + plotWidth))" y2="\(f(top + plotHeight))" stroke="black"/>
            <text x="\(f(left + plotWidth / 2))" y="\(f(height - 18))" text-anchor="middle">segment id (* = active)</text>
            <text transform="translate(20 \(f(top + plotHeight / 2))) rotate(-90)" text-anchor="middle">record bytes (uncompressed)</text>
            <rect x="\(f(width - right + 20))" y="\(f(top))" width="14" height="14" fill="#2e7d32"/>
            <text x="\(f(width - right + 40))" y="\(f(top + 12))">live</text>
            <rect x="\(f(width - right + 20))" y="\(f(top + 24))" width="14" height="14" fill="#c62828"/>
            <text x="\(f(width - right + 40))" y="\(f(top + 36))">dead</text>
            <text x="\(f(width - right + 20))" y="\(f(top + 64))" font-size="10">live = newest</text>
            <text x="\(f(width - right + 20))" y="\(f(top + 77))" font-size="10">record of its key</text>
            </svg>

            """
        return svg
    }

    /// The smallest 4, 5, 6 or 7 times a power of two at or above `value`, so the quarter ticks are round sizes.
    private func niceCeiling(_ value: UInt64) -> UInt64 {
        var power: UInt64 = 1
        while true {
            for multiple: UInt64 in 4...7 where multiple * power >= value { return multiple * power }
            power *= 2
        }
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
