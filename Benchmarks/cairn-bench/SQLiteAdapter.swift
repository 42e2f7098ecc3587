// SQLite through GRDB behind the suite's StorageEngine protocol: a `DatabasePool` (WAL mode) holding one
// table, written and read with cached prepared statements, as an application using GRDB well would.

import Foundation
import GRDB

/// SQLite in WAL mode via GRDB's `DatabasePool`, with GRDB's default configuration except what each
/// ``StoreProfile`` asks for.
///
/// Schema: `records(key BLOB PRIMARY KEY, kind, value)` as a rowid table, so the primary key is a separate
/// index. `WITHOUT ROWID` would store each ~1 KiB row inside the key b-tree, where SQLite's cell limit for
/// index b-trees (~1000 bytes on 4 KiB pages) sends the tail of every row to an overflow page: measured at
/// scale 0.3 it was 2–5x slower on every workload but single durable commits (batched appends 10.7k vs
/// 57.5k records/s, cold reads 52k vs 173k reads/s, 141 MB vs 42 MB on disk), so SQLite gets the rowid layout.
struct SQLiteEngine: StorageEngine {
    let name = "sqlite"

    static let schema = """
        CREATE TABLE IF NOT EXISTS records(key BLOB PRIMARY KEY, kind INTEGER NOT NULL, value BLOB NOT NULL)
        """

    func open(at directory: String, profile: StoreProfile) throws -> any BenchStore {
        var configuration = Configuration()
        if case .reading(let cacheBytes?) = profile {
            // One reader connection, so the warm-up and the timed reads share its page cache.
            configuration.maximumReaderCount = 1
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA cache_size = -\(cacheBytes / 1024)")
            }
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: directory + "/records.sqlite", configuration: configuration)
        // GRDB sets `synchronous=NORMAL` on the writer after `prepareDatabase` has run (in setUpWALMode), so a
        // pragma there would be overridden: the profile's level is set on the open pool and read back.
        // Reading profiles open an existing database and change nothing.
        let synchronous: (name: String, value: Int)?
        switch profile {
        case .reading: return SQLiteStore(pool: pool)
        case .batched: synchronous = nil
        case .durable: synchronous = ("FULL", 2)
        case .bulkLoad: synchronous = ("OFF", 0)
        }
        try pool.writeWithoutTransaction { db in
            if let synchronous {
                try db.execute(sql: "PRAGMA synchronous = \(synchronous.name)")
                let actual = try Int.fetchOne(db, sql: "PRAGMA synchronous")
                guard actual == synchronous.value else {
                    throw BenchError("sqlite: PRAGMA synchronous is \(actual ?? -1), not \(synchronous.name)")
                }
            }
            try db.execute(sql: Self.schema)
        }
        return SQLiteStore(pool: pool)
    }
}

/// An open database pool.
final class SQLiteStore: BenchStore {
    let pool: DatabasePool

    init(pool: DatabasePool) { self.pool = pool }

    func append(_ records: [BenchRecord], batchSize: Int) throws {
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + batchSize, records.endIndex)
            try pool.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO records(key, kind, value) VALUES (?, ?, ?)")
                for record in records[start..<end] {
                    try insert.execute(arguments: [Data(record.key), Int(record.kind), Data(record.value)])
                }
            }
            start = end
        }
    }

    /// Sizes the set from `SELECT count(*)` first (SQLite keeps no row count; counting is part of the cost).
    func loadKeyIndex() throws -> Int {
        try pool.read { db in
            var keys = Set<KeyBytes>()
            keys.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM records") ?? 0)
            var records = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT key FROM records")
            while let row = try rows.next() {
                try row.withUnsafeData(atIndex: 0) { data in
                    guard let data else { throw BenchError("sqlite: NULL key") }
                    data.withUnsafeBytes { _ = keys.insert(KeyBytes($0)) }
                }
                records += 1
            }
            return records
        }
    }

    func prepareReads() throws {}

    /// All reads of a call share one read transaction (one `pool.read`), SQLite's cheapest way to do them.
    func read(_ keys: [KeyBytes]) throws -> Int {
        try pool.read { db in
            let select = try db.cachedStatement(sql: "SELECT value FROM records WHERE key = ?")
            var bytes = 0
            for key in keys {
                guard let value = try Data.fetchOne(select, arguments: [Data(key.bytes)]) else {
                    throw BenchError("sqlite: no record for a key that was written")
                }
                bytes += value.count
            }
            return bytes
        }
    }

    func scanAll() throws -> (records: Int, checksum: Int) {
        try pool.read { db in
            var records = 0
            var checksum = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT key, value FROM records")
            while let row = try rows.next() {
                try row.withUnsafeData(atIndex: 0) { key in
                    try row.withUnsafeData(atIndex: 1) { value in
                        guard let key, let value else { throw BenchError("sqlite: NULL key or value") }
                        key.withUnsafeBytes { key in
                            value.withUnsafeBytes { value in checksum &+= touch(key: key, value: value) }
                        }
                    }
                }
                records += 1
            }
            return (records, checksum)
        }
    }

    func close() throws { try pool.close() }
}
