// The SQLite baseline engine: a cache built and written the way Firebase's Android SDK does it (schema in
// AndroidSchema.swift, queries in AndroidSQLiteCache+Query.swift, LRU collection in
// AndroidSQLiteCache+GarbageCollection.swift). Loading writes what Android holds after receiving the
// documents: `remote_documents` rows, `collection_parents`, an LRU sentinel row per document in
// `target_documents` (each document its own sequence number, as if each came in its own remote event), and
// fully backfilled `index_entries` for the configured indexes.

import CairnModel
import Foundation
import GRDB

/// SQLite (GRDB `DatabaseQueue`, WAL) laid out as Firebase's Android SDK.
final class AndroidSQLiteEngine: QueryEngine {
    let name = "sqlite"
    let isPersistent = true
    /// Documents per load transaction.
    private let chunk = 5000
    var layout: String { "sqlite 1: Android schema version 18, \(chunk) documents per load transaction" }

    func load(_ corpus: QueryCorpus, into directory: String) throws {
        let queue = try AndroidSchema.open(directory, create: true)
        let indexes = try QueryCatalog.fieldIndexes()
        try queue.write { db in
            for (id, index) in indexes.enumerated() {
                try db.execute(
                    sql: "INSERT INTO index_configuration (index_id, collection_group, index_proto) VALUES (?, ?, ?)",
                    arguments: [id, index.collectionGroup, Data(index.canonicalID.utf8)])
            }
        }
        var start = 0
        while start < corpus.count {
            let documents = corpus.documents(start..<min(start + chunk, corpus.count))
            try queue.write { db in
                for (offset, document) in documents.enumerated() {
                    try AndroidSQLiteCache.insertRemote(document, db)
                    try db.cachedStatement(
                        sql: "INSERT INTO target_documents (target_id, path, sequence_number) VALUES (0, ?, ?)")
                        .execute(arguments: [AndroidSchema.encodedPath(document.key.path), start + offset + 1])
                    for (id, index) in indexes.enumerated() {
                        try AndroidSQLiteCache.insertIndexEntries(index.entries(for: document), indexID: id, db)
                    }
                }
            }
            start += chunk
        }
        // The backfiller's offset: the last document it indexed, in (read time, path) order.
        try queue.write { db in
            let last = try Row.fetchOne(db, sql: """
                SELECT read_time_seconds, read_time_nanos, path FROM remote_documents
                  ORDER BY read_time_seconds DESC, read_time_nanos DESC, path DESC LIMIT 1
                """)
            try db.execute(
                sql: "INSERT INTO target_globals VALUES (0, ?, 0, 0, 0)", arguments: [corpus.count])
            for id in indexes.indices {
                try db.execute(
                    sql: """
                        INSERT INTO index_state (index_id, uid, sequence_number, read_time_seconds, read_time_nanos,
                          document_key, largest_batch_id) VALUES (?, '', 1, ?, ?, ?, -1)
                        """,
                    arguments: [id, last?[0] as Int64? ?? 0, last?[1] as Int? ?? 0, last?[2] as String? ?? ""])
            }
        }
        try queue.close()
    }

    func open(_ directory: String) throws -> any QueryCache {
        try AndroidSQLiteCache(queue: AndroidSchema.open(directory, create: !FileManager.default.fileExists(
            atPath: directory + "/firestore.sqlite")))
    }
}

/// An open Android-style cache: one connection, prepared (cached) statements, the current user's id `""`.
final class AndroidSQLiteCache: QueryCache {
    let queue: DatabaseQueue
    /// The configured indexes with their `index_id`s, read at open as Android's `SQLiteIndexManager.start`.
    let indexes: [(id: Int, index: FieldIndex)]
    /// `collection_parents` rows already written (Android's `MemoryCollectionParentIndex` memo).
    var knownParents = Set<String>()
    /// Where the indexes' backfill stands (`index_state`): documents read later are appended by a scan.
    let indexOffset: (readTime: Timestamp, path: String)?
    var nextBatchID = 1
    /// Android's `ListenSequence`: one number per write transaction.
    var sequenceNumber = 0
    let uid = ""

    init(queue: DatabaseQueue) throws {
        self.queue = queue
        (indexes, indexOffset, nextBatchID, sequenceNumber) = try queue.read { db in
            var indexes: [(Int, FieldIndex)] = []
            let definitions = FieldIndex.definitions(try QueryCatalog.fieldIndexes())
            for row in try Row.fetchAll(db, sql: "SELECT index_id, index_proto FROM index_configuration") {
                let proto: Data = row["index_proto"]
                guard let index = definitions[String(decoding: proto, as: UTF8.self)] else {
                    throw BenchError("sqlite: index_configuration holds an index the suite does not know")
                }
                indexes.append((row["index_id"], index))
            }
            let offset = try Row.fetchOne(db, sql: """
                SELECT read_time_seconds, read_time_nanos, document_key FROM index_state
                  ORDER BY read_time_seconds, read_time_nanos, document_key LIMIT 1
                """).map { row in
                    (readTime: Timestamp(seconds: row[0], nanoseconds: Int32(row[1] as Int)), path: row[2] as String)
                }
            let batch = try Int.fetchOne(db, sql: "SELECT MAX(batch_id) FROM mutations") ?? 0
            let sequence = try Int.fetchOne(db, sql: "SELECT highest_listen_sequence_number FROM target_globals") ?? 0
            return (indexes, offset, batch + 1, sequence)
        }
    }

