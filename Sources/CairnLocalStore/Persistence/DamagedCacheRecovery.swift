import CairnLogging
import Foundation
import SegmentLog

/// Opening a persistent cache that may be damaged, so that damage never leaves an app stuck. Damage is what
/// the log reports as `.corruption` (a damaged MANIFEST, a sealed segment that is missing, short or garbage, a
/// damaged frame met by replay), and a MANIFEST that is missing or overwritten (not a manifest at all) while
/// segment files holding frames remain.
///
/// With `recover: true` the damaged directory is renamed to a private sibling `<dir>.damaged-<UTC time>` and
/// kept for inspection, every intact record is salvaged from it into a fresh cache at the original path
/// (``CacheSalvage``, whole batches only, so the outbox keeps every pending batch that is intact), and a
/// ``CacheRecoveryRecord`` is written beside the log. When nothing can be salvaged the fresh cache starts
/// empty. With `recover: false` nothing in the directory changes and the open fails with
/// ``LocalStoreError`` `.dataLoss`, naming the damage and how to recover it by hand.
///
/// A cache locked by another process is not damage: that error is thrown unchanged, as by ``LocalStore/open(at:configuration:)``.
///
/// ```swift
/// let opened = try DamagedCacheRecovery.open(at: "/var/lib/app/cache", recover: true)
/// if let record = opened.recovery { log(record.summary) }
/// let store = opened.store
/// ```
package enum DamagedCacheRecovery {
    /// Opens the cache in `directory`, recovering from damage or failing on it.
    package static func open(
        at directory: String, recover: Bool, configuration: SegmentLog.Configuration = LocalStore.defaultLogConfiguration,
        syncing: CacheSyncing = .withEachAppend
    ) throws -> (store: LocalStore, recovery: CacheRecoveryRecord?) {
        let damage: String
        if let missing = manifestDamage(in: directory) {
            damage = missing
        } else {
            do {
                return (try LocalStore.open(at: directory, configuration: configuration, syncing: syncing), nil)
            } catch let error as LocalStoreError where error.storage?.code == .corruption {
                damage = error.storage.map { $0.message + ($0.path.map { " [\($0)]" } ?? "") } ?? error.message
            } catch let error as LocalStoreError {
                guard let storage = error.storage, let overwritten = manifestDamage(in: directory, error: storage) else {
                    throw error
                }
                damage = overwritten
            }
        }
        guard recover else {
            throw LocalStoreError(
                .dataLoss,
                "\(directory): \(damage). Nothing in the directory was changed. Run `cairn verify \(directory)` for a full "
                    + "report and `cairn salvage \(directory) --output NEW` to copy every intact record (pending "
                    + "writes included) into a new directory, then put NEW in its place; or delete the directory to "
                    + "start empty; or let Cairn recover it by itself (PersistentCacheSettings onDamage: .recover, the default).")
        }
        return try recoverDamaged(directory, damage: damage, configuration: configuration, syncing: syncing)
    }

    /// Moves the damaged directory aside, salvages it into a fresh cache at `directory` and opens that.
    private static func recoverDamaged(
        _ directory: String, damage: String, configuration: SegmentLog.Configuration, syncing: CacheSyncing
    ) throws -> (store: LocalStore, recovery: CacheRecoveryRecord?) {
        if let holder = SegmentLog.lockHolder(at: directory) {
            throw LocalStoreError(
                .storage, "the cache is in use by \(holder)",
                storage: StorageError(.locked, "the cache is in use by \(holder)", path: directory))
        }
        let now = Date()
        let aside = try moveAside(directory, at: now)
        var record = CacheRecoveryRecord(
            recoveredAt: now, damage: damage, damagedCopy: aside, recordsKept: 0, damagedRanges: [],
            recordsOfUnfinishedBatches: 0, pendingBatchesKept: 0, salvageFailure: nil)
        var store: LocalStore
        do {
            let salvage = try CacheSalvage.salvage(from: aside, to: directory)
            if let problem = salvage.replayProblem {
                throw LocalStoreError.dataLoss("the salvaged cache cannot be replayed: \(problem)")
            }
            store = try LocalStore.open(at: directory, configuration: configuration, syncing: syncing)
            record.recordsKept = salvage.report.recordsKept
            record.damagedRanges = salvage.report.damage.map(\.description)
            record.recordsOfUnfinishedBatches = salvage.report.recordsOfUnfinishedBatches
        } catch {
            record.salvageFailure = "\(error)"
            try? FileManager.default.removeItem(atPath: directory)
            // Opening creates the directory afresh, 0700 (PosixFileSystem).
            store = try LocalStore.open(at: directory, configuration: configuration, syncing: syncing)
        }
        record.pendingBatchesKept = store.mutationQueue.usersWithPendingBatches.reduce(0) {
            $0 + store.mutationQueue.queue(of: $1).count
        }
        do {
            try record.write(in: directory)
        } catch {
            try? store.close()
            throw error
        }
        CairnLogger.firestoreLocalStore.debug("the cache at \(directory) was \(record.summary)")
        return (store, record)
    }

    /// The damage of a log whose MANIFEST is missing (no `error`) or that the log rejects as no manifest at all
    /// (`error` `.notALog` for the MANIFEST: zeroed, overwritten) while segment files hold frames; nil otherwise.
    /// Also used by ``CacheInspector``, so that `cairn verify` reports such a cache as damaged.
    static func manifestDamage(in directory: String, error: StorageError? = nil) -> String? {
        if let error {
            guard error.code == .notALog, error.path?.hasSuffix("/MANIFEST") == true, segmentsWithFrames(in: directory) != nil
            else { return nil }
            return error.message + (error.path.map { " [\($0)]" } ?? "")
        }
        guard !FileManager.default.fileExists(atPath: directory + "/MANIFEST"),
              let segments = segmentsWithFrames(in: directory)
        else { return nil }
        return "MANIFEST is missing but \(segments.count) segment file(s) hold frames (\(segments.joined(separator: ", ")))"
    }

    /// The segment files holding more than their 28-byte header (FORMAT.md), by name, when the directory holds
    /// nothing but a log's files and at least one such segment; nil otherwise (an empty or new cache, or a
    /// directory that is not a cache, which the log judges itself). Checked before opening a directory without
    /// MANIFEST, so that the log does not start clearing it as a new log.
    private static func segmentsWithFrames(in directory: String) -> [String]? {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: directory) else { return nil }
        let bookkeeping: Set<String> = [
            "LOCK", "MANIFEST", "MANIFEST.tmp", CacheRecoveryRecord.fileName, CacheRecoveryRecord.temporaryFileName,
        ]
        guard names.allSatisfy({ bookkeeping.contains($0) || isSegmentFileName($0) }) else { return nil }
        let withFrames = names.filter(isSegmentFileName).filter { name in
            let attributes = try? files.attributesOfItem(atPath: directory + "/" + name)
            return ((attributes?[.size] as? NSNumber)?.intValue ?? 0) > 28
        }
        return withFrames.isEmpty ? nil : withFrames.sorted()
    }

    /// `000000000007.seg`: twelve digits and `.seg` (FORMAT.md).
    private static func isSegmentFileName(_ name: String) -> Bool {
        name.utf8.count == 16 && name.hasSuffix(".seg") && name.utf8.prefix(12).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Renames `directory` to a private sibling `<directory>.damaged-<UTC time>` (with `-2`, `-3`, ... when
    /// that exists) and returns its path.
    private static func moveAside(_ directory: String, at time: Date) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = directory + ".damaged-" + formatter.string(from: time)
        var aside = base
        var attempt = 1
        while FileManager.default.fileExists(atPath: aside) {
            attempt += 1
            aside = "\(base)-\(attempt)"
        }
        guard rename(directory, aside) == 0 else {
            let code = errno
            throw LocalStoreError(
                .storage, "cannot move the damaged cache \(directory) aside to \(aside) (errno \(code))",
                storage: StorageError(.io, "cannot move the damaged cache aside", path: directory, errno: code))
        }
        try makePrivate(aside)
        return aside
    }

    private static func makePrivate(_ path: String) throws {
        do {
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
        } catch {
            throw LocalStoreError(.storage, "cannot make \(path) private: \(error.localizedDescription)")
        }
    }
}
