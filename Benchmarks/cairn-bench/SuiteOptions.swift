// Command-line options every suite takes: how many runs, how large, which workloads, where the JSON goes.

import ArgumentParser
import Foundation

/// Options shared by the suites (`cairn-bench engine`, `cairn-bench query`).
struct SuiteOptions: ParsableArguments {
    @Option(help: "Timed runs per engine and workload (engines alternate run by run).")
    var runs = 5

    @Option(help: "Multiplies every record and operation count (0.05 is a quick smoke test).")
    var scale = 1.0

    @Option(help: "Also write the results as JSON to this path.")
    var json: String?

    @Option(help: "Comma-separated workload names to run (default: all).")
    var workloads: String?

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard scale > 0, scale.isFinite else { throw ValidationError("--scale must be a positive number") }
    }

    /// The workload names `--workloads` selects, in the suite's order; throws on unknown names.
    func selectedWorkloads(from available: [String]) throws -> [String] {
        guard let workloads else { return available }
        let wanted = workloads.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = wanted.first(where: { !available.contains($0) }) {
            throw ValidationError("unknown workload '\(unknown)'; choose from \(available.joined(separator: ", "))")
        }
        return available.filter(wanted.contains)
    }

    /// `base` multiplied by `--scale`, rounded, and at least `minimum`.
    func scaled(_ base: Int, minimum: Int = 1) -> Int {
        max(minimum, Int((Double(base) * scale).rounded()))
    }
}
