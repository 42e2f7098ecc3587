// Point reads by key from a loaded data set: hot (caches large enough for the whole data set, warmed by
// reading every record first) or cold (each engine's default caches, right after opening the store).

/// Reads a fixed, uniformly random list of keys, one point read each.
final class PointReadWorkload: Workload {
    /// What state the caches are in when the timed reads start.
    enum Temperature: Sendable {
        /// Every engine gets caches of this many bytes and read every record once before the timed reads.
        case hot(cacheBytes: Int)
        /// Default cache sizes; the store was just opened.
        case cold
    }

    let name: String
    let unit = "reads/s"
    let note: String
    private let dataSet: DataSet
    private let temperature: Temperature
    private let keys: [KeyBytes]
    private var fingerprint = Fingerprint()

    init(name: String, temperature: Temperature, reads: Int, dataSet: DataSet) {
        self.name = name
        self.temperature = temperature
        self.dataSet = dataSet
        keys = dataSet.randomKeys(reads, seed: 0x5EED_0000 ^ UInt64(reads))
        let engines = "Cairn: [key: RecordLocation] (built by a scan, not timed) + log.read; "
            + "SQLite: cached SELECT value WHERE key = ?, all reads in one pool.read; LevelDB: leveldb_get "
            + "(checksums verified, as Firebase's Apple SDK reads)."
        switch temperature {
        case .hot(let cacheBytes):
            note = "\(Console.compact(Double(reads))) random reads of \(dataSet.summary); every engine gets "
                + "\(cacheBytes >> 20) MiB caches (Cairn frame cache, SQLite cache_size, LevelDB block cache), "
                + "warmed by reading every record first. " + engines
        case .cold:
            note = "\(Console.compact(Double(reads))) random reads of \(dataSet.summary) right after opening, "
                + "default caches (Cairn 32 MiB frame cache, SQLite 2 MB page cache, LevelDB 8 MiB block cache); "
                + "the OS page cache is warm (files were just written and read). " + engines
        }
    }

    func prepare(_ engine: any StorageEngine) throws {
        _ = try dataSet.directory(for: engine)
    }

    func run(_ engine: any StorageEngine, number: Int) throws -> Sample {
        let directory = try dataSet.directory(for: engine)
        let store: any BenchStore
        switch temperature {
        case .hot(let cacheBytes):
            store = try engine.open(at: directory, profile: .reading(cacheBytes: cacheBytes))
            try store.prepareReads()
            _ = try store.read(dataSet.allKeys)
        case .cold:
            store = try engine.open(at: directory, profile: .reading(cacheBytes: nil))
            try store.prepareReads()
        }
        var bytes = 0
        let sample = try Sample.measure {
            bytes = try store.read(keys)
            return keys.count
        }
        try store.close()
        try fingerprint.check(bytes, engine: engine.name, what: "read value bytes:")
        return sample
    }
}
