import CairnModel
import SegmentLog

/// Everything `cairn inspect` shows about a cache: the log's format and segments, the records by event, the
/// documents by collection, the outbox, the targets, the globals, the field indexes and the LRU threshold
/// against the bytes on disk (``CacheInspector/report(threshold:)``).
///
/// ```swift
/// let report = try inspector.report(threshold: 100 << 20)
/// print(report.formatVersion, report.statistics.bytesOnDisk, report.outbox.oldest?.batchID ?? 0)
/// ```
package struct CacheReport: Sendable {
    /// The MANIFEST's format version.
    package var formatVersion: UInt32
    /// Segments, collections, threshold.
    package var statistics: CacheStatistics
    /// Records per event kind, ascending by kind.
    package var kinds: [KindReport]
    package var foundDocuments: Int
    package var missingDocuments: Int
    package var unknownDocuments: Int
    package var outbox: OutboxSummary
    /// Saved targets, by id.
    package var targets: [TargetReport]
    package var globals: GlobalsReport
    /// The field indexes, the auto-creation switch and the backfill work (``CacheInspector/indexReport()``).
    package var indexes: IndexReport
    /// What LRU garbage collection could remove now: targets (all inactive offline) and orphaned documents
    /// (in no target, under no pending write).
    package var collectableTargets: Int
    package var orphanedDocuments: Int
    /// A torn or unfinished write at the end of the active segment, which the next writer cuts; nil when none.
    package var unfinishedTail: String?
    /// Damage in the active segment followed by durable commits (corruption, not a torn write; FORMAT.md §8.3),
    /// one description per damaged range; empty when none. A writer refuses to open such a log.
    package var activeSegmentDamage: [String]
    /// The last automatic recovery from damage (``CacheInspector/recovery``); nil when there was none.
    package var recovery: CacheRecoveryRecord?
}

/// The records of one event kind.
package struct KindReport: Sendable, Equatable, Codable {
    package var kind: UInt8
    /// The event's name, or `unknown`.
    package var event: String
    package var records: Int
    package var recordBytes: UInt64
    /// Records that replay did not supersede.
    package var liveRecords: Int
    package var liveRecordBytes: UInt64
}

/// The outbox at a glance.
package struct OutboxSummary: Sendable {
    package var pendingBatches: Int
    package var writes: Int
    /// Pending batches per user (the empty string is the unauthenticated user), by user.
    package var batchesPerUser: [String: Int]
    /// The oldest pending batch, the next the write pipeline sends.
    package var oldest: OutboxBatch?
}

/// A saved target.
package struct TargetReport: Sendable, Equatable, Codable {
    package var targetID: Int32
    /// The canonical id of its query.
    package var query: String
    package var purpose: String
    /// Its LRU sequence number (the LSN of its latest save).
    package var sequence: UInt64
    package var snapshotVersion: String
    package var resumeTokenBytes: Int
    /// Documents in its result set.
    package var documents: Int
}

/// The cache-wide globals.
package struct GlobalsReport: Sendable, Equatable, Codable {
    package var lastRemoteSnapshotVersion: String
    package var highestTargetID: Int32
    package var sessionTokenBytes: Int
    /// Users with a saved write-stream token.
    package var writeStreamUsers: [String]
}

extension CacheInspector {
    /// The whole report. `threshold` is the app's cache-size threshold (the cache does not store it; Firebase's
    /// default is 100 MB).
    package func report(threshold: Int64) throws -> CacheReport {
        let store = try replayed()
        var kinds: [UInt8: KindReport] = [:]
        do {
            try log.scan { view in
                var kind = kinds[view.kind]
                    ?? KindReport(kind: view.kind, event: DecodedRecord.eventNames[view.kind] ?? "unknown", records: 0,
                                  recordBytes: 0, liveRecords: 0, liveRecordBytes: 0)
                kind.records += 1
                kind.recordBytes += UInt64(view.location.size)
                if !log.isRetired(view.location) {
                    kind.liveRecords += 1
                    kind.liveRecordBytes += UInt64(view.location.size)
                }
                kinds[view.kind] = kind
            }
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
        let pinned = Set(try outbox().flatMap { batch in batch.writes.compactMap(Self.writtenKey) })
        var states: [Document.State: Int] = [:]
        var orphans = 0
        store.remoteDocuments.forEachEntry { key, entry in
            states[entry.state, default: 0] += 1
            if !pinned.contains(key.description) && store.targetIDs(containing: key).isEmpty { orphans += 1 }
        }
        return CacheReport(
            formatVersion: try logInspection().formatVersion, statistics: try statistics(threshold: threshold),
            kinds: kinds.values.sorted { $0.kind < $1.kind },
            foundDocuments: states[.found] ?? 0, missingDocuments: states[.noDocument] ?? 0,
            unknownDocuments: states[.unknown] ?? 0,
            outbox: try outboxSummary(), targets: targetReports(store), globals: globalsReport(store),
            indexes: try indexReport(),
            collectableTargets: store.targets.saved.count { store.targets.active[$0.key] == nil },
            orphanedDocuments: orphans,
            unfinishedTail: log.recoveryReport.truncatedBytes == 0 ? nil
                : "\(log.recoveryReport.truncatedBytes) bytes (\(log.recoveryReport.tailProblem ?? "unfinished write"))",
            activeSegmentDamage: log.recoveryReport.activeSegmentDamage.map(\.description),
            recovery: try recovery())
    }

    private static func writtenKey(_ write: InspectionJSON) -> String? {
        guard case .object(let members) = write, case .string(let key)? = members.first(where: { $0.0 == "key" })?.1 else { return nil }
        return key
    }

    private func outboxSummary() throws -> OutboxSummary {
        let batches = try outbox()
        return OutboxSummary(
            pendingBatches: batches.count, writes: batches.reduce(0) { $0 + $1.writes.count },
            batchesPerUser: batches.reduce(into: [:]) { $0[$1.user, default: 0] += 1 }, oldest: batches.first)
    }

    private func targetReports(_ store: LocalStore) -> [TargetReport] {
        store.targets.saved.values.map(\.data).sorted { $0.targetID < $1.targetID }.map { data in
            TargetReport(
                targetID: data.targetID, query: data.target.canonicalID, purpose: "\(data.purpose)",
                sequence: data.sequenceNumber, snapshotVersion: InspectionJSON.formatTimestamp(data.snapshotVersion),
                resumeTokenBytes: data.resumeToken.count, documents: store.remoteKeys(forTarget: data.targetID).count)
        }
    }

    private func globalsReport(_ store: LocalStore) -> GlobalsReport {
        let globals = store.targets.globals
        return GlobalsReport(
            lastRemoteSnapshotVersion: InspectionJSON.formatTimestamp(globals.lastRemoteSnapshotVersion),
            highestTargetID: globals.highestTargetID, sessionTokenBytes: globals.sessionToken.count,
            writeStreamUsers: globals.writeStreamTokens.keys.sorted())
    }
}
