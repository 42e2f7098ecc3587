// Durable appends into a fresh store: many records per commit (append_batched_1000) or one record per
// commit (append_single_durable). The timing covers the commits only; opening the empty store and closing
// it are outside.

/// Appends `count` generated records in commits of `batchSize`, each run into a new, empty directory.
final class AppendWorkload: Workload {
    let name: String
    let unit: String
    let note: String
    private let count: Int
    private let batchSize: Int
    private let profile: StoreProfile
    private let generator: DocumentGenerator
    private let scratch: ScratchDirectory
    /// Generated once, on the first `prepare`, and shared by every engine.
    private var records: [BenchRecord] = []

    init(
        name: String, unit: String, count: Int, batchSize: Int, profile: StoreProfile, note: String,
        generator: DocumentGenerator, scratch: ScratchDirectory
    ) {
        self.name = name
        self.unit = unit
        self.count = count
        self.batchSize = batchSize
        self.profile = profile
        self.generator = generator
        self.scratch = scratch
        self.note = "\(Console.compact(Double(count))) records of ~\(generator.valueSize) B per run. " + note
    }

    func prepare(_ engine: any StorageEngine) throws {
        if records.isEmpty { records = generator.records(0..<count) }
    }

    /// Returns records per second, or commits per second when every record is its own commit.
    func run(_ engine: any StorageEngine, number: Int) throws -> Sample {
        let directory = try scratch.freshDirectory("\(name)/\(engine.name)-run\(number)")
        let store = try engine.open(at: directory, profile: profile)
        let sample = try Sample.measure {
            try store.append(records, batchSize: batchSize)
            return count
        }
        // Not timed: check that everything was written, then drop the run's files.
        let written = try store.loadKeyIndex()
        guard written == count else { throw BenchError("\(engine.name) holds \(written) records after \(name), not \(count)") }
        try store.close()
        try scratch.remove(directory)
        return sample
    }
}