    /// `INSERT OR REPLACE INTO remote_documents` and the `collection_parents` row, as `SQLiteRemoteDocumentCache.add`.
    static func insertRemote(_ document: Document, _ db: Database) throws {
        let path = document.key.path
        try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO remote_documents
              (path, path_length, read_time_seconds, read_time_nanos, document_type, contents) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                AndroidSchema.encodedPath(path), path.count, document.readTime.seconds, Int(document.readTime.nanoseconds),
                AndroidSchema.foundType, AndroidSchema.contents(document),
            ])
        let collection = document.key.collectionPath
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO collection_parents (collection_id, parent) VALUES (?, ?)")
            .execute(arguments: [collection.lastSegment!, AndroidSchema.encodedPath(collection.parent!)])
    }

    /// Index rows as `SQLiteIndexManager.addIndexEntry` writes them (`array_value` empty without a contains segment).
    static func insertIndexEntries(_ entries: [IndexEntry], indexID: Int, _ db: Database) throws {
        for entry in entries {
            try db.cachedStatement(sql: """
                INSERT INTO index_entries (index_id, uid, array_value, directional_value, document_key) VALUES (?, '', ?, ?, ?)
                """).execute(arguments: [
                    indexID, Data(entry.arrayValue ?? []), Data(entry.directionalValue), entry.key.path.canonicalString,
                ])
        }
    }

    /// Android's `LocalStore.writeLocally` in one transaction: the local views of the written documents
    /// (remote rows and overlays read), the batch in `mutations` and `document_mutations`, new collection
    /// parents, and the recomputed overlays in `document_overlays`.
    func write(_ mutations: [Mutation]) throws {
        let batch = MutationBatch(batchID: nextBatchID, localWriteTime: benchWriteTime, mutations: mutations)
        try queue.write { db in
            sequenceNumber += 1
            let keys = batch.keys
            let remote = try remoteDocuments(keys, db)
            let overlays = try overlays(for: keys, db)
            try db.cachedStatement(sql: "INSERT INTO mutations (uid, batch_id, mutations) VALUES (?, ?, ?)")
                .execute(arguments: [uid, batch.batchID, Data(MutationCodec.encode(batch))])
            for key in keys {
                let path = AndroidSchema.encodedPath(key.path)
                try db.cachedStatement(sql: "INSERT INTO document_mutations (uid, path, batch_id) VALUES (?, ?, ?)")
                    .execute(arguments: [uid, path, batch.batchID])
                let collection = key.collectionPath
                if knownParents.insert(collection.canonicalString).inserted {
                    try db.cachedStatement(
                        sql: "INSERT OR IGNORE INTO collection_parents (collection_id, parent) VALUES (?, ?)")
                        .execute(arguments: [collection.lastSegment!, AndroidSchema.encodedPath(collection.parent!)])
                }
                var document = remote[key]
                var mask: FieldMask? = FieldMask()
                if let overlay = overlays[key] {
                    mask = overlay.mutation.applyToLocalView(&document, previousMask: mask, localWriteTime: benchWriteTime)
                }
                mask = batch.applyToLocalDocument(&document, for: key, mutatedFields: mask)
                guard let mutation = Overlay.calculateOverlayMutation(for: document, mask: mask) else { continue }
                let overlay = MutationBatch(batchID: batch.batchID, localWriteTime: benchWriteTime, mutations: [mutation])
                try db.cachedStatement(sql: """
                    INSERT OR REPLACE INTO document_overlays
                      (uid, collection_group, collection_path, document_id, largest_batch_id, overlay_mutation)
                      VALUES (?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        uid, key.collectionGroup, AndroidSchema.encodedPath(collection), key.documentID, batch.batchID,
                        Data(MutationCodec.encode(overlay)),
                    ])
            }
        }
        nextBatchID += 1
    }

    /// `allocateTarget` plus the target's membership (`addMatchingKeys`, which also rewrites each document's
    /// sentinel sequence number, Android's `addReference`).
    func listen(_ query: Query) throws {
        let keys = try execute(query).map(\.key)
        try queue.write { db in
            sequenceNumber += 1
            let targetID = (try Int.fetchOne(db, sql: "SELECT highest_target_id FROM target_globals") ?? 0) + 2
            try db.execute(
                sql: """
                    UPDATE target_globals SET highest_target_id = ?, highest_listen_sequence_number = ?,
                      target_count = target_count + 1
                    """,
                arguments: [targetID, sequenceNumber])
            try db.execute(
                sql: """
                    INSERT INTO targets (target_id, canonical_id, snapshot_version_seconds, snapshot_version_nanos,
                      resume_token, last_listen_sequence_number, target_proto) VALUES (?, ?, 0, 0, ?, ?, ?)
                    """,
                arguments: [targetID, query.canonicalID, Data(), sequenceNumber, Data(query.canonicalID.utf8)])
            for key in keys {
                let path = AndroidSchema.encodedPath(key.path)
                let insert = "INSERT OR REPLACE INTO target_documents (target_id, path, sequence_number) VALUES (?, ?, ?)"
                try db.cachedStatement(sql: insert).execute(arguments: [targetID, path, sequenceNumber])
                try db.cachedStatement(sql: insert).execute(arguments: [0, path, sequenceNumber])
            }
        }
    }

    func close() throws { try queue.close() }
}

extension FieldIndex {
    /// The suite's indexes by canonical id (what the baseline stores as `index_proto`).
    static func definitions(_ indexes: [FieldIndex]) -> [String: FieldIndex] {
        Dictionary(indexes.map { ($0.canonicalID, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
