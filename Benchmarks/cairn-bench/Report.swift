// The suite's results: a table for people on standard output, and JSON for tools. Each workload compares a
// subject engine (Cairn) with a baseline (SQLite) by the medians of their runs.

import Foundation

/// The runs of one workload, per engine.
struct WorkloadResult {
    let name: String
    let unit: String
    let higherIsBetter: Bool
    let note: String
    /// In engine order; each engine's samples in run order.
    let runs: [(engine: String, samples: [Sample])]

    func rates(_ engine: String) -> [Double] {
        runs.first { $0.engine == engine }?.samples.map(\.rate) ?? []
    }

    func summary(_ engine: String) -> Summary { Summary(rates(engine)) }

    /// How many times better the subject's median is than the baseline's (> 1: the subject wins).
    func advantage(of subject: String, over baseline: String) -> Double {
        let ours = summary(subject).median
        let theirs = summary(baseline).median
        return higherIsBetter ? ours / theirs : theirs / ours
    }
}

/// A suite's results, comparing `subject` with `baseline` (engine names, which are also the JSON keys).
struct SuiteReport {
    let suite: String
    let subject: String
    let baseline: String
    let results: [WorkloadResult]

    /// The human-readable table, with one note per workload below it.
    func table() -> String {
        let header = [
            "workload", "unit", "\(subject) median", "\(baseline) median", "advantage", "\(subject) min–max",
            "\(baseline) min–max",
        ]
        let rows = results.map { result -> [String] in
            let ours = result.summary(subject)
            let theirs = result.summary(baseline)
            return [
                result.name, result.unit, Console.compact(ours.median), Console.compact(theirs.median),
                String(format: "%.2fx", result.advantage(of: subject, over: baseline)),
                "\(Console.compact(ours.min))–\(Console.compact(ours.max))",
                "\(Console.compact(theirs.min))–\(Console.compact(theirs.max))",
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < 2 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let runs = results.first?.runs.first?.samples.count ?? 0
        var text = "\(suite) suite: \(subject) vs \(baseline), median of \(runs) interleaved runs per engine; "
            + "advantage > 1 means \(subject) wins\n\n"
        text += line(header) + "\n"
        text += line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in rows { text += line(row) + "\n" }
        text += "\n"
        for result in results { text += "\(result.name): \(result.note)\n" }
        return text
    }

    /// The JSON document: `{"suite": ..., "workloads": [{"name", "unit", "higher_is_better", "<subject>",
    /// "<baseline>", "advantage", "<engine>_runs", "<engine>_spread", "note"}, ...]}`.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

extension SuiteReport: Encodable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(suite, forKey: Key("suite"))
        var workloads = container.nestedUnkeyedContainer(forKey: Key("workloads"))
        for result in results {
            var workload = workloads.nestedContainer(keyedBy: Key.self)
            try workload.encode(result.name, forKey: Key("name"))
            try workload.encode(result.unit, forKey: Key("unit"))
            try workload.encode(result.higherIsBetter, forKey: Key("higher_is_better"))
            try workload.encode(result.summary(subject).median, forKey: Key(subject))
            try workload.encode(result.summary(baseline).median, forKey: Key(baseline))
            try workload.encode(result.advantage(of: subject, over: baseline), forKey: Key("advantage"))
            for (engine, _) in result.runs {
                try workload.encode(result.rates(engine), forKey: Key("\(engine)_runs"))
                try workload.encode(result.summary(engine), forKey: Key("\(engine)_spread"))
            }
            try workload.encode(result.note, forKey: Key("note"))
        }
    }
}
