// The unit of a benchmark suite: a workload prepares its fixtures once per engine, then performs timed runs
// that the harness interleaves between engines (A1 B1 A2 B2 ...), so that drift on a shared machine (other
// processes, page cache, thermal state) spreads over every engine instead of favouring whichever ran first.
// Workloads also cross-check the engines' answers, so a benchmark never reports a fast engine that read the
// wrong data.

/// A measured task, run the same way against every engine.
protocol Workload: AnyObject {
    /// The name in the report and in `--workloads`, e.g. `append_batched_1000`.
    var name: String { get }
    /// What the rate counts, e.g. `records/s`.
    var unit: String { get }
    /// Whether a larger result is better (true for every rate).
    var higherIsBetter: Bool { get }
    /// How the workload is set up, in a sentence or two for the report.
    var note: String { get }
    /// Builds what every run against `engine` needs (data sets, record lists); not timed.
    func prepare(_ engine: any StorageEngine) throws
    /// Performs run `number` (1-based) against `engine` and returns its timing. Setting up a fresh store
    /// and closing it afterwards are not part of the timing unless the workload measures exactly that.
    func run(_ engine: any StorageEngine, number: Int) throws -> Sample
}

extension Workload {
    var higherIsBetter: Bool { true }
}

/// Checks that every engine and every run produced the same answer (records counted, bytes read, a
/// checksum of scanned bytes).
struct Fingerprint {
    private var expected: (value: Int, engine: String)?

    /// Throws when `value` differs from the first value recorded.
    mutating func check(_ value: Int, engine: String, what: String) throws {
        guard let expected else {
            self.expected = (value, engine)
            return
        }
        guard value == expected.value else {
            throw BenchError("\(engine) \(what) \(value), but \(expected.engine) \(what) \(expected.value)")
        }
    }
}

/// The interleaving runner.
enum Harness {
    /// Prepares `workload` for each engine, then performs `runs` rounds of one run per engine.
    static func run(_ workload: any Workload, engines: [any StorageEngine], runs: Int) throws -> WorkloadResult {
        Console.progress("\(workload.name): preparing")
        for engine in engines { try workload.prepare(engine) }
        var samples: [String: [Sample]] = [:]
        for number in 1...runs {
            for engine in engines {
                let sample = try workload.run(engine, number: number)
                samples[engine.name, default: []].append(sample)
                Console.progress(
                    "\(workload.name) run \(number)/\(runs) \(engine.name): "
                        + "\(Console.compact(sample.rate)) \(workload.unit) "
                        + "(\(Console.compact(Double(sample.operations))) in \(Console.seconds(sample.elapsed)))")
            }
        }
        return WorkloadResult(
            name: workload.name, unit: workload.unit, higherIsBetter: workload.higherIsBetter, note: workload.note,
            runs: engines.map { (engine: $0.name, samples: samples[$0.name] ?? []) })
    }
}
