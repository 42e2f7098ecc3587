// The SQLite baseline's schema and encodings, laid out as Firebase's Android SDK lays out its cache
// (`local/SQLiteSchema.java` version 18; semantics notes §2.1): the tables a query, a local write and LRU
// garbage collection touch, with Android's column names, keys and indexes. Two deliberate differences keep
// the comparison about storage and query design rather than serialization: `contents` holds the document in
// Cairn's document codec (after a 12-byte version prefix) instead of a `MaybeDocument` proto, and
// `mutations` / `overlay_mutation` hold Cairn's mutation codec instead of `WriteBatch` / `Mutation` protos.

import CairnModel
import Foundation
import GRDB

/// Android's schema, connection settings and value encodings.
enum AndroidSchema {
    /// The page cache the baseline gets: the same 32 MiB as Cairn's default frame cache.
    static let pageCacheBytes = 32 << 20

    static let tables = [
        """
        CREATE TABLE remote_documents (path TEXT PRIMARY KEY, contents BLOB, read_time_seconds INTEGER,
          read_time_nanos INTEGER, path_length INTEGER, document_type INTEGER)
        """,
        "CREATE INDEX read_time ON remote_documents (read_time_seconds, read_time_nanos)",
        "CREATE TABLE collection_parents (collection_id TEXT, parent TEXT, PRIMARY KEY(collection_id, parent))",
        "CREATE TABLE mutations (uid TEXT, batch_id INTEGER, mutations BLOB, PRIMARY KEY (uid, batch_id))",
        "CREATE TABLE document_mutations (uid TEXT, path TEXT, batch_id INTEGER, PRIMARY KEY (uid, path, batch_id))",
        """
        CREATE TABLE document_overlays (uid TEXT, collection_path TEXT, document_id TEXT, collection_group TEXT,
          largest_batch_id INTEGER, overlay_mutation BLOB, PRIMARY KEY (uid, collection_path, document_id))
        """,
        "CREATE INDEX batch_id_overlay ON document_overlays (uid, largest_batch_id)",
        "CREATE INDEX collection_group_overlay ON document_overlays (uid, collection_group)",
        """
        CREATE TABLE targets (target_id INTEGER PRIMARY KEY, canonical_id TEXT, snapshot_version_seconds INTEGER,
          snapshot_version_nanos INTEGER, resume_token BLOB, last_listen_sequence_number INTEGER, target_proto BLOB)
        """,
        """
        CREATE TABLE target_documents (target_id INTEGER, path TEXT, sequence_number INTEGER,
          PRIMARY KEY (target_id, path))
        """,
        "CREATE INDEX document_targets ON target_documents (path, target_id)",
        """
        CREATE TABLE target_globals (highest_target_id INTEGER, highest_listen_sequence_number INTEGER,
          last_remote_snapshot_version_seconds INTEGER, last_remote_snapshot_version_nanos INTEGER, target_count INTEGER)
        """,
        "CREATE TABLE index_configuration (index_id INTEGER PRIMARY KEY, collection_group TEXT, index_proto BLOB)",
        """
        CREATE TABLE index_entries (index_id INTEGER, uid TEXT, array_value BLOB, directional_value BLOB,
          document_key TEXT, PRIMARY KEY (index_id, uid, array_value, directional_value, document_key))
        """,
        // Not in the reference schema: lets removing a document's entries find them without reading the whole
        // index (given to the baseline so that garbage collection is not quadratic because of it).
        "CREATE INDEX index_entries_by_document ON index_entries (index_id, uid, document_key)",
        """
        CREATE TABLE index_state (index_id INTEGER, uid TEXT, sequence_number INTEGER, read_time_seconds INTEGER,
          read_time_nanos INTEGER, document_key TEXT, largest_batch_id INTEGER, PRIMARY KEY (index_id, uid))
        """,
    ]

    /// `document_type` of a found document (schema version 18: 1 no document, 2 found, 3 unknown).
    static let foundType = 2

    /// Opens the cache with Android's connection settings: one connection (`locking_mode = EXCLUSIVE`), WAL,
    /// `synchronous = NORMAL` (read back and checked), and a 32 MiB page cache.
    static func open(_ directory: String, create: Bool) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -\(pageCacheBytes / 1024)")
        }
        let queue = try DatabaseQueue(path: directory + "/firestore.sqlite", configuration: configuration)
        try queue.inDatabase { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
            guard mode == "wal", synchronous == 1 else {
                throw BenchError("sqlite: journal_mode \(mode ?? "?") and synchronous \(synchronous ?? -1), not wal and NORMAL")
            }
            if create { for statement in tables { try db.execute(sql: statement) } }
        }
        return queue
    }

    /// Android's `EncodedPath`: each segment with `\u{1}` escaped as `\u{1}\u{11}` and `\u{0}` as
    /// `\u{1}\u{10}`, followed by the separator `\u{1}\u{1}`, so that paths sort segment by segment.
    static func encodedPath(_ path: ResourcePath) -> String {
        var encoded = ""
        for segment in path.segments {
            for scalar in segment.unicodeScalars {
                switch scalar {
                case "\u{0}": encoded += "\u{1}\u{10}"
                case "\u{1}": encoded += "\u{1}\u{11}"
                default: encoded.unicodeScalars.append(scalar)
                }
            }
            encoded += "\u{1}\u{1}"
        }
        return encoded
    }

    /// The smallest encoded path above every path that starts with `encoded` (`EncodedPath.prefixSuccessor`).
    static func prefixSuccessor(_ encoded: String) -> String {
        var scalars = Array(encoded.unicodeScalars)
        let last = scalars.removeLast()
        scalars.append(Unicode.Scalar(last.value + 1)!)
        return String(String.UnicodeScalarView(scalars))
    }

    /// The `contents` blob: the version (seconds, nanoseconds; little-endian) and Cairn's document body.
    static func contents(_ document: Document) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1100)
        withUnsafeBytes(of: document.version.seconds.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: document.version.nanoseconds.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: DocumentCodec.encode(document.data))
        return Data(bytes)
    }

    /// Decodes a `contents` blob read straight from SQLite's row memory.
    static func document(_ path: String, _ contents: UnsafeRawBufferPointer, readTime: Timestamp) throws -> Document {
        guard contents.count > 12 else { throw BenchError("sqlite: a remote_documents row has a truncated contents blob") }
        let seconds = Int64(littleEndian: contents.loadUnaligned(fromByteOffset: 0, as: Int64.self))
        let nanoseconds = Int32(littleEndian: contents.loadUnaligned(fromByteOffset: 8, as: Int32.self))
        let data = try DocumentCodec.decode(UnsafeRawBufferPointer(rebasing: contents[12...]))
        return Document(
            key: try decodedKey(path), state: .found, version: Timestamp(seconds: seconds, nanoseconds: nanoseconds),
            readTime: readTime, data: data)
    }

    /// The document key of an encoded path.
    static func decodedKey(_ encoded: String) throws -> DocumentKey {
        var segments: [String] = []
        var current = String.UnicodeScalarView()
        var escape = false
        for scalar in encoded.unicodeScalars {
            if escape {
                switch scalar {
                case "\u{1}": segments.append(String(current)); current = .init()
                case "\u{10}": current.append("\u{0}")
                case "\u{11}": current.append("\u{1}")
                default: throw BenchError("sqlite: invalid escape in encoded path")
                }
                escape = false
            } else if scalar == "\u{1}" {
                escape = true
            } else {
                current.append(scalar)
            }
        }
        return DocumentKey(path: ResourcePath(segments: segments))
    }
}
