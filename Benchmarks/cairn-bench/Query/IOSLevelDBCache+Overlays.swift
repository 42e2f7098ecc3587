// The LevelDB baseline's overlays (iOS's `LevelDbDocumentOverlayCache`): a `document_overlays` row per document
// (keyed by its path and largest batch id, holding a one-mutation batch in Cairn's mutation codec), and three
// index tables with empty values: by largest batch id, by collection and by collection group. Reads by
// document seek the document's row; reads by collection iterate the collection index from a batch id on and
// point-get each overlay.

import CairnModel

extension IOSLevelDBCache {
    /// `GetOverlays(keys)`: one seek per document.
    func overlays(for keys: [DocumentKey]) throws -> [DocumentKey: Overlay] {
        var overlays: [DocumentKey: Overlay] = [:]
        let iterator = try database.makeIterator()
        for key in keys {
            try iterator.forEach(prefix: IOSLevelDBSchema.overlayPrefix(key)) { _, value in
                overlays[key] = try Self.overlay(value)
                return false
            }
        }
        return overlays
    }

    /// `GetOverlays(collection, since_batch_id)`: the collection index from the batch after `sinceBatch` on.
    func collectionOverlays(_ collection: ResourcePath, sinceBatch: Int) throws -> [DocumentKey: Overlay] {
        let database = try database
        var overlays: [DocumentKey: Overlay] = [:]
        let prefix = IOSLevelDBSchema.overlayByCollection(collection)
        let start = IOSLevelDBSchema.overlayByCollection(collection, largestBatchID: sinceBatch + 1)
        try database.makeIterator().forEach(prefix: prefix, from: start) { key, _ in
            var reader = OrderedKeyReader(key)
            try reader.skip(prefix.count)
            let batchID = Int(try reader.number())
            let document = DocumentKey(path: collection.appending(try reader.string(.documentID)))
            try database.get(IOSLevelDBSchema.overlay(document, largestBatchID: batchID)) { value in
                guard let value else { throw BenchError("leveldb: an overlay index row has no overlay") }
                overlays[document] = try Self.overlay(value)
            }
            return true
        }
        return overlays
    }

    /// `SaveOverlay`: the overlay row and its three index rows.
    func putOverlay(_ overlay: Overlay, into batch: LevelDB.Batch) {
        let key = overlay.mutation.key
        let id = overlay.largestBatchID
        let body = MutationBatch(batchID: id, localWriteTime: benchWriteTime, mutations: [overlay.mutation])
        batch.put(IOSLevelDBSchema.overlay(key, largestBatchID: id), MutationCodec.encode(body))
        batch.put(IOSLevelDBSchema.overlayByBatch(key, largestBatchID: id), [])
        batch.put(
            IOSLevelDBSchema.overlayByCollection(key.collectionPath, largestBatchID: id, documentID: key.documentID), [])
        batch.put(IOSLevelDBSchema.overlayByCollectionGroup(key, largestBatchID: id), [])
    }

    /// `DeleteOverlay`: the overlay row and its three index rows.
    func deleteOverlay(_ key: DocumentKey, largestBatchID id: Int, from batch: LevelDB.Batch) {
        batch.delete(IOSLevelDBSchema.overlay(key, largestBatchID: id))
        batch.delete(IOSLevelDBSchema.overlayByBatch(key, largestBatchID: id))
        batch.delete(
            IOSLevelDBSchema.overlayByCollection(key.collectionPath, largestBatchID: id, documentID: key.documentID))
        batch.delete(IOSLevelDBSchema.overlayByCollectionGroup(key, largestBatchID: id))
    }

    private static func overlay(_ value: UnsafeRawBufferPointer) throws -> Overlay {
        let batch = try MutationCodec.decode(value)
        guard let mutation = batch.mutations.first else { throw BenchError("leveldb: an empty overlay row") }
        return Overlay(largestBatchID: batch.batchID, mutation: mutation)
    }
}
