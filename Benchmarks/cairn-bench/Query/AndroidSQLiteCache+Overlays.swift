// The baseline's overlay reads (Android's `SQLiteDocumentOverlayCache`): by document, by collection and by
// collection group, each newer than a batch id. `overlay_mutation` holds a one-mutation batch in Cairn's
// mutation codec.

import CairnModel
import Foundation
import GRDB

extension AndroidSQLiteCache {
    /// `getOverlays(keys)`: per collection, `document_id IN (...)`.
    func overlays(for keys: [DocumentKey], _ db: Database) throws -> [DocumentKey: Overlay] {
        var overlays: [DocumentKey: Overlay] = [:]
        for (collection, inCollection) in Dictionary(grouping: keys, by: \.collectionPath) {
            var start = 0
            while start < inCollection.count {
                let chunk = inCollection[start..<min(start + 900, inCollection.count)]
                let sql = """
                    SELECT overlay_mutation, largest_batch_id FROM document_overlays
                      WHERE uid = ? AND collection_path = ? AND document_id IN (
                    """ + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")"
                let arguments: [any DatabaseValueConvertible] =
                    [uid, AndroidSchema.encodedPath(collection)] + chunk.map(\.documentID)
                try readOverlays(db.cachedStatement(sql: sql), StatementArguments(arguments), into: &overlays)
                start += 900
            }
        }
        return overlays
    }

    /// `getOverlays(collection, sinceBatchId)`, or `getOverlays(collectionGroup, sinceBatchId, count)` for a
    /// collection group query.
    func collectionOverlays(_ query: Query, sinceBatch: Int, _ db: Database) throws -> [DocumentKey: Overlay] {
        var overlays: [DocumentKey: Overlay] = [:]
        if let group = query.collectionGroup {
            try readOverlays(
                db.cachedStatement(sql: """
                    SELECT overlay_mutation, largest_batch_id FROM document_overlays
                      WHERE uid = ? AND collection_group = ? AND largest_batch_id > ?
                    """),
                [uid, group, sinceBatch], into: &overlays)
            return overlays.filter { query.matchesPathAndCollectionGroup($0.key) }
        }
        try readOverlays(
            db.cachedStatement(sql: """
                SELECT overlay_mutation, largest_batch_id FROM document_overlays
                  WHERE uid = ? AND collection_path = ? AND largest_batch_id > ?
                """),
            [uid, AndroidSchema.encodedPath(query.path), sinceBatch], into: &overlays)
        return overlays
    }

    private func readOverlays(
        _ statement: Statement, _ arguments: StatementArguments, into overlays: inout [DocumentKey: Overlay]
    ) throws {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() {
            let bytes: Data = row[0]
            let batch = try MutationCodec.decode([UInt8](bytes))
            guard let mutation = batch.mutations.first else { throw BenchError("sqlite: an empty overlay row") }
            overlays[mutation.key] = Overlay(largestBatchID: row[1], mutation: mutation)
        }
    }
}
