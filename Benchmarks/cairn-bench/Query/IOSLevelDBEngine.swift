// The LevelDB baseline engine: a cache built and written the way Firebase's Apple SDK does it, on the system's
// LevelDB (keys and values in IOSLevelDBSchema.swift, queries in IOSLevelDBCache+Query.swift, overlays in
// IOSLevelDBCache+Overlays.swift, LRU collection in IOSLevelDBCache+GarbageCollection.swift). Loading writes
// what iOS holds after receiving the documents: `remote_document` and `remote_document_read_time` rows,
// `collection_parent`, an LRU sentinel row per document in `document_target` (each document its own sequence
// number, as in the SQLite column), and fully backfilled `index_entries` for the configured indexes. Every
// transaction is one LevelDB write batch with iOS's default `WriteOptions` (`sync = false`), and the database
// is opened with LevelDB's default options (8 MiB block cache, snappy), as `LevelDbPersistence::OpenDb` does.

import CairnModel
import Foundation

/// LevelDB laid out as Firebase's Apple SDK.
final class IOSLevelDBEngine: QueryEngine {
    let name = "leveldb"
    let isPersistent = true
    /// Documents per load batch.
    private let chunk = 5000
    var layout: String { "leveldb 1: iOS key encoding, \(chunk) documents per write batch" }

    func load(_ corpus: QueryCorpus, into directory: String) throws {
        let database = try LevelDB(directory: directory, blockCacheBytes: nil, sync: false)
        let indexes = try QueryCatalog.fieldIndexes()
        let batch = LevelDB.Batch()
        for (id, index) in indexes.enumerated() {
            let key = IOSLevelDBSchema.indexConfiguration(id, collectionGroup: index.collectionGroup)
            batch.put(key, Array(index.canonicalID.utf8))
        }
        var parents = Set<ResourcePath>()
        // The backfiller's offset: the last document it indexed, in (read time, key) order.
        var last: (readTime: Timestamp, key: DocumentKey)?
        var start = 0
        while start < corpus.count {
            for (offset, document) in corpus.documents(start..<min(start + chunk, corpus.count)).enumerated() {
                IOSLevelDBCache.putRemote(document, into: batch, knownParents: &parents)
                batch.put(
                    IOSLevelDBSchema.documentTarget(document.key, targetID: 0),
                    IOSLevelDBSchema.sentinelValue(start + offset + 1))
                for (id, index) in indexes.enumerated() {
                    IOSLevelDBCache.putIndexEntries(index.entries(for: document), indexID: id, into: batch)
                }
                if last.map({ ($0.readTime, $0.key) < (document.readTime, document.key) }) ?? true {
                    last = (document.readTime, document.key)
                }
            }
            try database.write(batch)
            batch.clear()
            start += chunk
        }
        let global = TargetGlobal(highestTargetID: 0, sequenceNumber: corpus.count, targetCount: 0)
        batch.put(IOSLevelDBSchema.targetGlobal, global.value)
        for id in indexes.indices {
            var state = BinaryRecord()
            state.append(Int64(1))
            state.append(last?.readTime.seconds ?? 0)
            state.append(last?.readTime.nanoseconds ?? 0)
            state.append(Array((last?.key.path.canonicalString ?? "").utf8))
            batch.put(IOSLevelDBSchema.indexState(id), state.bytes)
        }
        try database.write(batch)
    }

    func open(_ directory: String) throws -> any QueryCache {
        let database = try LevelDB(directory: directory, blockCacheBytes: nil, sync: false)
        return try IOSLevelDBCache(database: database, directory: directory)
    }
}

/// The `target_global` row: the highest target id, the highest listen sequence number and the target count.
struct TargetGlobal {
    var highestTargetID: Int
    var sequenceNumber: Int
    var targetCount: Int

    var value: [UInt8] {
        var record = BinaryRecord()
        record.append(Int64(highestTargetID))
        record.append(Int64(sequenceNumber))
        record.append(Int64(targetCount))
        return record.bytes
    }

    init(highestTargetID: Int, sequenceNumber: Int, targetCount: Int) {
        (self.highestTargetID, self.sequenceNumber, self.targetCount) = (highestTargetID, sequenceNumber, targetCount)
    }

