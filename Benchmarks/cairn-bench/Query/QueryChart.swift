// `--svg`: the suite's results as one SVG chart. Every workload is a group of bars, one per engine, showing
// its speed relative to the SQLite baseline on a shared logarithmic axis (for times: SQLite's median over the
// engine's; for rates: the engine's over SQLite's), so bars right of the 1x line beat SQLite. Each bar is
// labelled with the engine's measured median in the workload's own unit.

import Foundation

/// Draws a ``QueryReport`` as SVG.
struct QueryChart {
    let report: QueryReport

    private static let colors = ["cairn": "#1b7f79", "sqlite": "#8d99a6", "leveldb": "#5b6fb5", "limit": "#e0a526"]
    private static let labelWidth = 230.0
    private static let plotWidth = 520.0
    private static let barHeight = 14.0
    private static let barGap = 3.0
    private static let groupGap = 16.0
    private static let top = 70.0

    /// How many times faster than SQLite's median `engine` is on `result` at its median (or at `value`, one of
    /// its other statistics); nil when either is missing.
    static func speedup(_ result: QueryWorkloadResult, _ engine: String, at value: Double? = nil) -> Double? {
        guard let value = value ?? result.result(engine)?.summary.median,
            let sqlite = result.result("sqlite")?.summary.median, value > 0, sqlite > 0
        else { return nil }
        return result.higherIsBetter ? value / sqlite : sqlite / value
    }

    /// The whisker of a bar: the engine's slow tail (p95 of times, p5 of rates) to its best value, as speedups.
    static func whisker(_ result: QueryWorkloadResult, _ engine: String) -> (tail: Double, best: Double)? {
        guard let measured = result.result(engine), measured.values.count > 1,
            let tail = speedup(result, engine, at: measured.p95(higherIsBetter: result.higherIsBetter)),
            let best = speedup(
                result, engine, at: result.higherIsBetter ? measured.summary.max : measured.summary.min)
        else { return nil }
        return (tail, best)
    }

    func svg() -> String {
        let speedups = report.results.flatMap { result in
            QueryReport.engines.flatMap { engine in
                [Self.speedup(result, engine), Self.whisker(result, engine)?.tail, Self.whisker(result, engine)?.best]
                    .compactMap { $0 }
            }
        }
        let low = pow(10, (log10(min(speedups.min() ?? 1, 0.5))).rounded(.down))
        let high = pow(10, (log10(max(speedups.max() ?? 1, 2))).rounded(.up))
        func x(_ value: Double) -> Double {
            Self.labelWidth + (log10(value) - log10(low)) / (log10(high) - log10(low)) * Self.plotWidth
        }
        var body = ""
        var y = Self.top
        for result in report.results {
            let engines = QueryReport.engines.filter { result.result($0) != nil }
            let groupHeight = Double(engines.count) * (Self.barHeight + Self.barGap)
            body += text(result.name, x: Self.labelWidth - 10, y: y + groupHeight / 2 + 4, anchor: "end", weight: "bold")
            for engine in engines {
                guard let measured = result.result(engine), let speedup = Self.speedup(result, engine) else { continue }
                let end = x(speedup)
                body += "<rect x=\"\(Self.labelWidth)\" y=\"\(y)\" width=\"\(max(end - Self.labelWidth, 1))\" "
                    + "height=\"\(Self.barHeight)\" fill=\"\(Self.colors[engine] ?? "#555")\"/>\n"
                if let whisker = Self.whisker(result, engine) {
                    let middle = y + Self.barHeight / 2
                    body += "<line x1=\"\(x(whisker.tail))\" y1=\"\(middle)\" x2=\"\(x(whisker.best))\" y2=\"\(middle)\" "
                        + "stroke=\"#222\" stroke-width=\"1\"/>\n"
                }
                let label = "\(engine) \(QueryReport.format(measured.summary.median, unit: result.unit))"
                    + (engine == "sqlite" ? "" : " (" + QueryReport.ratio(speedup) + ")")
                    + (measured.failed ? " did not finish" : "")
                let labelX = max(end, Self.whisker(result, engine).map { x($0.best) } ?? end) + 5
                body += text(label, x: labelX, y: y + Self.barHeight - 3, anchor: "start", size: 11)
                y += Self.barHeight + Self.barGap
            }
            y += Self.groupGap
        }
        var grid = ""
        var tick = low
        while tick <= high * 1.0001 {
            let position = x(tick)
            let isBaseline = abs(tick - 1) < 1e-9
            grid += "<line x1=\"\(position)\" y1=\"\(Self.top - 8)\" x2=\"\(position)\" y2=\"\(y - Self.groupGap + 4)\" "
                + "stroke=\"\(isBaseline ? "#333" : "#ddd")\" stroke-width=\"\(isBaseline ? 1.5 : 1)\"/>\n"
            grid += text(Self.tickLabel(tick), x: position, y: Self.top - 12, anchor: "middle", size: 11)
            tick *= 10
        }
        for (line, entry) in report.memory.enumerated() {
            body += text(Self.memoryLine(entry), x: 10, y: y + 8 + Double(line) * 16, anchor: "start", size: 11)
        }
        if !report.memory.isEmpty { y += Double(report.memory.count) * 16 + 8 }
        let width = Self.labelWidth + Self.plotWidth + 190
        let height = y + 10
        let title = "cairn-bench query: \(Console.compact(Double(report.documents))) cached documents, "
            + "median of \(report.runs) interleaved runs"
        let subtitle = "speed relative to SQLite laid out like Firebase Android (log scale; right of 1x = faster); "
            + "labels: measured medians; whiskers: slow tail (p95) to best"
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif">
            <rect width="100%" height="100%" fill="white"/>
            \(text(title, x: 10, y: 22, anchor: "start", size: 15, weight: "bold"))\
            \(text(subtitle, x: 10, y: 40, anchor: "start", size: 11))\
            \(grid)\(body)</svg>

            """
    }

    /// `memory, cairn in a process of its own: peak RSS 123 MiB, 480 B/doc resident, 450 B/doc on disk`.
    private static func memoryLine(_ entry: EngineMemory) -> String {
        "memory, \(entry.engine) in a process of its own: peak RSS " + String(format: "%.0f MiB", Double(entry.peakRSSBytes) / 1_048_576)
            + String(format: ", %.0f B/doc resident", entry.residentBytesPerDocument)
            + (entry.diskBytesPerDocument.map { String(format: ", %.0f B/doc on disk", $0) } ?? "")
    }

    private static func tickLabel(_ value: Double) -> String {
        value >= 1 ? String(format: "%.0fx", value) : String(format: "%gx", value)
    }

    private func text(
        _ content: String, x: Double, y: Double, anchor: String, size: Int = 12, weight: String = "normal"
    ) -> String {
        let escaped = content.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return "<text x=\"\(x)\" y=\"\(y)\" font-size=\"\(size)\" font-weight=\"\(weight)\" text-anchor=\"\(anchor)\">"
            + escaped + "</text>\n"
    }
}
