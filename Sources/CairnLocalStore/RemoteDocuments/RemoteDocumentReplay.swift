import CairnModel

/// The remote-document and eviction events met by replay, resolved into the remote documents view once the
/// scan ends. Per record it only finds the key's id in a ``ByteKeyTable`` (no path is parsed, nothing is
/// allocated) and keeps the entry with the highest sequence number; collection paths are made once per
/// collection, and each collection's ``DocumentBucket`` is allocated once at its final size and filled with the
/// ids' bytes straight from the table (no path or `String` per document).
///
/// The rule is the one the views apply live: of a document's `remoteDocumentChanged` events the one with the
/// highest sequence number wins and every other one is superseded; an eviction with a higher sequence number
/// than the winner removes it too. Compaction may deliver records out of order, so only sequence numbers count.
///
/// ```swift
/// var replay = RemoteDocumentReplay()
/// if let dead = replay.noteChanged(key: record.key, entry: entry) { events.retire(dead) }
/// replay.noteEvicted(key: record.key, lsn: record.lsn)
/// try replay.install(into: &view) { events.retire($0) }
/// ```
struct RemoteDocumentReplay {
    private struct Latest {
        var entry: RemoteDocumentEntry?
        var evictedAt: UInt64 = 0
    }

    private var keys = ByteKeyTable(expectedCount: 1 << 12)
    private var latest: [Latest] = []

    /// A `remoteDocumentChanged` event; returns the reference it supersedes (the older of it and the entry
    /// kept so far), if any.
    mutating func noteChanged(key: UnsafeRawBufferPointer, entry: RemoteDocumentEntry) -> EventReference? {
        let (id, isNew) = keys.id(for: key)
        if isNew {
            latest.append(Latest(entry: entry))
            return nil
        }
        guard let current = latest[id].entry else {
            latest[id].entry = entry
            return nil
        }
        if current.sequence > entry.sequence { return entry.reference }
        latest[id].entry = entry
        return current.reference
    }

    /// A `documentEvicted` event.
    mutating func noteEvicted(key: UnsafeRawBufferPointer, lsn: UInt64) {
        let (id, isNew) = keys.id(for: key)
        if isNew { latest.append(Latest()) }
        latest[id].evictedAt = max(latest[id].evictedAt, lsn)
    }

    /// Puts every surviving document into `view` (which holds none of them yet); `retire` gets the events an
    /// eviction removed.
    ///
    /// - Throws: `dataLoss` when a key is not a document path.
    func install(into view: inout RemoteDocumentView, retire: (EventReference) -> Void) throws {
        var splitter = DocumentKeySplitter()
        // First pass: the collection of each surviving document (-1: another shape), and each collection's size,
        // so that every bucket is allocated once at its final size.
        var collectionOf = [Int32](repeating: -1, count: latest.count)
        var sizes: [(documents: Int, idBytes: Int)] = []
        var others: [(key: DocumentKey, entry: RemoteDocumentEntry)] = []
        for (id, latest) in latest.enumerated() {
            guard let entry = latest.entry else { continue }
            guard entry.sequence > latest.evictedAt else {
                retire(entry.reference)
                continue
            }
            try keys.withKey(id) { key in
                // The common shape, `collection/path/id` written by this code: one bucket per collection.
                guard entry.state == .found, let (collection, documentID) = try splitter.split(key) else {
                    others.append((try RemoteDocumentEvent.documentKey(from: key), entry))
                    return
                }
                if collection == sizes.count { sizes.append((0, 0)) }
                sizes[collection].documents += 1
                sizes[collection].idBytes += documentID.count
                collectionOf[id] = Int32(collection)
            }
        }
        var buckets = sizes.map { size in
            var bucket = DocumentBucket()
            bucket.reserveCapacity(size.documents, idBytes: size.idBytes)
            return bucket
        }
        for (id, collection) in collectionOf.enumerated() where collection >= 0 {
            keys.withKey(id) { key in
                var slash = key.count - 1
                while key[slash] != UInt8(ascii: "/") { slash -= 1 }
                buckets[Int(collection)].set(latest[id].entry!, for: UnsafeRawBufferPointer(rebasing: key[(slash + 1)...]))
            }
        }
        collectionOf = []
        for collection in buckets.indices {
            let documents = buckets[collection]
            buckets[collection] = DocumentBucket()
            for loser in view.insertReplayed(documents, collection: splitter.collections[collection]) { retire(loser.reference) }
        }
        for (key, entry) in others {
            if let current = view.entry(for: key), current.sequence > entry.sequence {
                retire(entry.reference)
            } else if let previous = view.set(entry, for: key) {
                retire(previous.reference)
            }
        }
    }
}
