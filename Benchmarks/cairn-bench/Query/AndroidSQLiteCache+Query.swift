// The baseline's query path, following Firebase Android's `QueryEngine` / `LocalDocumentsView` /
// `SQLiteRemoteDocumentCache` / `SQLiteIndexManager` (semantics notes §4.4, §4.7):
// - index: when configured indexes serve the query (the same `IndexPlanner` rules as Android's
//   `TargetIndexMatcher`), read `index_entries` in the planned ranges (`ORDER BY directional_value,
//   document_key LIMIT n` when the index fully serves a limit query), fetch those documents with
//   `path IN (...)` and their overlays, then `appendRemainingResults`: the collection's documents read after
//   the index's offset (none here, but Android runs the query) and its overlays;
// - scan: the collection's overlays, then `getAll` — a `path` range scan with Android's SQL (per parent
//   collection, joined with UNION, for a collection group found through `collection_parents`) — decoding
//   every row and keeping matches and overlaid documents.
// Either way the overlays are applied and the documents filtered, sorted and limited by the query.

import CairnModel
import Foundation
import GRDB

extension AndroidSQLiteCache {
    func execute(_ query: Query) throws -> [Document] {
        try queue.read { db in
            if let scans = indexScans(query) { return try executeUsingIndex(query, scans, db) }
            let collections = try collectionPaths(query, db)
            let overlays = try collectionOverlays(query, sinceBatch: -1, db)
            var documents = try getAll(collections, after: nil, db) { query.matches($0) || overlays[$0.key] != nil }
            apply(overlays, to: &documents)
            return query.results(from: documents.values)
        }
    }

    /// The index scans of the query, when every term of it has a serving index (Android's `IndexType` is
    /// then FULL or PARTIAL); nil for a scan.
    private func indexScans(_ query: Query) -> [IndexScan]? {
        guard !query.matchesAllDocuments, !indexes.isEmpty else { return nil }
        return IndexPlanner.plan(for: query, among: indexes.map(\.index))
    }

    private func executeUsingIndex(_ query: Query, _ scans: [IndexScan], _ db: Database) throws -> [Document] {
        // Android applies the limit in SQL only when one fully serving index answers the whole query.
        let sqlLimit: Int? =
            if scans.count == 1, query.limitType == .first, let limit = query.limit,
                let matcher = try? TargetIndexMatcher(scans[0].term), !matcher.isPartial(scans[0].index)
            { limit } else { nil }
        var keys: [String] = []
        var seen = Set<String>()
        for scan in scans {
            guard let id = indexes.first(where: { $0.index == scan.index })?.id else { continue }
            for range in scan.ranges {
                let bounds = try IndexColumns.split(range, scan, engine: "sqlite")
                let statement = try db.cachedStatement(sql: """
                    SELECT document_key FROM index_entries WHERE index_id = ? AND uid = ? AND array_value = ?
                      AND directional_value >= ? AND directional_value < ?
                      ORDER BY directional_value, document_key LIMIT ?
                    """)
                let rows = try String.fetchCursor(
                    statement, arguments: [id, uid, Data(bounds.array), Data(bounds.lower), Data(bounds.upper), sqlLimit ?? -1])
                while let key = try rows.next() {
                    if seen.insert(key).inserted { keys.append(key) }
                }
            }
        }
        let documentKeys = try keys.map { try DocumentKey(path: ResourcePath(parsing: $0)) }
        var documents = try remoteDocuments(documentKeys, db)
        apply(try overlays(for: documentKeys, db), to: &documents)
        // appendRemainingResults: documents changed after the index's offset, and the collection's overlays.
        let collections = try collectionPaths(query, db)
        let overlays = try collectionOverlays(query, sinceBatch: -1, db)
        var remaining = try getAll(collections, after: indexOffset, db) { query.matches($0) || overlays[$0.key] != nil }
        apply(overlays, to: &remaining)
        documents.merge(remaining) { _, new in new }
        return query.results(from: documents.values)
    }

