// How the query suite runs a workload: prepare it for each engine that takes part, then rounds of one run
// per engine (cairn 1, sqlite 1, leveldb 1, limit 1, cairn 2, ...), so drift on a shared machine spreads over every
// engine. A run returns measured values (latencies in ms, or one rate) and optionally secondary values (the
// longest stall of a garbage-collection run). A workload with a time cap (lru_gc_to_threshold with
// --gc-cap-seconds) stops an engine's run at the cap and reports it as not finished; that engine's later runs
// of the workload are skipped.

/// A workload of the query suite.
protocol QueryWorkload: AnyObject {
    /// The fixed name, e.g. `query_scan_eq`.
    var name: String { get }
    /// `ms` (lower is better) or a rate such as `docs/s` (higher is better).
    var unit: String { get }
    var higherIsBetter: Bool { get }
    /// How the workload is set up and what each engine does, for the report.
    var note: String { get }
    /// The name of the secondary statistic (`p99 ms`, `max stall ms`), or nil.
    var secondaryLabel: String? { get }
    /// Whether `engine` takes part (the floor only answers queries).
    func accepts(_ engine: any QueryEngine) -> Bool
    /// Not timed: fixtures, open caches, warm-up.
    func prepare(_ engine: any QueryEngine) throws
    /// Run `number` (1-based) against `engine`.
    func run(_ engine: any QueryEngine, number: Int) throws -> QueryRun
    /// Not timed: after the last run, closes what `prepare` opened for `engine`.
    func finish(_ engine: any QueryEngine) throws
    /// The secondary statistic of `engine`'s runs.
    func secondary(of runs: [QueryRun]) -> Double?
    /// Engines whose runs did not complete the task (their times are not comparable).
    var failedEngines: Set<String> { get }
    /// Engines stopped at the workload's time cap, with the cap in seconds: their later runs are skipped.
    var unfinishedEngines: [String: Int] { get }
}

extension QueryWorkload {
    var higherIsBetter: Bool { false }
    var unit: String { "ms" }
    var secondaryLabel: String? { nil }
    func accepts(_ engine: any QueryEngine) -> Bool { engine.isPersistent }
    func finish(_ engine: any QueryEngine) throws {}
    func secondary(of runs: [QueryRun]) -> Double? { nil }
    var failedEngines: Set<String> { [] }
    var unfinishedEngines: [String: Int] { [:] }
}

/// What one run measured.
struct QueryRun {
    var values: [Double]
    var secondary: [Double] = []
}

/// One engine's results for a workload.
struct EngineResult {
    let engine: String
    /// Every measured value of every run.
    let values: [Double]
    let secondary: Double?
    /// True when the engine did not complete the workload's task.
    let failed: Bool
    /// The time cap in seconds the engine was stopped at, when it was.
    var unfinishedWithinSeconds: Int? = nil

    var summary: Summary { Summary(values) }
    /// The slow tail: the 95th percentile of times, or the 5th percentile of rates, interpolated.
    func p95(higherIsBetter: Bool) -> Double { Self.percentile(values, higherIsBetter ? 0.05 : 0.95) }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        let position = p * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}

/// A workload's results for every engine that took part.
struct QueryWorkloadResult {
    let name: String
    let unit: String
    let higherIsBetter: Bool
    let note: String
    let secondaryLabel: String?
    let engines: [EngineResult]

    func result(_ engine: String) -> EngineResult? { engines.first { $0.engine == engine } }

    /// How many times better Cairn's median is than SQLite's (> 1: Cairn wins); nil when either failed.
    var advantage: Double? { advantage(over: "sqlite") }

    /// How many times better Cairn's median is than `baseline`'s (> 1: Cairn wins); nil when either failed or
    /// did not take part.
    func advantage(over baseline: String) -> Double? {
        guard let cairn = result("cairn"), let other = result(baseline), !cairn.failed, !other.failed else { return nil }
        let ours = cairn.summary.median
        let theirs = other.summary.median
        return higherIsBetter ? ours / theirs : theirs / ours
    }

    /// Cairn's median time over the floor's (1 would be as fast as a loop over decoded documents).
    var limitRatio: Double? {
        guard let cairn = result("cairn")?.summary.median, let floor = result("limit")?.summary.median else { return nil }
        return higherIsBetter ? floor / cairn : cairn / floor
    }
}

enum QueryHarness {
    static func run(_ workload: any QueryWorkload, engines: [any QueryEngine], runs: Int) throws -> QueryWorkloadResult {
        let taking = engines.filter(workload.accepts)
        Console.progress("\(workload.name): preparing \(taking.map(\.name).joined(separator: ", "))")
        for engine in taking { try workload.prepare(engine) }
        var measured: [String: [QueryRun]] = [:]
        for number in 1...runs {
            for engine in taking {
                if let cap = workload.unfinishedEngines[engine.name] {
                    Console.progress("\(workload.name) run \(number)/\(runs) \(engine.name): skipped (not finished in "
                        + "\(cap) s in an earlier run)")
                    continue
                }
                let run = try workload.run(engine, number: number)
                measured[engine.name, default: []].append(run)
                let median = Summary(run.values).median
                Console.progress(
                    "\(workload.name) run \(number)/\(runs) \(engine.name): \(QueryReport.format(median, unit: workload.unit))"
                        + (run.values.count > 1 ? " median of \(run.values.count)" : "")
                        + (run.secondary.max().map { ", \(workload.secondaryLabel ?? "") \(QueryReport.format($0, unit: "ms"))" } ?? ""))
            }
        }
        for engine in taking { try workload.finish(engine) }
        return QueryWorkloadResult(
            name: workload.name, unit: workload.unit, higherIsBetter: workload.higherIsBetter, note: workload.note,
            secondaryLabel: workload.secondaryLabel,
            engines: taking.map { engine in
                let runs = measured[engine.name] ?? []
                return EngineResult(
                    engine: engine.name, values: runs.flatMap(\.values), secondary: workload.secondary(of: runs),
                    failed: workload.failedEngines.contains(engine.name),
                    unfinishedWithinSeconds: workload.unfinishedEngines[engine.name])
            })
    }

    /// Times `body` in milliseconds.
    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return (clock.now - start).seconds * 1000
    }
}
