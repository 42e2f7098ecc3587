// The baseline's LRU garbage collection, one `LruGarbageCollector.collect` pass per round (semantics notes
// §3.3): count the sequence numbers of targets and orphaned documents, find the n-th smallest of the lowest
// 10% (at most 1,000), then delete the orphaned documents at or below it, 100 at a time, skipping those with
// pending writes; deleting a document also deletes its index entries (`updateIndexEntries`).
//
// The size measure: Android uses `page_count × page_size`, which never shrinks without `VACUUM` (Android
// never runs one), so a real Android cache over its threshold stays "over" forever. The baseline is given the
// live size instead, `(page_count − freelist_count) × page_size`, so that it can reach the threshold at all.

import CairnModel
import Foundation
import GRDB

extension AndroidSQLiteCache {
    func cacheBytes() throws -> Int64 {
        try queue.read { db in
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            return (pages - free) * size
        }
    }

    func collectGarbageRound(threshold: Int64) throws -> Bool {
        guard try cacheBytes() > threshold else { return false }
        return try queue.write { db in
            sequenceNumber += 1
            let orphans = """
                SELECT path, sequence_number FROM target_documents GROUP BY path HAVING COUNT(*) = 1 AND target_id = 0
                """
            let targets = try Int.fetchOne(db, sql: "SELECT target_count FROM target_globals") ?? 0
            let orphanCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(orphans))") ?? 0
            let count = min((targets + orphanCount) * 10 / 100, 1000)
            guard count > 0 else { return false }
            var sequences: [Int] = []
            let cursor = try Int.fetchCursor(db, sql: "SELECT sequence_number FROM (\(orphans))")
            while let sequence = try cursor.next() { sequences.append(sequence) }
            let upperBound = nthSmallestSequenceNumber(sequences, count: count)
            var removed = 0
            var lastPath = ""
            while true {
                let page = try String.fetchAll(
                    db.cachedStatement(sql: """
                        SELECT path FROM target_documents GROUP BY path
                          HAVING COUNT(*) = 1 AND target_id = 0 AND sequence_number <= ? AND path > ? ORDER BY path LIMIT 100
                        """),
                    arguments: [upperBound, lastPath])
                guard let last = page.last else { break }
                lastPath = last
                var doomed: [String] = []
                for path in page {
                    let pinned = try Bool.fetchOne(
                        db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM document_mutations WHERE path = ?)"),
                        arguments: [path]) ?? false
                    if !pinned { doomed.append(path) }
                }
                try remove(doomed, db)
                removed += doomed.count
            }
            return removed > 0
        }
    }

    /// Deletes documents, their sentinel rows and their index entries.
    private func remove(_ paths: [String], _ db: Database) throws {
        guard !paths.isEmpty else { return }
        let list = Array(repeating: "?", count: paths.count).joined(separator: ", ")
        try db.cachedStatement(sql: "DELETE FROM remote_documents WHERE path IN (\(list))")
            .execute(arguments: StatementArguments(paths))
        for path in paths {
            try db.cachedStatement(sql: "DELETE FROM target_documents WHERE path = ? AND target_id = 0")
                .execute(arguments: [path])
            let key = try AndroidSchema.decodedKey(path).path.canonicalString
            for (id, _) in indexes {
                try db.cachedStatement(sql: "DELETE FROM index_entries WHERE index_id = ? AND uid = ? AND document_key = ?")
                    .execute(arguments: [id, uid, key])
            }
        }
    }
}
