import CairnModel

/// The remote documents view: the last known server state of every cached document, grouped by collection so
/// that a collection query reads one bucket and a collection-group query the buckets of its group. Documents
/// that do not exist (tombstones) or whose contents are unknown live apart, so scans never visit them.
struct RemoteDocumentView {
    /// Existing documents: collection path → its documents (ids and packed entries).
    private(set) var collections: [ResourcePath: DocumentBucket] = [:]
    /// Documents known not to exist, or with unknown contents.
    private(set) var absent: [DocumentKey: RemoteDocumentEntry] = [:]
    /// Collection group (last collection id) → the collection paths that hold documents.
    private(set) var groups: [String: Set<ResourcePath>] = [:]
    private(set) var foundCount = 0

    func entry(for key: DocumentKey) -> RemoteDocumentEntry? {
        collections[key.collectionPath]?[key.documentID] ?? absent[key]
    }

    /// Records the latest event for `key`; returns the entry it replaces, if any.
    @discardableResult
    mutating func set(_ entry: RemoteDocumentEntry, for key: DocumentKey) -> RemoteDocumentEntry? {
        let previous = remove(key)
        if entry.state == .found {
            let collection = key.collectionPath
            if collections[collection] == nil { groups[key.collectionGroup, default: []].insert(collection) }
            collections[collection, default: DocumentBucket()].set(entry, for: key.documentID)
            foundCount += 1
        } else {
            absent[key] = entry
        }
        return previous
    }

    /// Adds the existing documents replay found in `collection` (a bucket of ids new to it, or to a view that
    /// has none of the collection yet); returns the entries that lost to an entry already there for the same
    /// key (the lower sequence number loses).
    mutating func insertReplayed(_ documents: DocumentBucket, collection: ResourcePath) -> [RemoteDocumentEntry] {
        guard !documents.isEmpty else { return [] }
        guard var bucket = collections.removeValue(forKey: collection) else {
            if let group = collection.lastSegment { groups[group, default: []].insert(collection) }
            collections[collection] = documents
            foundCount += documents.count
            return []
        }
        var losers: [RemoteDocumentEntry] = []
        for position in 0..<documents.count {
            let entry = documents.entries[position]
            documents.withID(at: position) { id in
                if let current = bucket.position(of: id).map({ bucket.entries[$0] }) {
                    losers.append(current.sequence > entry.sequence ? entry : current)
                    if current.sequence < entry.sequence { bucket.set(entry, for: id) }
                } else {
                    bucket.set(entry, for: id)
                    foundCount += 1
                }
            }
        }
        collections[collection] = bucket
        return losers
    }

    /// Points `key`'s entry at its record's new place after compaction moved it from `from`.
    mutating func relocate(_ key: DocumentKey, from: EventReference, to: EventReference) {
        if absent[key]?.reference == from {
            absent[key]!.reference = to
        } else {
            // Through the dictionary's in-place accessor: a bucket bound to a local would be copied by the write.
            _ = collections[key.collectionPath]?.relocate(key.documentID, from: from, to: to)
        }
    }

    /// ``relocate(_:from:to:)`` for the key `collection/documentID` (the id's UTF-8 bytes), without building the
    /// key unless the document is absent (a tombstone or unknown).
    mutating func relocate(
        collection: ResourcePath, documentID: UnsafeRawBufferPointer, from: EventReference, to: EventReference
    ) {
        if collections[collection]?.relocate(documentID, from: from, to: to) == true { return }
        if !absent.isEmpty {
            relocate(DocumentKey(path: collection.appending(String(decoding: documentID, as: UTF8.self))), from: from, to: to)
        }
    }

    /// Forgets `key`; returns the entry it had.
    @discardableResult
    mutating func remove(_ key: DocumentKey) -> RemoteDocumentEntry? {
        if let previous = absent.removeValue(forKey: key) { return previous }
        let collection = key.collectionPath
        guard let previous = collections[collection]?.remove(key.documentID) else { return nil }
        foundCount -= 1
        if collections[collection]!.isEmpty {
            collections[collection] = nil
            groups[key.collectionGroup]?.remove(collection)
            if groups[key.collectionGroup]?.isEmpty == true { groups[key.collectionGroup] = nil }
        }
        return previous
    }

    /// Calls `body` with every cached document, existing or not (garbage collection, inspection); nothing is
    /// copied, and each key is built only for the call.
    func forEachEntry(_ body: (DocumentKey, RemoteDocumentEntry) throws -> Void) rethrows {
        for (key, entry) in absent { try body(key, entry) }
        for (path, bucket) in collections {
            for position in 0..<bucket.count {
                try body(DocumentKey(path: path.appending(bucket.id(at: position))), bucket.entries[position])
            }
        }
    }

    /// The existing documents a query over `path` (a collection) or collection group may match.
    func candidates(collection path: ResourcePath) -> [(key: DocumentKey, entry: RemoteDocumentEntry)] {
        guard let bucket = collections[path] else { return [] }
        return (0..<bucket.count).map { (DocumentKey(path: path.appending(bucket.id(at: $0))), bucket.entries[$0]) }
    }

    func candidates(group: String) -> [(key: DocumentKey, entry: RemoteDocumentEntry)] {
        (groups[group] ?? []).flatMap { candidates(collection: $0) }
    }

    /// The cached documents (found or not) that may be in `query`'s scope: one collection's bucket, the
    /// buckets of a collection group, or the one document of a document query.
    func candidates(for query: Query) -> [(key: DocumentKey, entry: RemoteDocumentEntry)] {
        if let group = query.collectionGroup { return candidates(group: group) }
        if query.path.isDocumentPath {
            let key = DocumentKey(path: query.path)
            return entry(for: key).map { [(key, $0)] } ?? []
        }
        return candidates(collection: query.path)
    }
}
