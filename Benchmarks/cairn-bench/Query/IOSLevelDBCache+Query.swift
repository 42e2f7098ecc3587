// The LevelDB baseline's query path, following Firebase iOS's `QueryEngine` / `LocalDocumentsView` /
// `LevelDbRemoteDocumentCache` / `LevelDbIndexManager`:
// - index: when configured indexes serve the query (the same `IndexPlanner` rules as the SQLite column), seek
//   and iterate `index_entries` over each planned range (`GetDocumentsMatchingTarget`; at most `limit` rows per
//   range when one fully serving index answers a limit query, as iOS re-runs partial-index limit queries without
//   the limit), point-get those documents from `remote_document` and their overlays, then
//   `AppendRemainingResults`: the collection's documents read after the index's offset (a seek in
//   `remote_document_read_time` to the offset's read time, then a walk keeping the rows after the offset: none
//   here, but every document shares that read time, so the walk reads all of the collection's keys, as iOS's
//   would) and its overlays;
// - scan: per collection (a collection group's found through `collection_parent`, as
//   `GetDocumentsMatchingCollectionGroupQuery`), the collection's overlays, then `GetDocumentsMatchingQuery`:
//   iterate the collection's `remote_document_read_time` rows from the offset and point-get every
//   `remote_document`, decoding each and keeping matches and overlaid documents. (iOS decodes those documents on
//   a background thread pool; here they are decoded on the calling thread, as the other columns do.)
// Either way the overlays are applied and the documents filtered, sorted and limited by the query.

import CairnModel

extension IOSLevelDBCache {
    func execute(_ query: Query) throws -> [Document] {
        if let scans = indexScans(query) { return try executeUsingIndex(query, scans) }
        var documents: [DocumentKey: Document] = [:]
        for collection in try collectionPaths(query) {
            documents.merge(try collectionDocuments(query, collection, after: nil)) { _, new in new }
        }
        return query.results(from: documents.values)
    }

    /// The index scans of the query, when every term of it has a serving index; nil for a scan.
    private func indexScans(_ query: Query) -> [IndexScan]? {
        guard !query.matchesAllDocuments, !indexes.isEmpty else { return nil }
        return IndexPlanner.plan(for: query, among: indexes.map(\.index))
    }

    private func executeUsingIndex(_ query: Query, _ scans: [IndexScan]) throws -> [Document] {
        let rowLimit: Int? =
            if scans.count == 1, query.limitType == .first, let limit = query.limit,
                let matcher = try? TargetIndexMatcher(scans[0].term), !matcher.isPartial(scans[0].index)
            { limit } else { nil }
        var keys: [DocumentKey] = []
        var seen = Set<String>()
        let iterator = try database.makeIterator()
        for scan in scans {
            guard let id = indexes.first(where: { $0.index == scan.index })?.id else { continue }
            for range in scan.ranges {
                let bounds = try IndexColumns.split(range, scan, engine: "leveldb")
                let lower = IOSLevelDBSchema.indexEntry(id, array: bounds.array, directional: bounds.lower)
                let upper = IOSLevelDBSchema.indexEntry(id, array: bounds.array, directional: bounds.upper)
                let prefix = IOSLevelDBSchema.indexEntryPrefix(id, array: bounds.array)
                var count = 0
                try iterator.forEach(prefix: prefix, from: lower) { key, _ in
                    guard key.lexicographicallyPrecedes(upper), count < rowLimit ?? .max else { return false }
                    count += 1
                    let name = try Self.documentName(ofIndexEntry: key, prefixLength: prefix.count)
                    if seen.insert(name).inserted { keys.append(DocumentKey(path: try ResourcePath(parsing: name))) }
                    return true
                }
            }
        }
        var documents = try remoteDocuments(keys)
        apply(try overlays(for: keys), to: &documents)
        // AppendRemainingResults: documents changed after the index's offset, and the collection's overlays.
        for collection in try collectionPaths(query) {
            documents.merge(try collectionDocuments(query, collection, after: indexOffset)) { _, new in new }
        }
        return query.results(from: documents.values)
    }

    /// The document name (last string component before the terminator) of an `index_entries` key.
    private static func documentName(ofIndexEntry key: UnsafeRawBufferPointer, prefixLength: Int) throws -> String {
        var reader = OrderedKeyReader(key)
        try reader.skip(prefixLength)
        _ = try reader.string(.indexDirectionalValue)
        _ = try reader.string(.indexOrderedDocumentKey)
        return try reader.string(.documentID)
    }

    /// The collections a query reads: its own, or every `parent/group` of `collection_parent`.
    private func collectionPaths(_ query: Query) throws -> [ResourcePath] {
        guard let group = query.collectionGroup else { return [query.path] }
        let prefix = IOSLevelDBSchema.collectionParentPrefix(group)
        var collections: [ResourcePath] = []
        try database.makeIterator().forEach(prefix: prefix) { key, _ in
            var reader = OrderedKeyReader(key)
            try reader.skip(prefix.count)
            let collection = try reader.path().appending(group)
            if query.path.isPrefix(of: collection) { collections.append(collection) }
            return true
        }
        return collections
    }

    /// `GetDocumentsMatchingCollectionQuery` for one collection: its overlays, then the remote documents read
    /// after `offset` (all of them without one) that match or are overlaid, with the overlays applied.
    private func collectionDocuments(
        _ query: Query, _ collection: ResourcePath, after offset: (readTime: Timestamp, key: DocumentKey)?
    ) throws -> [DocumentKey: Document] {
        let overlays = try collectionOverlays(collection, sinceBatch: -1)
        let prefix = IOSLevelDBSchema.readTimePrefix(collection)
        let start = IOSLevelDBSchema.readTime(collection, offset?.readTime ?? Timestamp(seconds: 0, nanoseconds: 0))
        var keys: [DocumentKey] = []
        try database.makeIterator().forEach(prefix: prefix, from: start) { key, _ in
            var reader = OrderedKeyReader(key)
            try reader.skip(prefix.count)
            let readTime = try reader.snapshotVersion()
            let document = DocumentKey(path: collection.appending(try reader.string(.documentID)))
            if let offset, (readTime, document) <= (offset.readTime, offset.key) { return true }
            keys.append(document)
            return true
        }
        var documents = try remoteDocuments(keys).filter { query.matches($0.value) || overlays[$0.key] != nil }
        apply(overlays, to: &documents)
        return documents
    }

    /// `GetAll(keys)`: one point get of `remote_document` per key; absent documents are left out.
    func remoteDocuments(_ keys: [DocumentKey]) throws -> [DocumentKey: Document] {
        let database = try database
        var documents: [DocumentKey: Document] = [:]
        documents.reserveCapacity(keys.count)
        for key in keys {
            if let document = try database.get(IOSLevelDBSchema.remoteDocument(key), { value in
                try value.map { try IOSLevelDBSchema.document(key, $0) }
            }) {
                documents[key] = document
            }
        }
        return documents
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
