// What the suite needs from a storage engine, so every workload is written once and runs against Cairn's
// SegmentLog, SQLite and LevelDB alike. Each adapter owns its inner loops (a whole batch of commits, a whole list of
// point reads), so the timed code is what an application would write against that engine's API.

/// How a workload wants a store opened.
enum StoreProfile: Sendable {
    /// Batched durable writes with each engine's usual settings: Cairn `.full` (every commit syncs);
    /// SQLite with GRDB's defaults (WAL, `synchronous=NORMAL`: commits sync only at checkpoints); LevelDB
    /// with `sync=false`, as Firebase's Apple SDK writes.
    case batched
    /// Every commit is on disk when it returns: Cairn `.full`; SQLite WAL with `synchronous=FULL`; LevelDB
    /// `sync=true`.
    case durable
    /// Loading a fixture as fast as possible; durability is irrelevant (Cairn `.none`, SQLite
    /// `synchronous=OFF`, LevelDB `sync=false`).
    case bulkLoad
    /// Reading an existing data set. `cacheBytes` nil keeps each engine's default caches (Cairn's frame
    /// cache 32 MiB, SQLite's page cache 2 MB, LevelDB's block cache 8 MiB); a size gives every engine caches of
    /// that size.
    case reading(cacheBytes: Int?)
}

/// A storage engine under test.
protocol StorageEngine: Sendable {
    /// The engine's name in the report: "cairn", "sqlite" or "leveldb".
    var name: String { get }
    /// Opens (creating it when missing) the store in `directory`.
    func open(at directory: String, profile: StoreProfile) throws -> any BenchStore
}

/// An open store. Not thread-safe; the suite uses it from one thread.
protocol BenchStore: AnyObject {
    /// Commits `records` in order, `batchSize` records per atomic commit.
    func append(_ records: [BenchRecord], batchSize: Int) throws
    /// Reads every key into an in-memory index (what a layer above does when it opens the store), sized up
    /// front from the store's record count; returns the number of records read.
    func loadKeyIndex() throws -> Int
    /// Builds what point reads by key need and is not part of them (Cairn: the key → location index).
    func prepareReads() throws
    /// Reads the value of each key with one point read per key; returns the total value bytes read.
    func read(_ keys: [KeyBytes]) throws -> Int
    /// Reads every record, folding its key and value bytes through ``touch(key:value:)``.
    func scanAll() throws -> (records: Int, checksum: Int)
    func close() throws
}

/// A failure of the benchmark itself (as opposed to one of an engine).
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Touches the first and last byte of a key and a value, so scans cannot skip reading them. All engines'
/// scans sum this over every record, and the suite checks that the sums agree.
@inline(__always)
func touch(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int {
    Int(key.first ?? 0) &+ Int(key.last ?? 0) &+ Int(value.first ?? 0) &+ Int(value.last ?? 0) &+ value.count
}
