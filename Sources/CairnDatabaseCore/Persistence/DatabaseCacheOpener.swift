import Foundation
import SegmentLog

/// Opening a database's cache directory so that the app always starts (`Database.isPersistenceEnabled`):
///
/// - another process (or another open in this one) owns the directory: one logged line, and this database keeps
///   its cache in memory for the session (Firebase logs and goes on too); the owner's cache is never touched;
/// - damage (what the log reports as corruption: a damaged frame or manifest, segments holding frames without a
///   MANIFEST; or a record that cannot be decoded): the directory is renamed to a private sibling
///   `<dir>.damaged-<UTC time>` and kept for inspection, every intact batch is salvaged into a fresh cache at the
///   original path (pending writes are records like any other, so the intact ones stay pending), undecodable
///   records are skipped, and one line says what happened; when nothing can be salvaged the cache starts empty;
/// - any other failure (a directory that cannot be created, I/O): one logged line, memory for the session.
///
/// ```swift
/// let persistence = DatabaseCacheOpener.open(at: directory, policy: CachePolicy(maxBytes: 10 << 20))   // nil: memory
/// ```
package enum DatabaseCacheOpener {
    package static func open(at directory: String, policy: CachePolicy,
                             configuration: SegmentLog.Configuration = DatabaseCache.defaultLogConfiguration) -> PersistenceManager? {
        do throws(PersistenceError) {
            return PersistenceManager(cache: try DatabaseCache.open(at: directory, configuration: configuration), policy: policy)
        } catch where error.code == .locked {
            DatabaseLog.always("the Realtime Database cache \(directory) is in use (\(error.message)); this database keeps its cache in memory for this session")
            return nil
        } catch where error.isDamage {
            return recover(directory, damage: error.message, policy: policy, configuration: configuration)
        } catch {
            DatabaseLog.always("the Realtime Database cache \(directory) cannot be opened (\(error)); this database keeps its cache in memory for this session")
            return nil
        }
    }

    private static func recover(_ directory: String, damage: String, policy: CachePolicy,
                                configuration: SegmentLog.Configuration) -> PersistenceManager? {
        let files = FileManager.default
        let aside: String
        do {
            aside = try moveAside(directory)
            try PosixFileSystem().createDirectory(at: directory)
            for name in try files.contentsOfDirectory(atPath: aside) where name != "LOCK" {
                try files.copyItem(atPath: aside + "/" + name, toPath: directory + "/" + name)
                try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/" + name)
            }
        } catch {
            DatabaseLog.always("the Realtime Database cache \(directory) is damaged (\(damage)) and cannot be moved aside (\(error)); this database keeps its cache in memory for this session")
            return nil
        }
        var summary: String
        var cache: DatabaseCache?
        do {
            let report = try SegmentLog.salvage(at: directory, configuration: configuration)
            let opened = try DatabaseCache.open(at: directory, configuration: configuration, skipUndecodable: true)
            cache = opened
            summary = "\(report.recordsKept) record(s) in intact batches were salvaged, \(opened.writes.count) pending write(s) among them"
            if opened.skippedRecords > 0 { summary += ", \(opened.skippedRecords) record(s) that could not be decoded were skipped" }
        } catch {
            try? files.removeItem(atPath: directory)
            summary = "nothing could be salvaged (\(error)); the cache starts empty"
        }
        do {
            let opened = try cache ?? DatabaseCache.open(at: directory, configuration: configuration)
            DatabaseLog.always("the Realtime Database cache \(directory) was damaged (\(damage)); it was moved to \(aside) and \(summary)")
            return PersistenceManager(cache: opened, policy: policy)
        } catch {
            DatabaseLog.always("the Realtime Database cache \(directory) was damaged (\(damage)) and moved to \(aside); a new cache cannot be opened (\(error)); this database keeps its cache in memory for this session")
            return nil
        }
    }

    /// Renames `directory` to `<directory>.damaged-<UTC time>` (`-2`, `-3`, ... when taken), private (0700).
    private static func moveAside(_ directory: String) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = directory + ".damaged-" + formatter.string(from: Date())
        var aside = base
        var attempt = 1
        while FileManager.default.fileExists(atPath: aside) {
            attempt += 1
            aside = "\(base)-\(attempt)"
        }
        try FileManager.default.moveItem(atPath: directory, toPath: aside)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: aside)
        return aside
    }
}
