// Cairn's SegmentLog behind the suite's StorageEngine protocol. Records are addressed by location, so the
// store keeps the key → location dictionary a layer above would materialize by scanning the log on open.

import SegmentLog

/// SegmentLog with the settings each ``StoreProfile`` asks for; everything else is the engine's default
/// (8 KiB LZ4 frames, 64 MiB segments, 32 MiB frame cache, 1 MiB preallocation) unless `frameTargetSize` is set.
struct SegmentLogEngine: StorageEngine {
    let name = "cairn"
    var frameTargetSize: Int? = nil

    func open(at directory: String, profile: StoreProfile) throws -> any BenchStore {
        var configuration = SegmentLog.Configuration()
        if let frameTargetSize { configuration.frameTargetSize = frameTargetSize }
        switch profile {
        case .batched, .durable:
            configuration.durability = .full
        case .bulkLoad:
            configuration.durability = .none
        case .reading(let cacheBytes):
            if let cacheBytes { configuration.frameCacheBytes = cacheBytes }
        }
        return SegmentLogStore(log: try SegmentLog.open(at: directory, configuration: configuration))
    }
}

/// An open segment log and the key index built from it.
final class SegmentLogStore: BenchStore {
    let log: SegmentLog
    /// Key → where its record is; filled by ``loadKeyIndex()``.
    private var index: [KeyBytes: RecordLocation] = [:]

    init(log: SegmentLog) { self.log = log }

    func append(_ records: [BenchRecord], batchSize: Int) throws {
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + batchSize, records.endIndex)
            var batch = WriteBatch()
            for record in records[start..<end] {
                batch.append(kind: record.kind, key: record.key, value: record.value)
            }
            try log.commit(batch)
            start = end
        }
    }

    /// Sizes the dictionary from the record count the log keeps in memory (manifest and recovery).
    func loadKeyIndex() throws -> Int {
        var index: [KeyBytes: RecordLocation] = [:]
        index.reserveCapacity(Int(log.statistics.recordCount))
        var records = 0
        try log.scan { view in
            index[KeyBytes(view.key)] = view.location
            records += 1
        }
        self.index = index
        return records
    }

    func prepareReads() throws {
        if index.isEmpty { _ = try loadKeyIndex() }
    }

    func read(_ keys: [KeyBytes]) throws -> Int {
        var bytes = 0
        for key in keys {
            guard let location = index[key] else { throw BenchError("cairn: no record for a key that was written") }
            bytes += try log.read(location).value.count
        }
        return bytes
    }

    func scanAll() throws -> (records: Int, checksum: Int) {
        var records = 0
        var checksum = 0
        try log.scan { view in
            records += 1
            checksum &+= touch(key: view.key, value: view.value)
        }
        return (records, checksum)
    }

    func close() throws { try log.close() }
}