    init(_ value: UnsafeRawBufferPointer) throws {
        var reader = BinaryRecord.Reader(value)
        highestTargetID = Int(try reader.int64())
        sequenceNumber = Int(try reader.int64())
        targetCount = Int(try reader.int64())
        guard highestTargetID >= 0, sequenceNumber >= 0, targetCount >= 0 else {
            throw BenchError("leveldb: the target_global row holds a negative number")
        }
    }
}

/// An open iOS-style cache: one LevelDB, the current user's id `""`.
final class IOSLevelDBCache: QueryCache {
    private var handle: LevelDB?
    let directory: String
    /// The configured indexes with their ids, read at open as iOS's `LevelDbIndexManager::Start`.
    let indexes: [(id: Int, index: FieldIndex)]
    /// Where the indexes' backfill stands (`index_state`): documents read later are appended by a scan.
    let indexOffset: (readTime: Timestamp, key: DocumentKey)?
    /// `collection_parent` rows already written (iOS's `MemoryCollectionParentIndex` memo).
    var knownParents = Set<ResourcePath>()
    var nextBatchID: Int
    /// iOS's `ListenSequence`: one number per transaction that needs one.
    var global: TargetGlobal

    /// The open database; closing the cache closes it (and releases LevelDB's lock on the directory).
    var database: LevelDB {
        get throws {
            guard let handle else { throw BenchError("leveldb: the cache is closed") }
            return handle
        }
    }

    init(database: LevelDB, directory: String) throws {
        handle = database
        self.directory = directory
        let definitions = FieldIndex.definitions(try QueryCatalog.fieldIndexes())
        var indexes: [(Int, FieldIndex)] = []
        let iterator = database.makeIterator()
        try iterator.forEach(prefix: IOSLevelDBSchema.indexConfigurationTable) { key, value in
            var reader = OrderedKeyReader(key)
            try reader.skip(IOSLevelDBSchema.indexConfigurationTable.count)
            let id = Int(try reader.number(.indexID))
            guard let index = definitions[String(decoding: value, as: UTF8.self)] else {
                throw BenchError("leveldb: index_configuration holds an index the suite does not know")
            }
            indexes.append((id, index))
            return true
        }
        self.indexes = indexes
        var offset: (readTime: Timestamp, key: DocumentKey)?
        try iterator.forEach(prefix: IOSLevelDBSchema.indexStateTable) { _, value in
            var reader = BinaryRecord.Reader(value)
            _ = try reader.int64()
            let readTime = try reader.timestamp()
            let key = DocumentKey(path: try ResourcePath(parsing: String(decoding: reader.rest, as: UTF8.self)))
            if offset.map({ ($0.readTime, $0.key) > (readTime, key) }) ?? true { offset = (readTime, key) }
            return true
        }
        indexOffset = offset
        // The next batch id: one past the last `mutation` row of the user (`LevelDbMutationQueue::Start`).
        var lastBatch = 0
        try iterator.forEach(prefix: IOSLevelDBSchema.mutationPrefix()) { key, _ in
            var reader = OrderedKeyReader(key)
            try reader.skip(IOSLevelDBSchema.mutationPrefix().count)
            lastBatch = Int(try reader.number(.batchID))
            return true
        }
        nextBatchID = lastBatch + 1
        // A new cache gets its `target_global` row (`LevelDbTargetCache::Start`).
        if let global = try database.get(IOSLevelDBSchema.targetGlobal, { try $0.map(TargetGlobal.init) }) {
            self.global = global
        } else {
            global = TargetGlobal(highestTargetID: 0, sequenceNumber: 0, targetCount: 0)
            let batch = LevelDB.Batch()
            batch.put(IOSLevelDBSchema.targetGlobal, global.value)
            try database.write(batch)
        }
    }

    /// The `remote_document` and `remote_document_read_time` rows and the `collection_parent` row, as
    /// `LevelDbRemoteDocumentCache::Add` and `LevelDbIndexManager::AddToCollectionParentIndex`.
    static func putRemote(_ document: Document, into batch: LevelDB.Batch, knownParents: inout Set<ResourcePath>) {
        let key = document.key
        batch.put(IOSLevelDBSchema.remoteDocument(key), IOSLevelDBSchema.remoteDocumentValue(document))
        batch.put(IOSLevelDBSchema.readTime(key.collectionPath, document.readTime, documentID: key.documentID), [])
        putCollectionParent(key, into: batch, knownParents: &knownParents)
    }

