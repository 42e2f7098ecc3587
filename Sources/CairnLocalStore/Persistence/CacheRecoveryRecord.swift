import Foundation

/// What an automatic recovery of a damaged cache did (``DamagedCacheRecovery``): when, why, where the damaged
/// copy was kept, and what the fresh cache kept. It is stored beside the log in the private file `RECOVERED`
/// (JSON, mode 0600), so it survives restarts and compaction, and `cairn inspect` shows it
/// (``CacheInspector/recovery``). A later recovery replaces it.
///
/// ```swift
/// if let record = try CacheRecoveryRecord.read(in: "/var/lib/app/cache") {
///     print(record.summary)   // "recovered at 2026-11-25T18:40:00Z from damage: ...; salvage kept 812 record(s) ..."
/// }
/// ```
package struct CacheRecoveryRecord: Sendable, Equatable, Codable {
    /// The file in the cache directory that holds the record.
    package static let fileName = "RECOVERED"

    /// When the damage was found and the cache recovered.
    package var recoveredAt: Date
    /// The damage opening the cache reported.
    package var damage: String
    /// The damaged directory, renamed and kept for inspection (`cairn verify`, `cairn salvage`).
    package var damagedCopy: String
    /// Records salvaged from intact frames into the fresh cache.
    package var recordsKept: UInt64
    /// Damaged byte ranges salvage skipped, as `cairn salvage` prints them.
    package var damagedRanges: [String]
    /// Intact records dropped with batches whose commit frame was lost (salvage keeps whole batches only).
    package var recordsOfUnfinishedBatches: Int
    /// Pending write batches (the outbox) in the fresh cache, all users.
    package var pendingBatchesKept: Int
    /// Why salvage failed or its result could not be opened, so the fresh cache started empty; nil when it worked.
    package var salvageFailure: String?

    /// One line for logs and `cairn inspect` ("this cache was " + summary): when, why, where the damaged copy
    /// is, and what was kept and lost.
    package var summary: String {
        let when = ISO8601DateFormatter().string(from: recoveredAt)
        let start = "recovered at \(when) from damage: \(damage); the damaged copy is kept in \(damagedCopy); "
        guard let salvageFailure else {
            return start + "salvage kept \(recordsKept) record(s) and \(pendingBatchesKept) pending write batch(es), lost "
                + "\(damagedRanges.count) damaged range(s) and \(recordsOfUnfinishedBatches) record(s) of unfinished batches"
        }
        return start + "salvage failed (\(salvageFailure)), so the cache started empty"
    }

    /// The record in `directory`, nil when the cache was never recovered.
    ///
    /// - Throws: ``LocalStoreError`` `.dataLoss` when the file exists but cannot be read as a record.
    package static func read(in directory: String) throws -> CacheRecoveryRecord? {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(CacheRecoveryRecord.self, from: data)
        } catch {
            throw LocalStoreError.dataLoss("\(path) cannot be read as a recovery record: \(error)")
        }
    }

    /// The name of the file a write goes to before it replaces ``fileName``.
    static let temporaryFileName = fileName + ".tmp"

    /// Writes the record into `directory` (a private file, replaced atomically).
    func write(in directory: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let temporary = directory + "/" + Self.temporaryFileName
        do {
            let data = try encoder.encode(self)
            guard FileManager.default.createFile(
                atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
            else {
                throw LocalStoreError(.storage, "cannot create \(temporary)")
            }
            guard rename(temporary, directory + "/" + Self.fileName) == 0 else {
                throw LocalStoreError(.storage, "cannot rename \(temporary) to \(Self.fileName) (errno \(errno))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw LocalStoreError.wrap(error)
        }
    }
}
