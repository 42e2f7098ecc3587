import SegmentLog

/// A read-only look into a Realtime Database cache directory, for tools (`cairn`): the replayed views (tracked
/// queries, pending writes, server data), the log's statistics, and a full check (``verify()``). The commands of
/// `cairn` only format what it returns.
///
/// Opening never changes a byte, as for Firestore caches: the log is opened read-only without its lock, and
/// replay only reads. A directory that a running app holds is refused (`.locked`): reading a log while it is
/// written could show a state that never existed. When replay fails the inspector still opens on the log alone,
/// so ``verify()`` can report what is there; the views then throw, naming the replay's problem.
///
/// ```swift
/// let inspector = try DatabaseCacheInspector.open(at: directory)
/// defer { inspector.close() }
/// let report = try inspector.report(threshold: 10 << 20)
/// ```
package final class DatabaseCacheInspector {
    package let directory: String
    let log: SegmentLog
    /// The replayed cache, nil when replay failed (see ``replayProblem``).
    let cache: DatabaseCache?
    /// Why replaying the cache failed, nil when it succeeded.
    package let replayProblem: String?

    private init(directory: String, log: SegmentLog, cache: DatabaseCache?, replayProblem: String?) {
        self.directory = directory
        self.log = log
        self.cache = cache
        self.replayProblem = replayProblem
    }

    /// Opens the cache in `directory` read-only.
    ///
    /// - Throws: ``PersistenceError`` `.locked` when an app holds the directory; `.storage` when it holds no log
    ///   or the log cannot be opened (damage of the manifest or a segment header is `isDamage`).
    package static func open(at directory: String) throws(PersistenceError) -> DatabaseCacheInspector {
        if let holder = SegmentLog.lockHolder(at: directory) {
            throw PersistenceError(.locked, "the cache \(directory) is in use by \(holder); close that app first, or copy the directory and open the copy")
        }
        var configuration = DatabaseCache.defaultLogConfiguration
        configuration.readOnly = true
        configuration.frameCacheBytes = 4 << 20
        do throws(PersistenceError) {
            let cache = try DatabaseCache.open(at: directory, configuration: configuration)
            return DatabaseCacheInspector(directory: directory, log: cache.log, cache: cache, replayProblem: nil)
        } catch where error.code == .corruptRecord || error.code == .unsupportedVersion || error.isDamage {
            do {
                let log = try SegmentLog.open(at: directory, configuration: configuration)
                return DatabaseCacheInspector(directory: directory, log: log, cache: nil, replayProblem: error.message)
            } catch {
                throw DatabaseCache.wrap(error)
            }
        }
    }

    /// Releases the files. The inspector must not be used afterwards.
    package func close() {
        try? log.close()
    }

    /// The replayed cache, or an error naming why replay failed.
    func replayed() throws(PersistenceError) -> DatabaseCache {
        guard let cache else {
            throw PersistenceError(.corruptRecord, "the cache cannot be replayed: \(replayProblem ?? "unknown"); run `cairn verify \(directory)` for a full report", isDamage: true)
        }
        return cache
    }

    /// The log's statistics: segments, live and dead record bytes (exact: replay retired what is superseded).
    package var statistics: LogStatistics { log.statistics }

    /// What the cache holds, with its bytes against `threshold` (the app's `persistenceCacheSizeBytes`; nil:
    /// unlimited).
    package func report(threshold: UInt64?) throws(PersistenceError) -> DatabaseCacheReport {
        let cache = try replayed()
        let queries = cache.trackedQueries.values.sorted { $0.id < $1.id }.map {
            DatabaseCacheReport.Query(query: $0, trackedKeys: cache.trackedKeys[$0.id]?.count)
        }
        let writes = cache.writes.values.sorted { $0.id < $1.id }.map { write in
            let (_, key, value) = CacheRecord.userWriteAdded(write).encoded()
            return DatabaseCacheReport.Write(write: write, recordBytes: key.count + value.count)
        }
        return DatabaseCacheReport(
            statistics: log.statistics, session: cache.session, queries: queries, writes: writes,
            liveBytes: cache.liveBytes, threshold: threshold, maxInactiveQueries: CachePolicy().maxInactiveQueries)
    }

    /// The cached server data, composed at the root (pruned places are empty).
    package func serverData() throws(PersistenceError) -> Node {
        try replayed().serverCache(at: .root)
    }

    /// The pending writes, in write order.
    package func pendingWrites() throws(PersistenceError) -> [PersistedWrite] {
        try replayed().writes.values.sorted { $0.id < $1.id }
    }

    /// Reads every frame of every segment, decodes every record, and replays the views. Never changes a byte.
    package func verify() throws(PersistenceError) -> DatabaseCacheVerification {
        var result = DatabaseCacheVerification()
        do {
            let frames = try log.verify()
            result.segments = frames.segments
            result.frames = frames.frames
            result.records = frames.records
            result.damage = frames.damage.map(\.description)
            result.problems = frames.inconsistencies
        } catch {
            throw DatabaseCache.wrap(error)
        }
        do {
            try log.scan { view in
                do throws(PersistenceError) {
                    let record = try CacheRecord.decode(kind: view.kind, key: view.keyBytes, value: view.valueBytes)
                    result.recordsByKind["\(record.encoded().kind)", default: 0] += 1
                } catch {
                    result.problems.append("record LSN \(view.lsn) at \(view.location): \(error.message)")
                }
            }
        } catch {
            result.problems.append("the scan stopped: \(DatabaseCache.wrap(error).message)")
        }
        if let cache {
            result.replay = "\(cache.trackedQueries.count) tracked query(ies), \(cache.writes.count) pending write(s), session \(cache.session)"
        } else {
            result.problems.append("replay failed: \(replayProblem ?? "unknown")")
        }
        return result
    }
}

/// The outcome of ``DatabaseCacheInspector/verify()``.
package struct DatabaseCacheVerification: Sendable {
    package var segments = 0
    package var frames = 0
    package var records: UInt64 = 0
    /// Damaged frames, in log order.
    package var damage: [String] = []
    /// Records that do not decode, a manifest that disagrees with its segments, a replay that fails.
    package var problems: [String] = []
    /// Decoded records per kind name (`serverOverwrite`, ...).
    package var recordsByKind: [String: Int] = [:]
    /// What replay built, nil when it failed.
    package var replay: String?

    package var isClean: Bool { damage.isEmpty && problems.isEmpty }
}
