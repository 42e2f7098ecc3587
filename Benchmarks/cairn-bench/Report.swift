// The suite's results: a table for people on standard output, and JSON for tools. Each workload compares a
// subject engine (Cairn) with baselines (SQLite, LevelDB) by the medians of their runs.

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

/// A suite's results, comparing `subject` with each of `baselines` (engine names, which are also the JSON keys);
/// the first baseline is the main one (`advantage`), the others get `advantage_<baseline>`.
struct SuiteReport {
    let suite: String
    let subject: String
    let baselines: [String]
    let results: [WorkloadResult]

    private var engines: [String] { [subject] + baselines }

    /// The human-readable table, with one note per workload below it.
    func table() -> String {
        let header = engines.map { "\($0) median" } + baselines.map { "vs \($0)" } + engines.map { "\($0) min–max" }
        let rows = results.map { result -> [String] in
            let summaries = engines.map { result.summary($0) }
            return [result.name, result.unit] + summaries.map { Console.compact($0.median) }
                + baselines.map { String(format: "%.2fx", result.advantage(of: subject, over: $0)) }
                + summaries.map { "\(Console.compact($0.min))–\(Console.compact($0.max))" }
        }
        let cells = ["workload", "unit"] + header
        let widths = cells.indices.map { column in
            ([cells] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < 2 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let runs = results.first?.runs.first?.samples.count ?? 0
        var text = "\(suite) suite: \(subject) vs \(baselines.joined(separator: " and ")), median of \(runs) interleaved "
            + "runs per engine; vs <engine> > 1 means \(subject) wins\n\n"
        text += line(cells) + "\n"
        text += line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in rows { text += line(row) + "\n" }
        text += "\n"
        for result in results { text += "\(result.name): \(result.note)\n" }
        return text
    }

    /// The JSON document: `{"suite": ..., "workloads": [{"name", "unit", "higher_is_better", "<subject>",
    /// "<baseline>"..., "advantage", "advantage_<other baseline>"..., "<engine>_runs", "<engine>_spread", "note"},
    /// ...]}`.
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
            for engine in engines {
                try workload.encode(result.summary(engine).median, forKey: Key(engine))
            }
            for (position, baseline) in baselines.enumerated() {
                try workload.encode(
                    result.advantage(of: subject, over: baseline),
                    forKey: Key(position == 0 ? "advantage" : "advantage_\(baseline)"))
            }
            for (engine, _) in result.runs {
                try workload.encode(result.rates(engine), forKey: Key("\(engine)_runs"))
                try workload.encode(result.summary(engine), forKey: Key("\(engine)_spread"))
            }
            try workload.encode(result.note, forKey: Key("note"))
        }
    }
}
