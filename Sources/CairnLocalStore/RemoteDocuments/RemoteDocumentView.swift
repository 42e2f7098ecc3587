import CairnModel

/// What the view keeps per cached document: where its latest event is and what replay learned from the
/// event's header. About 60 bytes; bodies stay in the log.
struct RemoteDocumentEntry {
    var reference: EventReference
    var state: Document.State
    var version: Timestamp
    var readTime: Timestamp
    var hasCommittedMutations: Bool
    /// The sequence number of the event (an LSN in persistent mode): LRU recency.
    var sequence: UInt64
}

/// The remote documents view: the last known server state of every cached document, grouped by collection so
/// that a collection query reads one bucket and a collection-group query the buckets of its group. Documents
/// that do not exist (tombstones) or whose contents are unknown live apart, so scans never visit them.
struct RemoteDocumentView {
    /// Existing documents: collection path → document id → entry.
    private(set) var collections: [ResourcePath: [String: RemoteDocumentEntry]] = [:]
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
            collections[collection, default: [:]][key.documentID] = entry
            foundCount += 1
        } else {
            absent[key] = entry
        }
        return previous
    }

    /// Adds the existing documents replay found in `collection`; returns the entries that lost to an entry
    /// already there for the same key (the lower sequence number loses).
    mutating func insertReplayed(
        _ documents: [(id: String, entry: RemoteDocumentEntry)], collection: ResourcePath
    ) -> [RemoteDocumentEntry] {
        var losers: [RemoteDocumentEntry] = []
        var bucket = collections.removeValue(forKey: collection) ?? [:]
        if bucket.isEmpty, !documents.isEmpty, let group = collection.lastSegment { groups[group, default: []].insert(collection) }
        bucket.reserveCapacity(bucket.count + documents.count)
        for (id, entry) in documents {
            if let current = bucket[id] {
                losers.append(current.sequence > entry.sequence ? entry : current)
                if current.sequence < entry.sequence { bucket[id] = entry }
            } else {
                bucket[id] = entry
                foundCount += 1
            }
        }
        if !bucket.isEmpty { collections[collection] = bucket }
        return losers
    }

    /// Points `key`'s entry at its record's new place after compaction moved it from `from`.
    mutating func relocate(_ key: DocumentKey, from: EventReference, to: EventReference) {
        if absent[key]?.reference == from {
            absent[key]!.reference = to
        } else if collections[key.collectionPath]?[key.documentID]?.reference == from {
            collections[key.collectionPath]![key.documentID]!.reference = to
        }
    }

    /// ``relocate(_:from:to:)`` for the key `collection/documentID`, without building the key unless the
    /// document is absent (a tombstone or unknown).
    mutating func relocate(collection: ResourcePath, documentID: String, from: EventReference, to: EventReference) {
        if collections[collection]?[documentID]?.reference == from {
            collections[collection]![documentID]!.reference = to
        } else if !absent.isEmpty {
            var segments = collection.segments
            segments.append(documentID)
            relocate(DocumentKey(path: ResourcePath(segments: segments)), from: from, to: to)
        }
    }

    /// Forgets `key`; returns the entry it had.
    @discardableResult
    mutating func remove(_ key: DocumentKey) -> RemoteDocumentEntry? {
        if let previous = absent.removeValue(forKey: key) { return previous }
        let collection = key.collectionPath
        guard let previous = collections[collection]?.removeValue(forKey: key.documentID) else { return nil }
        foundCount -= 1
        if collections[collection]!.isEmpty {
            collections[collection] = nil
            groups[key.collectionGroup]?.remove(collection)
            if groups[key.collectionGroup]?.isEmpty == true { groups[key.collectionGroup] = nil }
        }
        return previous
    }

    /// Every cached document, existing or not (garbage collection).
    func allEntries() -> [(key: DocumentKey, entry: RemoteDocumentEntry)] {
        var entries = absent.map { ($0.key, $0.value) }
        entries.reserveCapacity(absent.count + foundCount)
        for (path, bucket) in collections {
            for (id, entry) in bucket {
                var segments = path.segments
                segments.append(id)
                entries.append((DocumentKey(path: ResourcePath(segments: segments)), entry))
            }
        }
        return entries
    }

    /// The existing documents a query over `path` (a collection) or collection group may match.
    func candidates(collection path: ResourcePath) -> [(key: DocumentKey, entry: RemoteDocumentEntry)] {
        guard let bucket = collections[path] else { return [] }
        return bucket.map { (DocumentKey(path: path.appending($0.key)), $0.value) }
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
