// scan_all: read every record of a loaded data set in storage order, touching each key and value.

/// Scans a loaded data set once per run; opening the store is not timed.
final class ScanWorkload: Workload {
    let name = "scan_all"
    let unit = "records/s"
    let note: String
    private let dataSet: DataSet
    private var fingerprint = Fingerprint()

    init(dataSet: DataSet) {
        self.dataSet = dataSet
        note = "Every record of \(dataSet.summary), touching key and value bytes. "
            + "Cairn: log.scan; SQLite: SELECT key, value FROM records; LevelDB: one iterator from the first key. "
            + "OS page cache warm."
    }

    func prepare(_ engine: any StorageEngine) throws {
        _ = try dataSet.directory(for: engine)
    }

    func run(_ engine: any StorageEngine, number: Int) throws -> Sample {
        let store = try engine.open(at: try dataSet.directory(for: engine), profile: .reading(cacheBytes: nil))
        var checksum = 0
        let sample = try Sample.measure {
            let result = try store.scanAll()
            checksum = result.checksum
            return result.records
        }
        try store.close()
        try fingerprint.check(checksum, engine: engine.name, what: "scan checksum:")
        guard sample.operations == dataSet.count else {
            throw BenchError("\(engine.name) scanned \(sample.operations) records, not \(dataSet.count)")
        }
        return sample
    }
}
