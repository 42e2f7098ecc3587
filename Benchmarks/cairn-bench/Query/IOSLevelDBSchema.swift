// The LevelDB baseline's keys and values, laid out as Firebase's Apple SDK lays out its LevelDB cache
// (`Firestore/core/src/local/leveldb_key.h`): every row key is a sequence of components, each a label written
// with OrderedCode's signed-number encoding followed by an OrderedCode string or number, starting with the
// table name and ending with a terminator; a resource path is one `PathSegment` component per segment, so keys
// sort by table, then component by component. Tables: `remote_document`, `remote_document_read_time`,
// `collection_parent`, `mutation`, `document_mutation`, `target`, `query_target`, `target_document`,
// `document_target` (with the LRU sentinel rows, target id 0), `target_global`, `index_configuration`,
// `index_state`, `index_entries`, `index_entries_document_key_index`, `document_overlays` and its
// `document_overlays_largest_batch_id_index`, `document_overlays_collection_index` and
// `document_overlays_collection_group_index`.
//
// Values: as the SQLite column, the comparison is about storage and query design rather than serialization, so
// a `remote_document` row holds the read time (12 bytes) and the SQLite column's `contents` (version + Cairn's
// DocumentCodec) instead of a `MaybeDocument` proto; `mutation` and `document_overlays` rows hold Cairn's
// mutation codec instead of `WriteBatch` / `Mutation` protos; targets, globals and index state are small
// fixed binary records instead of protos. Sentinel rows hold the sequence number in OrderedCode, as iOS's.

import CairnModel

/// Key builders, one per table, and the value encodings.
enum IOSLevelDBSchema {
    /// The current user's id (an unauthenticated user's is empty).
    static let uid = ""

