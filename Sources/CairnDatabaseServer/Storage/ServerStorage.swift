import CairnDatabaseCore
import Foundation
import SegmentLog
import Synchronization

/// The server's data on a SegmentLog (`cairn database-emulator --data DIR`): every stored write becomes one
/// record per location it sets (a merge sets each of its children), replayed in LSN order when the server starts.
///
/// Record grammar (kind 1):
///
/// ```text
/// key    = namespace UTF-8, 0x00, path ("/" for the root, else "/k1/k2...")
/// value  = the node at that path as JSON text in Firebase's export form (.priority, .value); "null" deletes
/// ```
///
/// Durability is a group commit in two steps: ``record(_:namespace:)`` appends a write's records while the core
/// holds its lock (a write to the operating system, so records reach the log in the order writes are applied),
/// and ``sync()``, called after the lock is released, makes everything appended so far durable (`fdatasync`);
/// syncs that overlap share one. A write is acknowledged only after a sync that covers it.
///
/// A record is dead once a later record sets its path or a path above it; the log is told (`retire`), and
/// ``compact()`` rewrites sealed segments that are mostly dead. Compaction keeps LSNs, so replay in LSN order
/// stays correct after it.
package final class ServerStorage: Sendable {
    static let setKind: UInt8 = 1

    private let log: SegmentLog
    /// The live record of each (namespace, path) key.
    private let live: Mutex<[String: RecordLocation]>

    private init(log: SegmentLog, live: [String: RecordLocation]) {
        self.log = log
        self.live = Mutex(live)
    }

    /// Opens (or creates) the log in `directory` and returns it with the data it holds, namespace by namespace
    /// (`fileSystem` is for tests).
    ///
    /// - Throws: `StorageError` from the log (locked by another process, damaged, not a log), or a
    ///   ``ServerError`` `invalidData` naming a record that cannot be read.
    package static func open(directory: String, fileSystem: any FileSystem = PosixFileSystem()) throws -> (ServerStorage, ServerDatabase) {
        var configuration = SegmentLogConfiguration()
        configuration.fileSystem = fileSystem
        configuration.durability = .none
        // The server reads its log whole at open and seldom after: 16 KiB frames (the caches' size) take
        // less disk than SegmentLog's point-read default of 8 KiB, and cold point reads do not matter here.
        configuration.frameTargetSize = 16 << 10
        let log = try SegmentLog.open(at: directory, configuration: configuration)
        var records: [(lsn: UInt64, key: String, value: [UInt8], location: RecordLocation)] = []
        try log.scan { view in
            guard view.kind == setKind else { return }
            records.append((view.lsn, String(decoding: view.keyBytes, as: UTF8.self), view.valueBytes, view.location))
        }
        records.sort { $0.lsn < $1.lsn }
        var database = ServerDatabase()
        var live: [String: RecordLocation] = [:]
        for record in records {
            let (namespace, path) = try parseKey(record.key)
            guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(record.value)) else {
                throw ServerError(.invalidData, "the stored value at \(path) in namespace \(namespace) (\(record.location)) is not JSON")
            }
            try database.apply(try ServerWrite.decodeSet(path: path, data: json), namespace: namespace, timestamp: 0)
            for location in supersede(namespace: namespace, path: path, in: &live) { log.retire(location) }
            live[record.key] = record.location
        }
        return (ServerStorage(log: log, live: live), database)
    }

    /// Appends a stored write (server values already resolved); durable after the next ``sync()``.
    package func record(_ write: ServerWrite, namespace: String) throws {
        var sets: [(DatabasePath, Node)] = []
        switch write {
        case .set(let path, let node): sets = [(path, node)]
        case .merge(let path, let children): sets = children.map { (path.child($0.0), $0.1) }
        }
        var batch = WriteBatch()
        for (path, node) in sets {
            batch.append(kind: Self.setKind, key: Array(Self.key(namespace, path).utf8), value: Array(WireMessage.encode(node.exportJSON()).utf8))
        }
        let locations = try log.commit(batch)
        let retired = live.withLock { live -> [RecordLocation] in
            var retired: [RecordLocation] = []
            for ((path, _), location) in zip(sets, locations) {
                retired += Self.supersede(namespace: namespace, path: path, in: &live)
                live[Self.key(namespace, path)] = location
            }
            return retired
        }
        for location in retired { log.retire(location) }
    }

    /// Makes every record appended so far durable. Concurrent calls share one `fdatasync` (the log's group commit).
    ///
    /// - Throws: `StorageError` when the sync fails; the log then refuses every later write (reopen to recover).
    package func sync() throws {
        try log.sync()
    }

    /// Rewrites the sealed segments that are at least half dead.
    package func compact() throws {
        let candidates = log.compactionCandidates()
        guard !candidates.isEmpty else { return }
        let snapshot = live.withLock { $0 }
        let compaction = try log.makeCompaction(of: candidates) { view in
            snapshot[String(decoding: view.keyBytes, as: UTF8.self)] == view.location
        }
        var summary: CompactionSummary?
        while summary == nil { summary = try compaction.step() }
        live.withLock { live in
            for relocation in summary?.relocations ?? [] {
                let key = String(decoding: relocation.key, as: UTF8.self)
                if live[key] == relocation.from { live[key] = relocation.to }
            }
        }
    }

    package func close() throws {
        try log.close()
    }

    static func key(_ namespace: String, _ path: DatabasePath) -> String {
        namespace + "\u{0}" + path.description
    }

    private static func parseKey(_ key: String) throws(ServerError) -> (String, DatabasePath) {
        let parts = key.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw ServerError(.invalidData, "a stored record's key has no namespace separator: \(key.prefix(64))")
        }
        return (String(parts[0]), try ServerWrite.parsePath(String(parts[1])))
    }

    /// Removes from `live` the records a set at `path` supersedes (at or below it) and returns them.
    private static func supersede(namespace: String, path: DatabasePath, in live: inout [String: RecordLocation]) -> [RecordLocation] {
        let exact = key(namespace, path)
        let prefix = path.isEmpty ? namespace + "\u{0}/" : exact + "/"
        var superseded: [RecordLocation] = []
        for (key, location) in live where key == exact || key.hasPrefix(prefix) {
            superseded.append(location)
            live[key] = nil
        }
        return superseded
    }
}
