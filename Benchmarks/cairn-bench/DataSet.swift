// A fixture: generated records loaded once per engine into a directory that workloads then open, read and
// scan. Loading uses each engine's fastest settings; it is setup, not a measurement.

import CairnTestSupport

/// `count` records from `generator`, stored once per engine under the scratch directory.
final class DataSet {
    /// Names the data set in directory names and progress lines.
    let label: String
    let generator: DocumentGenerator
    let count: Int
    private let scratch: ScratchDirectory
    /// Engine name → directory of its loaded store.
    private var directories: [String: String] = [:]
    /// Records per load transaction.
    private let chunk = 10_000

    init(label: String, generator: DocumentGenerator, count: Int, scratch: ScratchDirectory) {
        self.label = label
        self.generator = generator
        self.count = count
        self.scratch = scratch
    }

    /// A phrase for workload notes, e.g. "100k records of ~1024 B JSON documents".
    var summary: String {
        "\(Console.compact(Double(count))) records of ~\(generator.valueSize) B JSON documents"
    }

    /// Every key of the data set, in load order.
    var allKeys: [KeyBytes] { (0..<count).map(generator.key(at:)) }

    /// `reads` keys drawn uniformly at random (with a fixed seed) from the data set.
    func randomKeys(_ reads: Int, seed: UInt64) -> [KeyBytes] {
        var rng = SeededRandom(seed: seed)
        return (0..<reads).map { _ in generator.key(at: rng.below(count)) }
    }

    /// The directory holding the data set in `engine`'s format, loading it on first use.
    func directory(for engine: any StorageEngine) throws -> String {
        if let directory = directories[engine.name] { return directory }
        let directory = try scratch.freshDirectory("\(label)/\(engine.name)")
        Console.progress("loading \(label) into \(engine.name): \(summary)")
        let sample = try Sample.measure {
            let store = try engine.open(at: directory, profile: .bulkLoad)
            var start = 0
            while start < count {
                let end = min(start + chunk, count)
                try store.append(generator.records(start..<end), batchSize: chunk)
                start = end
            }
            try store.close()
            return count
        }
        Console.progress(
            "loaded \(label) into \(engine.name) in \(Console.seconds(sample.elapsed)): "
                + "\(Console.megabytes(scratch.diskBytes(directory))) on disk")
        directories[engine.name] = directory
        return directory
    }
}