    /// The collections a query reads: its own, or every `parent/group` of `collection_parents`.
    private func collectionPaths(_ query: Query, _ db: Database) throws -> [ResourcePath] {
        guard let group = query.collectionGroup else { return [query.path] }
        let parents = try String.fetchAll(
            db.cachedStatement(sql: "SELECT parent FROM collection_parents WHERE collection_id = ?"), arguments: [group])
        return try parents.map { try AndroidSchema.decodedKey($0).path.appending(group) }
            .filter { query.path.isPrefix(of: $0) }
    }

    /// `SQLiteRemoteDocumentCache.getAll(collections, offset, ...)`: Android's SQL, UNION over at most 100
    /// collections per statement; rows are decoded and kept when `keep` says so.
    func getAll(
        _ collections: [ResourcePath], after offset: (readTime: Timestamp, path: String)?, _ db: Database,
        keep: (Document) -> Bool
    ) throws -> [DocumentKey: Document] {
        let readTime = offset?.readTime ?? Timestamp(seconds: 0, nanoseconds: 0)
        let offsetPath = offset?.path ?? ""
        var documents: [DocumentKey: Document] = [:]
        var start = 0
        while start < collections.count {
            let chunk = collections[start..<min(start + 100, collections.count)]
            let one = """
                SELECT contents, read_time_seconds, read_time_nanos, path FROM remote_documents
                  WHERE path >= ? AND path < ? AND path_length = ? AND (document_type IS NULL OR document_type = ?)
                  AND (read_time_seconds > ? OR (read_time_seconds = ? AND read_time_nanos > ?)
                    OR (read_time_seconds = ? AND read_time_nanos = ? AND path > ?))
                """
            let sql = Array(repeating: one, count: chunk.count).joined(separator: " UNION ")
                + " ORDER BY read_time_seconds, read_time_nanos, path LIMIT ?"
            var arguments: [any DatabaseValueConvertible] = []
            for collection in chunk {
                let prefix = AndroidSchema.encodedPath(collection)
                let nanos = Int(readTime.nanoseconds)
                arguments += [
                    prefix, AndroidSchema.prefixSuccessor(prefix), collection.count + 1, AndroidSchema.foundType,
                    readTime.seconds, readTime.seconds, nanos, readTime.seconds, nanos, offsetPath,
                ]
            }
            arguments.append(Int.max)
            try decodeRows(db.cachedStatement(sql: sql), StatementArguments(arguments)) { document in
                if keep(document) { documents[document.key] = document }
            }
            start += 100
        }
        return documents
    }

    /// `getAll(keys)`: `path IN (...)`, at most 900 paths per statement (`SQLitePersistence.LongQuery`).
    func remoteDocuments(_ keys: [DocumentKey], _ db: Database) throws -> [DocumentKey: Document] {
        var documents: [DocumentKey: Document] = [:]
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + 900, keys.count)]
            let sql = "SELECT contents, read_time_seconds, read_time_nanos, path FROM remote_documents WHERE path IN ("
                + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")"
            try decodeRows(db.cachedStatement(sql: sql), StatementArguments(chunk.map { AndroidSchema.encodedPath($0.path) })) {
                documents[$0.key] = $0
            }
            start += 900
        }
        return documents
    }

    /// Decodes `contents, read_time_seconds, read_time_nanos, path` rows straight from SQLite's memory.
    private func decodeRows(_ statement: Statement, _ arguments: StatementArguments, _ body: (Document) -> Void) throws {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() {
            let readTime = Timestamp(seconds: row[1], nanoseconds: Int32(row[2] as Int))
            let path: String = row[3]
            let document = try row.withUnsafeData(atIndex: 0) { data -> Document in
                guard let data else { throw BenchError("sqlite: a remote_documents row has no contents") }
                return try data.withUnsafeBytes { try AndroidSchema.document(path, $0, readTime: readTime) }
            }
            body(document)
        }
    }

    /// Applies overlays to the documents they belong to (adding documents that exist only locally).
    func apply(_ overlays: [DocumentKey: Overlay], to documents: inout [DocumentKey: Document]) {
        for (key, overlay) in overlays {
            var document = documents[key]
            overlay.mutation.applyToLocalView(&document, previousMask: FieldMask(), localWriteTime: benchWriteTime)
            documents[key] = document
        }
    }
}
