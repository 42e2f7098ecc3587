// LevelDB (the system's libleveldb through its C API) behind the suite's StorageEngine protocol: the store
// Firebase's Apple SDK keeps its Firestore cache in. One keyspace, key → value; writes are write batches.

/// LevelDB with the settings each ``StoreProfile`` asks for; everything else is LevelDB's default (4 KiB blocks,
/// snappy compression, 4 MiB write buffer, 8 MiB block cache), as Firebase's Apple SDK opens it.
///
/// Sync: Firebase's Apple SDK commits every transaction with default `WriteOptions` (`sync = false`,
/// `LevelDbTransaction::DefaultWriteOptions`): the write reaches the OS, not the disk. `.batched` does the same;
/// `.durable` sets `sync = true` (fsync per write); `.bulkLoad` does not sync. The record's kind is not stored
/// (the suite never reads it back).
struct LevelDBEngine: StorageEngine {
    let name = "leveldb"

    func open(at directory: String, profile: StoreProfile) throws -> any BenchStore {
        switch profile {
        case .batched, .bulkLoad:
            return LevelDBStore(try LevelDB(directory: directory, blockCacheBytes: nil, sync: false))
        case .durable:
            return LevelDBStore(try LevelDB(directory: directory, blockCacheBytes: nil, sync: true))
        case .reading(let cacheBytes):
            return LevelDBStore(try LevelDB(directory: directory, blockCacheBytes: cacheBytes, sync: false))
        }
    }
}

/// An open LevelDB database.
final class LevelDBStore: BenchStore {
    private var database: LevelDB?

    init(_ database: LevelDB) { self.database = database }

    private func open() throws -> LevelDB {
        guard let database else { throw BenchError("leveldb: the store is closed") }
        return database
    }

    func append(_ records: [BenchRecord], batchSize: Int) throws {
        let database = try open()
        let batch = LevelDB.Batch()
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + batchSize, records.endIndex)
            batch.clear()
            for record in records[start..<end] { batch.put(record.key, record.value) }
            try database.write(batch)
            start = end
        }
    }

    /// LevelDB keeps no record count, so the set grows as the iterator walks the keys.
    func loadKeyIndex() throws -> Int {
        var keys = Set<KeyBytes>()
        let iterator = try open().makeIterator()
        try iterator.forEach(prefix: []) { key, _ in
            keys.insert(KeyBytes(key))
            return true
        }
        return keys.count
    }

    func prepareReads() throws {}

    func read(_ keys: [KeyBytes]) throws -> Int {
        let database = try open()
        var bytes = 0
        for key in keys {
            bytes += try database.get(key.bytes) { value in
                guard let value else { throw BenchError("leveldb: no record for a key that was written") }
                return value.count
            }
        }
        return bytes
    }

    func scanAll() throws -> (records: Int, checksum: Int) {
        var records = 0
        var checksum = 0
        let iterator = try open().makeIterator()
        try iterator.forEach(prefix: []) { key, value in
            records += 1
            checksum &+= touch(key: key, value: value)
            return true
        }
        return (records, checksum)
    }

    func close() throws { database = nil }
}