    static func remoteDocument(_ key: DocumentKey) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "remote_document")
        writer.path(key.path)
        return writer.terminated()
    }

    /// `remote_document_read_time` rows of `collection` from `readTime` on (the read time's label included).
    static func readTimePrefix(_ collection: ResourcePath) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "remote_document_read_time")
        writer.path(collection)
        writer.label(.snapshotVersion)
        return writer.bytes
    }

    static func readTime(_ collection: ResourcePath, _ readTime: Timestamp, documentID: String? = nil) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "remote_document_read_time")
        writer.path(collection)
        writer.snapshotVersion(readTime)
        guard let documentID else { return writer.bytes }
        writer.string(.documentID, documentID)
        return writer.terminated()
    }

    static func collectionParentPrefix(_ collectionID: String) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "collection_parent")
        writer.string(.collectionID, collectionID)
        return writer.bytes
    }

    static func collectionParent(_ collectionID: String, parent: ResourcePath) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "collection_parent")
        writer.string(.collectionID, collectionID)
        writer.path(parent)
        return writer.terminated()
    }

    static func mutationPrefix() -> [UInt8] {
        var writer = OrderedKeyWriter(table: "mutation")
        writer.string(.userID, uid)
        return writer.bytes
    }

    static func mutation(batchID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "mutation")
        writer.string(.userID, uid)
        writer.number(.batchID, Int64(batchID))
        return writer.terminated()
    }

    /// `document_mutation` rows of one document (a prefix: the batch ids follow).
    static func documentMutationPrefix(_ key: DocumentKey) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_mutation")
        writer.string(.userID, uid)
        writer.path(key.path)
        writer.label(.batchID)
        return writer.bytes
    }

    static func documentMutation(_ key: DocumentKey, batchID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_mutation")
        writer.string(.userID, uid)
        writer.path(key.path)
        writer.number(.batchID, Int64(batchID))
        return writer.terminated()
    }

    static func target(_ targetID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "target")
        writer.number(.targetID, Int64(targetID))
        return writer.terminated()
    }

    static func queryTarget(_ canonicalID: String, targetID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "query_target")
        writer.string(.canonicalID, canonicalID)
        writer.number(.targetID, Int64(targetID))
        return writer.terminated()
    }

    static func targetDocument(_ targetID: Int, _ key: DocumentKey) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "target_document")
        writer.number(.targetID, Int64(targetID))
        writer.path(key.path)
        return writer.terminated()
    }

    static let documentTargetTable = OrderedKeyWriter(table: "document_target").bytes

    /// A `document_target` row; target id 0 is the document's LRU sentinel, which sorts first.
    static func documentTarget(_ key: DocumentKey, targetID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_target")
        writer.path(key.path)
        writer.number(.targetID, Int64(targetID))
        return writer.terminated()
    }

    static let targetGlobal = OrderedKeyWriter(table: "target_global").terminated()

    static let indexConfigurationTable = OrderedKeyWriter(table: "index_configuration").bytes

    static func indexConfiguration(_ indexID: Int, collectionGroup: String) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "index_configuration")
        writer.number(.indexID, Int64(indexID))
        writer.string(.collectionGroup, collectionGroup)
        return writer.terminated()
    }

    static let indexStateTable = OrderedKeyWriter(table: "index_state").bytes

    static func indexState(_ indexID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "index_state")
        writer.number(.indexID, Int64(indexID))
        writer.string(.userID, uid)
        return writer.terminated()
    }

    /// The `index_entries` rows of one array value (empty without a contains segment) of an index.
    static func indexEntryPrefix(_ indexID: Int, array: [UInt8]) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "index_entries")
        writer.number(.indexID, Int64(indexID))
        writer.string(.userID, uid)
        writer.string(.indexArrayValue, array)
        return writer.bytes
    }

    /// An `index_entries` key (its value is empty), or with `documentName` nil the bound of a range scan
    /// (`KeyPrefix`). `orderedKey` is the document key in index encoding, so that entries with equal values sort
    /// by key as the query orders them; `documentName` is the key's canonical path.
    static func indexEntry(
        _ indexID: Int, array: [UInt8], directional: [UInt8], orderedKey: [UInt8] = [], documentName: String? = nil
    ) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "index_entries")
        writer.number(.indexID, Int64(indexID))
        writer.string(.userID, uid)
        writer.string(.indexArrayValue, array)
        writer.string(.indexDirectionalValue, directional)
        guard let documentName else { return writer.bytes }
        writer.string(.indexOrderedDocumentKey, orderedKey)
        writer.string(.documentID, documentName)
        return writer.terminated()
    }

    /// `index_entries_document_key_index` rows of one document in one index (a prefix: a sequence number follows).
    static func indexEntryByDocumentPrefix(_ indexID: Int, documentName: String) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "index_entries_document_key_index")
        writer.number(.indexID, Int64(indexID))
        writer.string(.userID, uid)
        writer.string(.documentID, documentName)
        return writer.bytes
    }

    static func indexEntryByDocument(_ indexID: Int, documentName: String, sequence: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "index_entries_document_key_index")
        writer.number(.indexID, Int64(indexID))
        writer.string(.userID, uid)
        writer.string(.documentID, documentName)
        writer.number(.batchID, Int64(sequence))
        return writer.terminated()
    }

    /// The `document_overlays` row of a document (a prefix: its largest batch id follows).
    static func overlayPrefix(_ key: DocumentKey) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_overlays")
        writer.string(.userID, uid)
        writer.path(key.path)
        writer.label(.batchID)
        return writer.bytes
    }

    static func overlay(_ key: DocumentKey, largestBatchID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_overlays")
        writer.string(.userID, uid)
        writer.path(key.path)
        writer.number(.batchID, Int64(largestBatchID))
        return writer.terminated()
    }

    static func overlayByBatch(_ key: DocumentKey, largestBatchID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_overlays_largest_batch_id_index")
        writer.string(.userID, uid)
        writer.number(.batchID, Int64(largestBatchID))
        writer.path(key.path)
        return writer.terminated()
    }

    /// A `document_overlays_collection_index` key (its value is empty); without a document id the seek key of the
    /// rows from `largestBatchID` on, without a batch id the prefix of the collection's rows.
    static func overlayByCollection(
        _ collection: ResourcePath, largestBatchID: Int? = nil, documentID: String? = nil
    ) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_overlays_collection_index")
        writer.string(.userID, uid)
        writer.path(collection)
        guard let largestBatchID else {
            writer.label(.batchID)
            return writer.bytes
        }
        writer.number(.batchID, Int64(largestBatchID))
        guard let documentID else { return writer.bytes }
        writer.string(.documentID, documentID)
        return writer.terminated()
    }

    static func overlayByCollectionGroup(_ key: DocumentKey, largestBatchID: Int) -> [UInt8] {
        var writer = OrderedKeyWriter(table: "document_overlays_collection_group_index")
        writer.string(.userID, uid)
        writer.string(.collectionGroup, key.collectionGroup)
        writer.number(.batchID, Int64(largestBatchID))
        writer.path(key.path)
        return writer.terminated()
    }

    // MARK: Values

    /// A `remote_document` value: the read time (seconds, nanoseconds; little-endian), then the SQLite column's
    /// `contents` (version and Cairn's document body).
    static func remoteDocumentValue(_ document: Document) -> [UInt8] {
        var bytes = BinaryRecord()
        bytes.append(document.readTime.seconds)
        bytes.append(document.readTime.nanoseconds)
        return bytes.bytes + AndroidSchema.contents(document)
    }

    /// Decodes a `remote_document` value read straight from LevelDB's memory.
    static func document(_ key: DocumentKey, _ value: UnsafeRawBufferPointer) throws -> Document {
        guard value.count > 24 else { throw BenchError("leveldb: a remote_document row has a truncated value") }
        var reader = BinaryRecord.Reader(value)
        let readTime = try reader.timestamp()
        let version = try reader.timestamp()
        let data = try DocumentCodec.decode(UnsafeRawBufferPointer(rebasing: value[24...]))
        return Document(key: key, state: .found, version: version, readTime: readTime, data: data)
    }

    /// The read time stored first in a `remote_document` value.
    static func readTime(ofDocumentValue value: UnsafeRawBufferPointer) throws -> Timestamp {
        var reader = BinaryRecord.Reader(value)
        return try reader.timestamp()
    }

    /// A sentinel row's value: the document's sequence number, OrderedCode signed (as iOS's).
    static func sentinelValue(_ sequenceNumber: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        OrderedCode.appendSignedIncreasing(Int64(sequenceNumber), to: &bytes)
        return bytes
    }
}
