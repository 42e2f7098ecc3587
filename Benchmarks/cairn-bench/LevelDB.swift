// A thin Swift handle over LevelDB's C API (the system's libleveldb, module CLevelDB), shared by the engine
// suite's LevelDB column and the query suite's iOS-style cache. Options are LevelDB's defaults except what the
// caller sets, as Firebase's Apple SDK opens its cache with `leveldb::Options` defaults and `create_if_missing`
// (Debian's LevelDB compresses blocks with snappy by default, as the SDK's does); reads verify checksums, as
// the SDK's `StandardReadOptions` do.

import CLevelDB

/// An open LevelDB database. Not thread-safe; the suites use it from one thread.
final class LevelDB {
    private let database: OpaquePointer
    private let options: OpaquePointer
    private let cache: OpaquePointer?
    private let readOptions: OpaquePointer
    private let writeOptions: OpaquePointer

    /// Opens (creating when missing) the database in `directory`. `blockCacheBytes` nil keeps LevelDB's default
    /// 8 MiB block cache; `sync` makes every write wait for fsync (`WriteOptions::sync`).
    init(directory: String, blockCacheBytes: Int?, sync: Bool) throws {
        options = leveldb_options_create()
        leveldb_options_set_create_if_missing(options, 1)
        if let blockCacheBytes {
            let cache = leveldb_cache_create_lru(blockCacheBytes)
            leveldb_options_set_cache(options, cache)
            self.cache = cache
        } else {
            cache = nil
        }
        var error: UnsafeMutablePointer<CChar>?
        let opened = leveldb_open(options, directory, &error)
        if let failure = Self.consume(error) {
            leveldb_options_destroy(options)
            if let cache { leveldb_cache_destroy(cache) }
            throw BenchError("leveldb: cannot open \(directory): \(failure)")
        }
        guard let opened else {
            leveldb_options_destroy(options)
            if let cache { leveldb_cache_destroy(cache) }
            throw BenchError("leveldb: leveldb_open returned no database for \(directory)")
        }
        database = opened
        readOptions = leveldb_readoptions_create()
        leveldb_readoptions_set_verify_checksums(readOptions, 1)
        writeOptions = leveldb_writeoptions_create()
        leveldb_writeoptions_set_sync(writeOptions, sync ? 1 : 0)
    }

    deinit {
        leveldb_close(database)
        leveldb_readoptions_destroy(readOptions)
        leveldb_writeoptions_destroy(writeOptions)
        leveldb_options_destroy(options)
        if let cache { leveldb_cache_destroy(cache) }
    }

    /// Commits `batch` atomically (LevelDB's `DB::Write`).
    func write(_ batch: Batch) throws {
        var error: UnsafeMutablePointer<CChar>?
        leveldb_write(database, writeOptions, batch.handle, &error)
        if let failure = Self.consume(error) { throw BenchError("leveldb: write failed: \(failure)") }
    }

    /// Calls `body` with the value stored under `key` (nil when there is none); the bytes are valid only in `body`.
    func get<Result>(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> Result) throws -> Result {
        var error: UnsafeMutablePointer<CChar>?
        var length = 0
        let value = key.withUnsafeBufferPointer { key in
            key.withMemoryRebound(to: CChar.self) { key in
                leveldb_get(database, readOptions, key.baseAddress, key.count, &length, &error)
            }
        }
        if let failure = Self.consume(error) { throw BenchError("leveldb: get failed: \(failure)") }
        guard let value else { return try body(nil) }
        defer { leveldb_free(value) }
        return try body(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// A new iterator over a consistent snapshot of the database, not yet positioned.
    func makeIterator() -> Iterator { Iterator(leveldb_create_iterator(database, readOptions), of: self) }

    /// Takes ownership of an error string LevelDB allocated.
    private static func consume(_ error: UnsafeMutablePointer<CChar>?) -> String? {
        guard let error else { return nil }
        defer { leveldb_free(error) }
        return String(cString: error)
    }

    /// A write batch (`leveldb::WriteBatch`): puts and deletes applied atomically by ``LevelDB/write(_:)``.
    final class Batch {
        fileprivate let handle: OpaquePointer
        /// Operations added since creation or the last ``clear()``.
        private(set) var count = 0

        init() { handle = leveldb_writebatch_create() }
        deinit { leveldb_writebatch_destroy(handle) }

        func put(_ key: [UInt8], _ value: [UInt8]) {
            key.withUnsafeBufferPointer { key in
                value.withUnsafeBufferPointer { value in
                    key.withMemoryRebound(to: CChar.self) { key in
                        value.withMemoryRebound(to: CChar.self) { value in
                            leveldb_writebatch_put(handle, key.baseAddress, key.count, value.baseAddress, value.count)
                        }
                    }
                }
            }
            count += 1
        }

        func delete(_ key: [UInt8]) {
            key.withUnsafeBufferPointer { key in
                key.withMemoryRebound(to: CChar.self) { key in
                    leveldb_writebatch_delete(handle, key.baseAddress, key.count)
                }
            }
            count += 1
        }

        func clear() {
            leveldb_writebatch_clear(handle)
            count = 0
        }
    }

    /// A forward iterator; `key` and `value` are valid until the next move.
    final class Iterator {
        private let handle: OpaquePointer
        /// Keeps the database open while the iterator lives.
        private let database: LevelDB

        fileprivate init(_ handle: OpaquePointer, of database: LevelDB) {
            self.handle = handle
            self.database = database
        }
        deinit { leveldb_iter_destroy(handle) }

        var isValid: Bool { leveldb_iter_valid(handle) != 0 }

        func seekToFirst() { leveldb_iter_seek_to_first(handle) }

        /// Positions at the first key at or after `key`.
        func seek(_ key: [UInt8]) {
            key.withUnsafeBufferPointer { key in
                key.withMemoryRebound(to: CChar.self) { leveldb_iter_seek(handle, $0.baseAddress, $0.count) }
            }
        }

        func next() { leveldb_iter_next(handle) }

        var key: UnsafeRawBufferPointer {
            var length = 0
            let bytes = leveldb_iter_key(handle, &length)
            return UnsafeRawBufferPointer(start: bytes, count: length)
        }

        var value: UnsafeRawBufferPointer {
            var length = 0
            let bytes = leveldb_iter_value(handle, &length)
            return UnsafeRawBufferPointer(start: bytes, count: length)
        }

        /// Throws the error that ended the iteration early, if any (call when ``isValid`` turns false).
        func checkStatus() throws {
            var error: UnsafeMutablePointer<CChar>?
            leveldb_iter_get_error(handle, &error)
            if let failure = LevelDB.consume(error) { throw BenchError("leveldb: iteration failed: \(failure)") }
        }

        /// Calls `body` with each key (and value) that starts with `prefix`, from `start` (default: `prefix`)
        /// on, until `body` returns false or the keys leave the prefix.
        func forEach(
            prefix: [UInt8], from start: [UInt8]? = nil,
            _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
        ) throws {
            seek(start ?? prefix)
            while isValid {
                let key = self.key
                guard key.starts(with: prefix), try body(key, value) else { return }
                next()
            }
            try checkStatus()
        }
    }
}
