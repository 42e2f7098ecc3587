// replay_open: what opening a store costs a layer that keeps an in-memory index of every key. Timed from
// opening the store on disk to having read every key into a dictionary; closing is outside.

/// Opens a loaded data set and reads every key into an in-memory index, once per run.
final class ReplayWorkload: Workload {
    let name = "replay_open"
    let unit = "records/s"
    let note: String
    private let dataSet: DataSet
    private var fingerprint = Fingerprint()

    init(dataSet: DataSet) {
        self.dataSet = dataSet
        note = "Open + index every key of \(dataSet.summary) (small records, to keep setup time sane). "
            + "Cairn: SegmentLog.open, then scan into [key: RecordLocation] sized from log.statistics; "
            + "SQLite: new DatabasePool, then SELECT key FROM records into a Set sized by SELECT count(*); "
            + "LevelDB: leveldb_open, then an iterator over every key into a Set (LevelDB keeps no count). "
            + "OS page cache warm."
    }

    func prepare(_ engine: any StorageEngine) throws {
        _ = try dataSet.directory(for: engine)
    }

    func run(_ engine: any StorageEngine, number: Int) throws -> Sample {
        let directory = try dataSet.directory(for: engine)
        var opened: (any BenchStore)?
        let sample = try Sample.measure {
            let store = try engine.open(at: directory, profile: .reading(cacheBytes: nil))
            opened = store
            return try store.loadKeyIndex()
        }
        try opened?.close()
        try fingerprint.check(sample.operations, engine: engine.name, what: "replayed records:")
        return sample
    }
}
