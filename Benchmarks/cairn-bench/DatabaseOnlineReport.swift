// The online database suite's results (a table for people, JSON for tools) and the small synchronised probes its
// workloads wait on.

import Foundation

/// One workload's measured values (milliseconds) and, for a load, the bytes it moved.
struct OnlineResult {
    let name: String
    let unit: String
    let values: [Double]
    let bytes: Int?
    let note: String

    var summary: Summary { Summary(values) }
    var p95: Double { EngineResult.percentile(values, 0.95) }
}

/// The results of one run of `cairn-bench database online`.
struct OnlineReport {
    let results: [OnlineResult]

    func table() -> String {
        let header = ["workload", "median", "p95", "min", "max", "samples", "bytes", "throughput at the median"]
        let rows = results.map { result -> [String] in
            let summary = result.summary
            let throughput = result.bytes.map { Console.megabytes(Int(Double($0) / (summary.median / 1000))) + "/s" } ?? "–"
            return [
                result.name, QueryReport.format(summary.median, unit: "ms"), QueryReport.format(result.p95, unit: "ms"),
                QueryReport.format(summary.min, unit: "ms"), QueryReport.format(summary.max, unit: "ms"),
                "\(result.values.count)", result.bytes.map { Console.megabytes($0) } ?? "–", throughput,
            ]
        }
        var text = "database online suite: the local server in this process on loopback; times in ms, p95 interpolated\n\n"
        text += QueryReport.aligned(header: header, rows: rows, leftAlignedLast: true) + "\n"
        for result in results { text += "\(result.name): \(result.note)\n" }
        return text
    }

    func json() throws -> Data {
        let workloads: [[String: Any]] = results.map { result in
            let summary = result.summary
            return [
                "name": result.name, "unit": result.unit, "higher_is_better": false, "median": summary.median,
                "p95": result.p95, "min": summary.min, "max": summary.max, "samples": result.values.count,
                "bytes": result.bytes as Any? ?? NSNull(), "note": result.note,
            ]
        }
        let document: [String: Any] = ["suite": "database_online", "workloads": workloads]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}

/// The latest value a listener saw and when; a waiter blocks (off the cooperative pool) until a given value.
final class LatencyProbe: @unchecked Sendable {
    private let condition = NSCondition()
    private var events = 0
    private var latest: Int?
    private var at = ContinuousClock.now

    func saw(_ value: Int?) {
        let now = ContinuousClock.now
        condition.withLock {
            events += 1
            latest = value
            at = now
            condition.broadcast()
        }
    }

    /// Waits until the listener saw `value` (nil: any first event); returns when it fired.
    @discardableResult
    func wait(for value: Int?, _ what: String) throws -> ContinuousClock.Instant {
        let deadline = Date().addingTimeInterval(60)
        return try condition.withLock {
            while !(value == nil ? events > 0 : latest == value) {
                guard condition.wait(until: deadline) else { throw BenchError("waited 60 s for \(what)") }
            }
            return at
        }
    }
}

/// A count set on a callback queue and read by the waiting thread.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0

    func set(_ count: Int) { lock.withLock { stored = count } }
    var value: Int { lock.withLock { stored } }
}
