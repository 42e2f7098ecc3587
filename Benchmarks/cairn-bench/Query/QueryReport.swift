// The query suite's results: a table for people on standard output and JSON for tools, in the engine suite's
// shape: `{"suite": "query", "docs": N, "workloads": [{"name", "unit", "higher_is_better", "cairn", "sqlite",
// "leveldb", "limit", "advantage", "advantage_leveldb", "limit_ratio", ...}]}`. Values are medians; `advantage`
// > 1 means Cairn beats SQLite, `advantage_leveldb` > 1 that it beats LevelDB;
// `limit_ratio` is Cairn's time over the in-memory floor's; `<engine>_p95` is the slow tail (95th percentile of
// times, 5th percentile of rates); `<engine>_not_finished_in_s` is the time cap an engine was stopped at (its
// value is then the time of the work it did, and `<engine>_failed` is true). Absent engines and ratios are JSON null. `memory` holds each engine's
// `peak_rss_bytes` and bytes per cached document (resident and on disk), measured in a process of its own.

import Foundation

/// The results of one run of the suite.
struct QueryReport {
    let documents: Int
    let runs: Int
    let results: [QueryWorkloadResult]
    /// Each engine's memory, measured in a process of its own (empty with `--no-memory`).
    var memory: [EngineMemory] = []

    static let engines = ["cairn", "sqlite", "leveldb", "limit"]

    /// A value in its unit: milliseconds with three significant digits, rates compact (`12.3k docs/s`).
    static func format(_ value: Double, unit: String) -> String {
        guard unit == "ms" else { return Console.compact(value) + " " + unit }
        if value >= 1000 { return String(format: "%.3g s", value / 1000) }
        if value >= 1 { return String(format: "%.3g ms", value) }
        return String(format: "%.3g µs", value * 1000)
    }

    static func ratio(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value >= 100 ? String(format: "%.0fx", value) : value >= 0.1 ? String(format: "%.2fx", value)
            : String(format: "%.2gx", value)
    }

    func table() -> String {
        let header = [
            "workload", "cairn", "sqlite", "leveldb", "limit", "vs sqlite", "vs leveldb", "limit ratio", "cairn tail",
            "sqlite tail", "leveldb tail", "cairn min–max", "sqlite min–max", "leveldb min–max",
            "secondary (cairn / sqlite / leveldb)",
        ]
        let rows = results.map { result -> [String] in
            func median(_ engine: String) -> String {
                result.result(engine).map {
                    if let cap = $0.unfinishedWithinSeconds { return "not finished in \(cap) s" }
                    return Self.format($0.summary.median, unit: result.unit) + ($0.failed ? " (failed)" : "")
                } ?? "–"
            }
            func p95(_ engine: String) -> String {
                result.result(engine).map {
                    Self.format($0.p95(higherIsBetter: result.higherIsBetter), unit: result.unit)
                } ?? "–"
            }
            func spread(_ engine: String) -> String {
                result.result(engine).map {
                    Self.format($0.summary.min, unit: result.unit) + " – " + Self.format($0.summary.max, unit: result.unit)
                } ?? "–"
            }
            let secondary = result.secondaryLabel.map { label in
                let values = ["cairn", "sqlite", "leveldb"].map { engine in
                    result.result(engine)?.secondary.map { Self.format($0, unit: "ms") } ?? "–"
                }
                return "\(label.replacingOccurrences(of: " ms", with: "")): " + values.joined(separator: " / ")
            } ?? ""
            return [
                result.name, median("cairn"), median("sqlite"), median("leveldb"), median("limit"),
                Self.ratio(result.advantage), Self.ratio(result.advantage(over: "leveldb")), Self.ratio(result.limitRatio),
                p95("cairn"), p95("sqlite"), p95("leveldb"), spread("cairn"), spread("sqlite"), spread("leveldb"),
                secondary,
            ]
        }
        var text = "query suite: \(Console.compact(Double(documents))) cached documents, \(runs) interleaved runs per "
            + "engine; medians; vs <engine> > 1 means cairn beats it; limit ratio = cairn / in-memory floor; "
            + "tail = p95 of times, p5 of rates\n\n"
        text += Self.aligned(header: header, rows: rows, leftAlignedLast: true) + "\n"
        for result in results { text += "\(result.name) (\(result.unit)): \(result.note)\n" }
        return text + memoryTable()
    }

