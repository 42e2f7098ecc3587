import CairnModel
import SegmentLog

/// A read-only look into a persistent cache directory, for tools (`cairn`) and support: what the log holds,
/// decoded (``forEachRecord(matching:_:)``), a report of the cache (``report(threshold:)``), per-collection
/// statistics (``statistics(threshold:)``), the outbox (``outbox()``), and a full check (``verify()``).
/// The commands of `cairn` only format what it returns.
///
/// Opening never changes a byte: the log is opened read-only and the cache's views are rebuilt by replay,
/// which only reads. A directory that a running app holds is refused (``InspectionError/Code/locked``). When
/// replay fails (damage, an event this build cannot decode) the inspector still opens, so `dump` and `verify`
/// can show what is there; the reports that need the views then throw, naming the replay's problem.
///
/// ```swift
/// let inspector = try CacheInspector.open(at: "/var/lib/app/cache")
/// defer { inspector.close() }
/// let report = try inspector.report(threshold: 100 << 20)
/// print(report.documents.found, report.outbox.pendingBatches, report.lru.bytesOnDisk)
/// ```
package final class CacheInspector {
    package let directory: String
    let log: SegmentLog
    /// The replayed cache, nil when replay failed (see ``replayProblem``).
    let store: LocalStore?
    /// Why replaying the cache failed, nil when it succeeded.
    package let replayProblem: String?
    /// The frame-level inspection, made once on first use (``logInspection()``).
    private var inspectionCache: LogInspection?
    /// The index report, made once on first use (``indexReport()`` backfills the in-memory indexes).
    var indexReportCache: IndexReport?

    private init(directory: String, log: SegmentLog, store: LocalStore?, replayProblem: String?) {
        self.directory = directory
        self.log = log
        self.store = store
        self.replayProblem = replayProblem
    }

    /// Opens the cache in `directory` read-only.
    ///
    /// - Throws: ``InspectionError`` `.locked` when an app holds the directory, `.notACache` when it holds no
    ///   cache, `.corruption` when the manifest or a segment header is damaged (also a MANIFEST that is missing
    ///   or overwritten while segment files hold frames), `.newerFormat`, `.io`.
    package static func open(at directory: String) throws -> CacheInspector {
        do {
            let store = try LocalStore.openReadOnly(at: directory)
            return CacheInspector(directory: directory, log: store.persistentLog!, store: store, replayProblem: nil)
        } catch let error as LocalStoreError {
            if let storage = error.storage, storage.code == .notALog,
               let damage = DamagedCacheRecovery.manifestDamage(in: directory)
                   ?? DamagedCacheRecovery.manifestDamage(in: directory, error: storage) {
                throw InspectionError(
                    .corruption, "\(damage); `cairn salvage \(directory) --output NEW` copies every intact record "
                        + "into a new directory")
            }
            let fatal: [StorageError.Code] = [.notALog, .locked, .formatVersion, .io]
            if let storage = error.storage, fatal.contains(storage.code) {
                throw InspectionError.wrap(storage, directory: directory)
            }
            // Replay failed: open the log alone, so what is intact can still be read.
            var configuration = LocalStore.defaultLogConfiguration
            configuration.readOnly = true
            do {
                let log = try SegmentLog.open(at: directory, configuration: configuration)
                var problem = error.storage.map { "\($0.message)" + ($0.path.map { " [\($0)]" } ?? "") } ?? error.message
                if error.storage?.code == .corruption {
                    problem += "; `cairn salvage \(directory) --output NEW` does that into a new directory"
                }
                return CacheInspector(directory: directory, log: log, store: nil, replayProblem: problem)
            } catch {
                throw InspectionError.wrap(error, directory: directory)
            }
        }
    }

    /// Releases the files. The inspector must not be used afterwards.
    package func close() {
        if let store { try? store.close() } else { try? log.close() }
    }

    /// The record of the last automatic recovery from damage (``DamagedCacheRecovery``): when, why, where the
    /// damaged copy is and what was kept; nil when the cache was never recovered.
    ///
    /// - Throws: ``InspectionError`` `.corruption` when the record exists but cannot be read.
    package func recovery() throws -> CacheRecoveryRecord? {
        do {
            return try CacheRecoveryRecord.read(in: directory)
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
    }

    /// The replayed cache, or an error naming why replay failed.
    func replayed() throws -> LocalStore {
        guard let store else {
            var foreign = Set<UInt8>()
            try? log.scan { if EventKind(rawValue: $0.kind) == nil { foreign.insert($0.kind) } }
            if !foreign.isEmpty {
                throw InspectionError(
                    .notACache, "\(directory) holds a log whose records are not Cairn cache events (record kinds "
                        + foreign.sorted().map(String.init).joined(separator: ", ") + ")")
            }
            throw InspectionError(
                .corruption,
                "the cache cannot be replayed: \(replayProblem ?? "unknown"); run `cairn verify \(directory)` for a full report")
        }
        return store
    }

    /// The log's frame-level inspection (one pass over every frame), made once.
    func logInspection() throws -> LogInspection {
        if let inspectionCache { return inspectionCache }
        do {
            let inspection = try SegmentLog.inspect(at: directory)
            inspectionCache = inspection
            return inspection
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
    }

    /// Calls `body` with every record `filter` selects, decoded, in log order.
    ///
    /// - Throws: ``InspectionError`` `.invalidArgument` for a segment that does not exist, `.corruption` at the
    ///   first damaged frame (the records before it have been delivered).
    package func forEachRecord(matching filter: RecordFilter = RecordFilter(), _ body: (DecodedRecord) throws -> Void) throws {
        do {
            try log.scan(matching: filter) { view in
                try body(DecodedRecord.decode(view, isRetired: store == nil ? nil : log.isRetired(view.location)))
            }
        } catch let error as InspectionError {
            throw error
        } catch let error as StorageError {
            throw InspectionError.wrap(error, directory: directory)
        }
    }

    /// The pending batches of every user, in batch order, with their writes.
    package func outbox() throws -> [OutboxBatch] {
        let store = try replayed()
        var batches: [OutboxBatch] = []
        for user in store.mutationQueue.usersWithPendingBatches {
            for entry in store.mutationQueue.queue(of: user) {
                let batch = try decodeBatch(entry, in: store)
                let location: RecordLocation? = if case .log(let location) = entry.reference { location } else { nil }
                batches.append(OutboxBatch(
                    batchID: entry.batchID, user: user, localWriteTime: batch.localWriteTime,
                    writes: batch.mutations.map(DecodedRecord.mutationJSON),
                    baseWrites: batch.baseMutations.map(DecodedRecord.mutationJSON), location: location))
            }
        }
        return batches.sorted { $0.batchID < $1.batchID }
    }

    func decodeBatch(_ entry: QueuedBatch, in store: LocalStore) throws -> MutationBatch {
        do {
            return try store.events.withValue(of: entry.reference) {
                try MutationBatchEvent.decodeAdded($0, batchID: entry.batchID).batch
            }
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
    }
}

/// A pending batch of the outbox (``CacheInspector/outbox()``).
package struct OutboxBatch: Sendable {
    package var batchID: Int
    /// The user who wrote it; empty for the unauthenticated user.
    package var user: String
    package var localWriteTime: Timestamp
    /// The writes, as `dump` shows them (`{"op":"set","key":...}`).
    package var writes: [InspectionJSON]
    /// The base writes pinning increments to the value they started from.
    package var baseWrites: [InspectionJSON]
    /// Where its `mutationBatchAdded` record is.
    package var location: RecordLocation?
}
