import SegmentLog

/// The Realtime Database cache on a segment log (Firebase's `FLevelDBStorageEngine`): it commits ``CacheRecord``s
/// in atomic batches and keeps the views they build, rebuilt on open by replaying the log in LSN order from keys
/// and small values (server nodes are read from the log when first needed).
///
/// Views: the server data as a trie of live records by path, the tracked queries and their keys, the pending user
/// writes in id order, the session number. **Liveness**: a server record at P is retired by any later overwrite or
/// prune at or above P, so every live record is newer than its live ancestors, and reading P composes the nearest
/// live record at or above P with the live records below it, shallower first. A removal (a prune with no live data
/// above it, a removed tracked query or write) stays live while a record it hides may still be on disk (its
/// "shadows": the segments of those records), so compaction never brings hidden data back.
///
/// ```swift
/// let cache = try DatabaseCache.open(at: directory)
/// try cache.commit([.serverOverwrite(path, node), .trackedQuerySaved(id: 1, query: query, isComplete: true, isActive: true)])
/// let node = try cache.serverCache(at: path)
/// ```
package final class DatabaseCache {
    package let log: SegmentLog
    struct ServerEntry {
        var location: RecordLocation
        var isPruned: Bool
        /// The decoded node of a data record, once read.
        var node: Node?
        var shadows: Set<UInt32>
    }
    struct Tombstone {
        var location: RecordLocation
        var shadows: Set<UInt32>
    }

    let server = PathTrie<ServerEntry>()
    package private(set) var trackedQueries: [UInt64: TrackedQuery] = [:]
    /// Tracked query ids by the path of their query.
    let queriesByPath = PathTrie<Set<UInt64>>()
    package private(set) var trackedKeys: [UInt64: Set<String>] = [:]
    package private(set) var writes: [UInt64: PersistedWrite] = [:]
    package private(set) var session: UInt64 = 0
    /// Where the live record of each id key (`q`, `k`, `w`) and the globals record are, with the segments of the
    /// older records of the key it superseded (what a removal of the key must keep hiding).
    var locations: [CacheRecordKey: (location: RecordLocation, shadows: Set<UInt32>)] = [:]
    var tombstones: [CacheRecordKey: Tombstone] = [:]
    /// Segments compaction removed in this session: what a removal hides there is gone, except the copies of
    /// records retired while their compaction was in progress (``copiesOfRetired``).
    var removedSegments = Set<UInt32>()
    /// The bounded compaction in progress (``compactStep()``) and the records of its inputs retired since it
    /// started: it may have copied them before, so their copies are retired at their new places and stay on disk.
    var inProgress: Compaction?
    var retiredInInputs = Set<RecordLocation>()
    /// For a removed segment, the output segments holding copies of its records retired during its compaction:
    /// a removal that hid a record of the removed segment hides its copy there.
    var copiesOfRetired: [UInt32: Set<UInt32>] = [:]
    /// Records replay skipped because they could not be decoded (only when opened with `skipUndecodable`).
    package private(set) var skippedRecords = 0

    private init(log: SegmentLog) { self.log = log }

    /// The log settings the cache uses: 16 KiB frames and 2 MiB segments, as the Firestore cache's (16 KiB
    /// frames compress the Firestore cache's documents better than SegmentLog's 8 KiB; not measured here), so
    /// compaction works in small pieces. The log itself never syncs on commit (`.none`): ``commit(_:durable:)``
    /// syncs the durable commits, and a deferred one becomes durable with the next sync (a durable commit, a
    /// compaction, or closing).
    package static var defaultLogConfiguration: SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.frameTargetSize = 16 << 10
        configuration.segmentTargetSize = 2 << 20
        configuration.durability = .none
        return configuration
    }

    /// Opens (or creates) the cache in `directory` and replays it. `skipUndecodable` skips records that cannot be
    /// decoded (counted in ``skippedRecords``) instead of failing; recovery uses it on salvaged logs.
    package static func open(at directory: String, configuration: SegmentLog.Configuration = DatabaseCache.defaultLogConfiguration,
                             skipUndecodable: Bool = false) throws(PersistenceError) -> DatabaseCache {
        let log: SegmentLog
        do { log = try SegmentLog.open(at: directory, configuration: configuration) } catch { throw wrap(error) }
        let cache = DatabaseCache(log: log)
        do throws(PersistenceError) {
            try cache.replay(skipUndecodable: skipUndecodable)
        } catch {
            try? log.close()
            throw error
        }
        return cache
    }

    package func close() {
        // An unfinished compaction removes its outputs while the log is still open.
        inProgress = nil
        try? log.close()
    }

    static func wrap(_ error: any Error) -> PersistenceError {
        if let error = error as? PersistenceError { return error }
        guard let storage = error as? StorageError else { return PersistenceError(.storage, "\(error)") }
        let message = storage.message + (storage.path.map { " [\($0)]" } ?? "")
        if storage.code == .locked { return PersistenceError(.locked, message) }
        // A directory that is not a log (`.notALog`) is not damage: it is never moved aside. (The log reports
        // segments holding frames without a MANIFEST as corruption.)
        return PersistenceError(.storage, message, isDamage: storage.code == .corruption)
    }

    // MARK: Replay

    private func replay(skipUndecodable: Bool) throws(PersistenceError) {
        // Each record is decoded from the bytes the log lends while scanning (nothing copied but its fields);
        // server nodes stay on disk until read: their key names the path. Segments are in log order, which is
        // LSN order unless a compaction placed its outputs before newer segments: then the records are sorted.
        var pending: [(record: Result<CacheRecord, PersistenceError>, lsn: UInt64, location: RecordLocation)] = []
        let statistics = log.statistics
        pending.reserveCapacity(Int(clamping: statistics.recordCount))
        var inOrder = true
        var idRecords = 0, savedQueries = 0
        do {
            try log.scan { view in
                let record = Result { () throws(PersistenceError) -> CacheRecord in
                    if view.kind == CacheRecord.Kind.serverOverwrite.rawValue {
                        return .serverOverwrite(try CacheRecord.serverPath(view.key), .empty)
                    }
                    return try CacheRecord.decode(kind: view.kind, key: view.key, value: view.value)
                }
                if let last = pending.last, last.lsn > view.lsn { inOrder = false }
                if view.kind > CacheRecord.Kind.serverPruned.rawValue { idRecords += 1 }
                if view.kind == CacheRecord.Kind.trackedQuerySaved.rawValue { savedQueries += 1 }
                pending.append((record, view.lsn, view.location))
            }
        } catch {
            throw DatabaseCache.wrap(error)
        }
        if !inOrder { pending.sort { $0.lsn < $1.lsn } }
        locations.reserveCapacity(idRecords)
        trackedQueries.reserveCapacity(savedQueries)
        for item in pending {
            let record: CacheRecord
            switch item.record {
            case .success(let decoded):
                record = decoded
            case .failure(let error):
                guard skipUndecodable && error.code == .corruptRecord else {
                    throw PersistenceError(error.code, "\(error.message) (record LSN \(item.lsn) at \(item.location))")
                }
                skippedRecords += 1
                retire(item.location)
                continue
            }
            integrate(record, lsn: item.lsn, location: item.location, nodeKnown: false)
        }
    }

    // MARK: Commits

    /// Commits `records` as one atomic batch and updates the views. A `durable` commit is on disk when this returns,
    /// with every deferred commit before it (one sync). A deferred one (`durable: false`) is written to the
    /// operating system at once, so a process crash keeps it, but a power loss before the next sync may lose it;
    /// what survives is always a prefix of the commits, whole batches only.
    package func commit(_ records: [CacheRecord], durable: Bool = true) throws(PersistenceError) {
        guard !records.isEmpty else { return }
        var batch = WriteBatch()
        for record in records {
            let (kind, key, value) = record.encoded()
            batch.append(kind: kind.rawValue, key: key, value: value)
        }
        let firstLSN = log.nextLSN
        let locations: [RecordLocation]
        do {
            locations = try log.commit(batch)
            if durable { try log.sync() }
        } catch {
            throw DatabaseCache.wrap(error)
        }
        for (index, record) in records.enumerated() {
            integrate(record, lsn: firstLSN + UInt64(index), location: locations[index], nodeKnown: true)
        }
    }

    /// Applies one record to the views; the same code runs for commits and for replay, so replay gives the state
    /// the commits left.
    private func integrate(_ record: CacheRecord, lsn: UInt64, location: RecordLocation, nodeKnown: Bool) {
        switch record {
        case .serverOverwrite(let path, let node):
            let shadows = retireServer(at: path)
            server.set(path, ServerEntry(location: location, isPruned: false, node: nodeKnown ? node : nil, shadows: shadows))
        case .serverPruned(let path):
            let entry = ServerEntry(location: location, isPruned: true, node: nil, shadows: retireServer(at: path))
            if isRedundantPrune(path, entry) { retire(location) } else { server.set(path, entry) }
        case .trackedQuerySaved(let id, let query, let isComplete, let isActive):
            _ = supersede(.query(id), with: location)
            if let old = trackedQueries[id], old.query.path != query.path { removeFromPathIndex(old) }
            trackedQueries[id] = TrackedQuery(id: id, query: query, lastUse: lsn, isComplete: isComplete, isActive: isActive)
            var ids = queriesByPath.value(at: query.path) ?? []
            ids.insert(id)
            queriesByPath.set(query.path, ids)
        case .trackedQueryRemoved(let id):
            var shadows = supersede(.query(id), with: nil)
            shadows.formUnion(supersede(.keys(id), with: nil))
            if let old = trackedQueries.removeValue(forKey: id) { removeFromPathIndex(old) }
            trackedKeys[id] = nil
            bury(.query(id), location, shadows)
        case .trackedKeysChanged(let id, let keys):
            _ = supersede(.keys(id), with: location)
            trackedKeys[id] = keys
        case .userWriteAdded(let write):
            _ = supersede(.write(write.id), with: location)
            writes[write.id] = write
        case .userWriteRemoved(let id):
            let shadows = supersede(.write(id), with: nil)
            writes[id] = nil
            bury(.write(id), location, shadows)
        case .globals(let value):
            _ = supersede(.globals, with: location)
            session = value
        }
    }

    /// Retires the live records at and below `path`; returns what the new record at `path` hides.
    private func retireServer(at path: DatabasePath) -> Set<UInt32> {
        var shadows = Set<UInt32>()
        for (_, entry) in server.removeSubtree(path) {
            retire(entry.location)
            shadows.insert(entry.location.segment)
            shadows.formUnion(entry.shadows)
        }
        return onDisk(shadows)
    }

    /// A prune with no live data above it and nothing hidden on disk changes nothing.
    func isRedundantPrune(_ path: DatabasePath, _ entry: ServerEntry) -> Bool {
        entry.shadows.isEmpty && server.firstAbove(path, includingSelf: false, { !$1.isPruned }) == nil
    }

    /// Retires the live record of `key`; records `location` as its new live record (nil: none). Returns what a
    /// removal at `key` would hide. An earlier removal at `key` stays: it may hide records of other keys (a
    /// removed query's keys), so only the sweep after compaction retires it.
    private func supersede(_ key: CacheRecordKey, with location: RecordLocation?) -> Set<UInt32> {
        var shadows = Set<UInt32>()
        if let old = locations[key] {
            retire(old.location)
            shadows = old.shadows
            shadows.insert(old.location.segment)
        }
        shadows = onDisk(shadows)
        locations[key] = location.map { ($0, shadows) }
        return shadows
    }

    /// Keeps a removal live while it hides records on disk; retires it at once otherwise. A newer removal at the
    /// same key takes over what an older one hides.
    private func bury(_ key: CacheRecordKey, _ location: RecordLocation, _ shadows: Set<UInt32>) {
        var shadows = shadows
        if let older = tombstones.removeValue(forKey: key) {
            retire(older.location)
            shadows.formUnion(older.shadows)
        }
        shadows = onDisk(shadows)
        if shadows.isEmpty {
            retire(location)
        } else {
            tombstones[key] = Tombstone(location: location, shadows: shadows)
        }
    }

    private func removeFromPathIndex(_ query: TrackedQuery) {
        guard var ids = queriesByPath.value(at: query.query.path) else { return }
        ids.remove(query.id)
        queriesByPath.set(query.query.path, ids.isEmpty ? nil : ids)
    }

    // MARK: Reading server data

    /// The cached server data at `path`: the nearest record at or above it, with the records below it applied
    /// (pruned places are empty). Empty when nothing is cached.
    package func serverCache(at path: DatabasePath) throws(PersistenceError) -> Node {
        var node = Node.empty
        if let (above, entry) = server.nearestAbove(path), !entry.isPruned {
            node = try self.node(at: above, entry).child(DatabasePath.relative(from: above, to: path)!)
        }
        for (relative, entry) in server.descendants(of: path) {
            node = node.updateChild(relative, entry.isPruned ? .empty : try self.node(at: path.child(relative), entry))
        }
        return node
    }

    /// The cached children `keys` of `path`.
    package func serverCache(forKeys keys: Set<String>, at path: DatabasePath) throws(PersistenceError) -> Node {
        var node = Node.empty
        for key in keys { node = node.updateImmediateChild(key, try serverCache(at: path.child(key))) }
        return node
    }

    /// Whether any server data is cached at, above or below `path`.
    package func hasServerData(at path: DatabasePath) -> Bool {
        if let (_, entry) = server.nearestAbove(path), !entry.isPruned { return true }
        return server.descendants(of: path).contains { !$0.1.isPruned }
    }

    private func node(at path: DatabasePath, _ entry: ServerEntry) throws(PersistenceError) -> Node {
        if let node = entry.node { return node }
        let stored: Record
        do { stored = try log.read(entry.location) } catch { throw DatabaseCache.wrap(error) }
        guard case .serverOverwrite(let storedPath, let node) = try CacheRecord.decode(kind: stored.kind, key: stored.key, value: stored.value),
              storedPath == path else {
            throw PersistenceError(.corruptRecord, "the record at \(entry.location) is not the server data at \(path)")
        }
        var cached = entry
        cached.node = node
        server.set(path, cached)
        return node
    }
}
