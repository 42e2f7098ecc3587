// Timing samples and their summary statistics. A run produces one sample (operations done, time taken);
// a workload's result per engine is the median of its runs' rates, with the spread to show the noise.

/// One timed run: how many operations (records, commits, reads) it did and how long that took.
struct Sample: Sendable {
    var operations: Int
    var elapsed: Duration

    /// Operations per second.
    var rate: Double { elapsed.seconds > 0 ? Double(operations) / elapsed.seconds : 0 }

    /// Runs `body` once and times it with `ContinuousClock`; `body` returns the number of operations done.
    static func measure(_ body: () throws -> Int) rethrows -> Sample {
        let clock = ContinuousClock()
        let start = clock.now
        let operations = try body()
        return Sample(operations: operations, elapsed: clock.now - start)
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}

/// Order statistics of a set of rates (interpolated percentiles, as NumPy's default "linear" method).
struct Summary: Sendable, Codable {
    var min: Double
    var p25: Double
    var median: Double
    var p75: Double
    var max: Double

    init(_ values: [Double]) {
        precondition(!values.isEmpty, "a summary needs at least one value")
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double {
            let position = p * Double(sorted.count - 1)
            let lower = Int(position.rounded(.down))
            let upper = Swift.min(lower + 1, sorted.count - 1)
            let weight = position - Double(lower)
            return sorted[lower] * (1 - weight) + sorted[upper] * weight
        }
        min = sorted[0]
        p25 = percentile(0.25)
        median = percentile(0.5)
        p75 = percentile(0.75)
        max = sorted[sorted.count - 1]
    }
}
