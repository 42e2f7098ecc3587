// The LevelDB baseline's LRU garbage collection, one `LruGarbageCollector::Collect` pass per round with the
// SQLite column's round rule: walk `document_target` (each document's sentinel row, target id 0, sorts first
// and carries its sequence number; a document with no other row is orphaned), find the n-th smallest sequence
// number of the orphans, n the lowest 10% (at most 1,000) of targets and orphans, then remove the orphaned
// documents at or below it that have no `document_mutation` rows (`RemoveOrphanedDocuments`), in one write
// batch: the `remote_document` and `remote_document_read_time` rows, the sentinel, and the document's
// `index_entries` found through `index_entries_document_key_index`.
//
// The size measure is iOS's `CalculateByteSize`: the bytes of the files in the LevelDB directory. Deletions
// are tombstones until LevelDB's background compaction drops them, as on a device.

import CairnModel

extension IOSLevelDBCache {
    func cacheBytes() throws -> Int64 { Int64(ScratchDirectory.diskBytes(directory)) }

    func collectGarbageRound(threshold: Int64) throws -> Bool {
        guard try cacheBytes() > threshold else { return false }
        global.sequenceNumber += 1
        let orphans = try orphanedDocuments()
        let count = min((global.targetCount + orphans.count) * 10 / 100, 1000)
        guard count > 0 else { return false }
        let upperBound = nthSmallestSequenceNumber(orphans.lazy.map(\.1), count: count)
        let database = try database
        let iterator = database.makeIterator()
        let writes = LevelDB.Batch()
        for (key, sequence) in orphans where sequence <= upperBound {
            var pinned = false
            try iterator.forEach(prefix: IOSLevelDBSchema.documentMutationPrefix(key)) { _, _ in
                pinned = true
                return false
            }
            if !pinned { try remove(key, iterator, writes) }
        }
        guard writes.count > 0 else { return false }
        try database.write(writes)
        return true
    }

    /// Every orphaned document with its sentinel's sequence number, in key order.
    private func orphanedDocuments() throws -> [(key: DocumentKey, sequence: Int)] {
        var orphans: [(key: DocumentKey, sequence: Int)] = []
        var current: (key: DocumentKey, sequence: Int?, targeted: Bool)?
        func finish() {
            guard let current, let sequence = current.sequence, !current.targeted else { return }
            orphans.append((current.key, sequence))
        }
        let table = IOSLevelDBSchema.documentTargetTable
        try database.makeIterator().forEach(prefix: table) { key, value in
            var reader = OrderedKeyReader(key)
            try reader.skip(table.count)
            let document = try reader.documentKey()
            let target = try reader.number(.targetID)
            if current?.key != document {
                finish()
                current = (document, nil, false)
            }
            if target == 0 {
                var offset = 0
                current?.sequence = Int(try OrderedCode.readSignedIncreasing(value, at: &offset))
            } else {
                current?.targeted = true
            }
            return true
        }
        finish()
        return orphans
    }

    /// Deletes a document's rows, its sentinel and its index entries.
    private func remove(_ key: DocumentKey, _ iterator: LevelDB.Iterator, _ writes: LevelDB.Batch) throws {
        let row = IOSLevelDBSchema.remoteDocument(key)
        if let readTime = try database.get(row, { try $0.map(IOSLevelDBSchema.readTime(ofDocumentValue:)) }) {
            writes.delete(IOSLevelDBSchema.readTime(key.collectionPath, readTime, documentID: key.documentID))
        }
        writes.delete(row)
        writes.delete(IOSLevelDBSchema.documentTarget(key, targetID: 0))
        let name = key.path.canonicalString
        for (id, _) in indexes {
            let prefix = IOSLevelDBSchema.indexEntryByDocumentPrefix(id, documentName: name)
            try iterator.forEach(prefix: prefix) { key, entry in
                writes.delete(Array(entry))
                writes.delete(Array(key))
                return true
            }
        }
    }
}
