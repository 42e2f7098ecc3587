import SegmentLog

/// How tools (`cairn`) tell a Realtime Database cache directory from a Firestore cache: both are segment logs and
/// their record kinds overlap (1 to 8), but their `globals` records (kind 8, key `globals`) differ. The Realtime
/// Database's is 9 bytes, format version 1 and the session number, and it is always live: every session of the
/// app writes one (``PersistenceManager``), and only a newer one supersedes it. Firestore's is at least 19 bytes
/// (a version byte, a 12-byte snapshot version, a target id, a session token and a count), so it never decodes as
/// a ``CacheRecord``. Detection opens the log read-only and changes nothing.
///
/// ```swift
/// if DatabaseCacheDetection.isDatabaseCache(at: directory) { ... }
/// ```
package enum DatabaseCacheDetection {
    /// Whether `directory` holds a segment log with a Realtime Database `globals` record.
    package static func isDatabaseCache(at directory: String) -> Bool {
        var configuration = DatabaseCache.defaultLogConfiguration
        configuration.readOnly = true
        guard let log = try? SegmentLog.open(at: directory, configuration: configuration) else { return false }
        defer { try? log.close() }
        let filter = RecordFilter(kinds: [CacheRecord.Kind.globals.rawValue], keyPrefix: CacheRecord.globalsKey)
        var found = false
        try? log.scan(matching: filter) { view in
            if view.keyBytes == CacheRecord.globalsKey,
               case .globals = try? CacheRecord.decode(kind: view.kind, key: view.keyBytes, value: view.valueBytes) {
                found = true
            }
        }
        return found
    }
}
