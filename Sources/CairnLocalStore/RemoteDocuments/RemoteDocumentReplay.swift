import CairnModel

/// The remote-document and eviction events met by replay, resolved into the remote documents view once the
/// scan ends. A record's key of the common shape, `collection/path/id`, is split without parsing
/// (``DocumentKeySplitter``: the collection path is made once per collection) and its entry goes straight into
/// that collection's ``DocumentBucket``, which keeps the entry with the highest sequence number per id: the
/// buckets replay fills are the view's own, so no second table of every key and no array of every entry lives
/// beside them while they are built (Docs/LocalStore.md §3). Evictions (few) are kept apart by their keys'
/// bytes, and so are keys of other shapes.
///
/// The rule is the one the views apply live: of a document's `remoteDocumentChanged` events the one with the
/// highest sequence number wins and every other one is superseded; an eviction with a higher sequence number
/// than the winner removes it too. Compaction may deliver records out of order, so only sequence numbers count.
/// A key's evictions apply to the events of the same key bytes.
///
/// ```swift
/// var replay = RemoteDocumentReplay()
/// if let dead = try replay.noteChanged(key: record.key, entry: entry) { events.retire(dead) }
/// replay.noteEvicted(key: record.key, lsn: record.lsn)
/// try replay.install(into: &view) { events.retire($0) }
/// ```
struct RemoteDocumentReplay {
    private var splitter = DocumentKeySplitter()
    /// Per collection of `splitter`: the latest entry of each document id met, whatever its state.
    private var buckets: [DocumentBucket] = []
    /// The latest entry of each key of another shape, by its bytes.
    private var others: [[UInt8]: RemoteDocumentEntry] = [:]
    /// The highest eviction sequence number of each evicted key, by the key's id in `evictedKeys`.
    private var evictedKeys = ByteKeyTable(expectedCount: 16)
    private var evictedAt: [UInt64] = []

    /// A `remoteDocumentChanged` event; returns the reference it supersedes (the older of it and the entry
    /// kept so far), if any.
    ///
    /// - Throws: `dataLoss` when the first key met of a collection is not a document path.
    mutating func noteChanged(key: UnsafeRawBufferPointer, entry: RemoteDocumentEntry) throws -> EventReference? {
        guard let (collection, documentID) = try splitter.split(key) else {
            let bytes = [UInt8](key)
            guard let current = others[bytes] else {
                others[bytes] = entry
                return nil
            }
            if current.sequence > entry.sequence { return entry.reference }
            others[bytes] = entry
            return current.reference
        }
        if collection == buckets.count { buckets.append(DocumentBucket()) }
        return buckets[collection].keepLatest(entry, for: documentID)?.reference
    }

    /// A `documentEvicted` event.
    mutating func noteEvicted(key: UnsafeRawBufferPointer, lsn: UInt64) {
        let (id, isNew) = evictedKeys.id(for: key)
        if isNew { evictedAt.append(lsn) } else { evictedAt[id] = max(evictedAt[id], lsn) }
    }

    /// Puts every surviving document into `view` (which holds none of them yet); `retire` gets the events an
    /// eviction removed. Consumes what replay gathered: each bucket moves into the view without a copy, trimmed
    /// of its spare capacity one at a time.
    ///
    /// - Throws: `dataLoss` when a key is not a document path.
    mutating func install(into view: inout RemoteDocumentView, retire: (EventReference) -> Void) throws {
        removeEvicted(retire: retire)
        // Documents that do not exist or whose contents are unknown, and keys of other shapes: set one by one.
        var absent: [(key: DocumentKey, entry: RemoteDocumentEntry)] = []
        for collection in buckets.indices {
            var documents = buckets[collection]
            buckets[collection] = DocumentBucket()
            // Downwards, so the entry a removal moves into `position` was already looked at.
            for position in (0..<documents.count).reversed() where documents.entries[position].state != .found {
                let key = DocumentKey(path: splitter.collections[collection].appending(documents.id(at: position)))
                absent.append((key, documents.remove(at: position)))
            }
            documents.shrinkToFit()
            for loser in view.insertReplayed(documents, collection: splitter.collections[collection]) { retire(loser.reference) }
        }
        buckets = []
        for (bytes, entry) in others {
            absent.append((try bytes.withUnsafeBytes { try RemoteDocumentEvent.documentKey(from: $0) }, entry))
        }
        others = [:]
        for (key, entry) in absent {
            if let current = view.entry(for: key), current.sequence > entry.sequence {
                retire(entry.reference)
            } else if let previous = view.set(entry, for: key) {
                retire(previous.reference)
            }
        }
    }

    /// Takes out of the buckets and `others` every entry an eviction of its key with a higher sequence number
    /// removed, retiring it.
    private mutating func removeEvicted(retire: (EventReference) -> Void) {
        for id in evictedAt.indices {
            let lsn = evictedAt[id]
            let target = evictedKeys.withKey(id) { key -> (collection: Int, id: [UInt8])? in
                if let (collection, documentID) = splitter.splitKnown(key) { return (collection, [UInt8](documentID)) }
                let bytes = [UInt8](key)
                if let entry = others[bytes], entry.sequence <= lsn {
                    retire(entry.reference)
                    others[bytes] = nil
                }
                return nil
            }
            guard let (collection, documentID) = target, collection < buckets.count else { continue }
            documentID.withUnsafeBytes { documentID in
                guard let position = buckets[collection].position(of: documentID),
                    buckets[collection].entries[position].sequence <= lsn
                else { return }
                retire(buckets[collection].remove(at: position).reference)
            }
        }
        evictedKeys = ByteKeyTable()
        evictedAt = []
    }
}