    /// Peak and resident memory and bytes on disk per engine, and per cached document.
    func memoryTable() -> String {
        guard !memory.isEmpty else { return "" }
        func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        let text = "\nmemory (one process per engine: open the loaded cache, catch up, answer this run's queries and "
            + "the listened query \(MemoryProbe.repeats) times each; limit: decode the corpus into memory):\n\n"
        let header = [
            "engine", "peak RSS", "baseline RSS", "RSS after queries", "resident/doc", "bounded caches", "beyond caches/doc",
            "on disk", "disk/doc",
        ]
        let rows = memory.map { entry in
            [
                entry.engine, mib(entry.peakRSSBytes), mib(entry.baselineRSSBytes), mib(entry.residentBytes),
                String(format: "%.0f B", entry.residentBytesPerDocument), entry.boundedCacheBytes.map(mib) ?? "–",
                entry.residentBytesPerDocumentBeyondBoundedCaches.map { String(format: "%.0f B", $0) } ?? "–",
                entry.diskBytes.map(mib) ?? "–", entry.diskBytesPerDocument.map { String(format: "%.0f B", $0) } ?? "–",
            ]
        }
        return text + Self.aligned(header: header, rows: rows, leftAlignedLast: false)
    }

    /// Columns padded to their widest cell under a dashed rule: the first column (and the last, when
    /// `leftAlignedLast`) left-aligned, the others right-aligned.
    static func aligned(header: [String], rows: [[String]], leftAlignedLast: Bool) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                let left = column == 0 || (leftAlignedLast && column == cells.count - 1)
                return left ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line))
            .joined(separator: "\n") + "\n"
    }

    func json() throws -> Data {
        var workloads: [[String: Any]] = []
        for result in results {
            var entry: [String: Any] = [
                "name": result.name, "unit": result.unit, "higher_is_better": result.higherIsBetter,
                "note": result.note,
                "advantage": result.advantage ?? NSNull(),
                "advantage_leveldb": result.advantage(over: "leveldb") ?? NSNull(),
                "limit_ratio": result.limitRatio ?? NSNull(),
            ]
            for engine in Self.engines {
                guard let measured = result.result(engine) else {
                    entry[engine] = NSNull()
                    continue
                }
                let summary = measured.summary
                entry[engine] = summary.median
                entry["\(engine)_p95"] = measured.p95(higherIsBetter: result.higherIsBetter)
                entry["\(engine)_spread"] = ["min": summary.min, "p25": summary.p25, "p75": summary.p75, "max": summary.max]
                entry["\(engine)_samples"] = measured.values.count
                entry["\(engine)_failed"] = measured.failed
                entry["\(engine)_not_finished_in_s"] = measured.unfinishedWithinSeconds ?? NSNull()
                if let label = result.secondaryLabel, let secondary = measured.secondary {
                    entry["\(engine)_" + label.replacingOccurrences(of: " ", with: "_")] = secondary
                }
            }
            workloads.append(entry)
        }
        var engines: [String: Any] = [:]
        for entry in memory {
            let values: [String: Any] = [
                "peak_rss_bytes": entry.peakRSSBytes, "baseline_rss_bytes": entry.baselineRSSBytes,
                "resident_bytes": entry.residentBytes, "resident_bytes_per_document": entry.residentBytesPerDocument,
                "disk_bytes": entry.diskBytes as Any? ?? NSNull(),
                "disk_bytes_per_document": entry.diskBytesPerDocument as Any? ?? NSNull(),
                "frame_cache_bytes": entry.frameCacheBytes as Any? ?? NSNull(),
                "scan_cache_bytes": entry.scanCacheBytes as Any? ?? NSNull(),
                "resident_bytes_per_document_beyond_bounded_caches":
                    entry.residentBytesPerDocumentBeyondBoundedCaches as Any? ?? NSNull(),
            ]
            engines[entry.engine] = values
        }
        let document: [String: Any] = [
            "suite": "query", "docs": documents, "runs": runs, "workloads": workloads,
            "memory": memory.isEmpty ? NSNull() : engines,
        ]
        return try JSONSerialization.data(
            withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