    static func putCollectionParent(
        _ key: DocumentKey, into batch: LevelDB.Batch, knownParents: inout Set<ResourcePath>
    ) {
        let collection = key.collectionPath
        guard knownParents.insert(collection).inserted else { return }
        batch.put(IOSLevelDBSchema.collectionParent(collection.lastSegment!, parent: collection.parent!), [])
    }

    /// `index_entries` rows (empty values) and their `index_entries_document_key_index` rows, as
    /// `LevelDbIndexManager::AddIndexEntry` writes them for a new document.
    static func putIndexEntries(_ entries: [IndexEntry], indexID: Int, into batch: LevelDB.Batch) {
        for (sequence, entry) in entries.enumerated() {
            let array = entry.arrayValue ?? []
            let orderedKey = Array(entry.sortKey.dropFirst(array.count + entry.directionalValue.count))
            let name = entry.key.path.canonicalString
            let key = IOSLevelDBSchema.indexEntry(
                indexID, array: array, directional: entry.directionalValue, orderedKey: orderedKey, documentName: name)
            batch.put(key, [])
            batch.put(IOSLevelDBSchema.indexEntryByDocument(indexID, documentName: name, sequence: sequence), key)
        }
    }

    /// iOS's `LocalStore::WriteLocally` in one transaction: the local views of the written documents (remote
    /// rows and overlays read), the batch in `mutation` and `document_mutation`, new collection parents, and the
    /// recomputed overlays in `document_overlays` and its three indexes.
    func write(_ mutations: [Mutation]) throws {
        let batch = MutationBatch(batchID: nextBatchID, localWriteTime: benchWriteTime, mutations: mutations)
        let keys = batch.keys
        let remote = try remoteDocuments(keys)
        let overlays = try overlays(for: keys)
        let writes = LevelDB.Batch()
        writes.put(IOSLevelDBSchema.mutation(batchID: batch.batchID), MutationCodec.encode(batch))
        for key in keys {
            writes.put(IOSLevelDBSchema.documentMutation(key, batchID: batch.batchID), [])
            Self.putCollectionParent(key, into: writes, knownParents: &knownParents)
            var document = remote[key]
            var mask: FieldMask? = FieldMask()
            if let overlay = overlays[key] {
                mask = overlay.mutation.applyToLocalView(&document, previousMask: mask, localWriteTime: benchWriteTime)
            }
            mask = batch.applyToLocalDocument(&document, for: key, mutatedFields: mask)
            guard let mutation = Overlay.calculateOverlayMutation(for: document, mask: mask) else { continue }
            if let previous = overlays[key] {
                deleteOverlay(key, largestBatchID: previous.largestBatchID, from: writes)
            }
            putOverlay(Overlay(largestBatchID: batch.batchID, mutation: mutation), into: writes)
        }
        try database.write(writes)
        nextBatchID += 1
    }

    /// `AllocateTarget` plus the target's membership (`AddMatchingKeys`, which also rewrites each document's
    /// sentinel with the transaction's sequence number, iOS's `AddReference`).
    func listen(_ query: Query) throws {
        let keys = try execute(query).map(\.key)
        global.sequenceNumber += 1
        global.highestTargetID += 2
        global.targetCount += 1
        let targetID = global.highestTargetID
        let writes = LevelDB.Batch()
        writes.put(IOSLevelDBSchema.targetGlobal, global.value)
        var target = BinaryRecord()
        target.append(Int64(global.sequenceNumber))
        target.append(Array(query.canonicalID.utf8))
        writes.put(IOSLevelDBSchema.target(targetID), target.bytes)
        writes.put(IOSLevelDBSchema.queryTarget(query.canonicalID, targetID: targetID), [])
        for key in keys {
            writes.put(IOSLevelDBSchema.targetDocument(targetID, key), [])
            writes.put(IOSLevelDBSchema.documentTarget(key, targetID: targetID), [])
            let sentinel = IOSLevelDBSchema.documentTarget(key, targetID: 0)
            writes.put(sentinel, IOSLevelDBSchema.sentinelValue(global.sequenceNumber))
        }
        try database.write(writes)
    }

    func close() throws { handle = nil }
}
