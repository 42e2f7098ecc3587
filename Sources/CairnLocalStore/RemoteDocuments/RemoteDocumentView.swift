import CairnModel

/// The remote documents view: the last known server state of every cached document, grouped by collection so
/// that a collection query reads one bucket and a collection-group query the buckets of its group. Documents
/// that do not exist (tombstones) or whose contents are unknown live apart, in a bucket of their own keyed by
/// their whole paths, so scans never visit them. Buckets are numbered, so that a ``DocumentHandle`` (bucket
/// number, position) names a document without its key: the LRU orphan queue (``OrphanQueue``) holds handles and
/// lives here, told of every entry that moves (`RemoteDocumentView+Orphans.swift`).
///
/// ```swift
/// var view = RemoteDocumentView()
/// view.set(entry, for: key)                                // nil: it is new
/// view.entry(for: key)?.version
/// view.collections[key.collectionPath]?.count              // 1
/// view.remove(key)
/// ```
struct RemoteDocumentView {
    /// Bucket 0: the absent documents, by path; the others: one per collection, or free (empty, no path).
    private(set) var buckets = [DocumentBucket()]
    /// The collection path of each bucket number (nil for bucket 0 and free numbers).
    private var paths: [ResourcePath?] = [nil]
    private var numbers: [ResourcePath: Int32] = [:]
    private var freeNumbers: [Int32] = []
    /// Collection group (last collection id) → the collection paths that hold documents.
    private(set) var groups: [String: Set<ResourcePath>] = [:]
    private(set) var foundCount = 0
    /// The orphaned documents by orphan sequence number (`RemoteDocumentView+Orphans.swift`).
    private(set) var orphans = OrphanQueue()

    static let absentBucket = 0

    /// The existing documents of each collection: `collections[path]` is its bucket, if it has documents.
    var collections: Collections { Collections(numbers: numbers, buckets: buckets) }

    struct Collections {
        fileprivate let numbers: [ResourcePath: Int32]
        fileprivate let buckets: [DocumentBucket]

        subscript(path: ResourcePath) -> DocumentBucket? { numbers[path].map { buckets[Int($0)] } }
    }

    /// The number of documents known not to exist, or with unknown contents.
    var absentCount: Int { buckets[Self.absentBucket].count }

    func entry(for key: DocumentKey) -> RemoteDocumentEntry? {
        handle(of: key).map { self[$0] }
    }

    subscript(handle: DocumentHandle) -> RemoteDocumentEntry { buckets[Int(handle.bucket)].entries[Int(handle.position)] }

    /// Where `key`'s entry is, if cached.
    func handle(of key: DocumentKey) -> DocumentHandle? {
        if let number = numbers[key.collectionPath], let position = buckets[Int(number)].position(of: key.documentID) {
            return DocumentHandle(bucket: Int(number), position: position)
        }
        guard !buckets[Self.absentBucket].isEmpty else { return nil }
        return Self.withPath(key) { path in
            buckets[Self.absentBucket].position(of: path).map { DocumentHandle(bucket: Self.absentBucket, position: $0) }
        }
    }

    /// The key of the document at `handle`.
    func key(at handle: DocumentHandle) -> DocumentKey {
        let bucket = buckets[Int(handle.bucket)]
        guard let collection = paths[Int(handle.bucket)] else {
            return bucket.withID(at: Int(handle.position)) { path in
                DocumentKey(path: ResourcePath(segments: path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
                    String(decoding: $0, as: UTF8.self)
                }))
            }
        }
        return DocumentKey(path: collection.appending(bucket.id(at: Int(handle.position))))
    }

    /// Records the latest event for `key`; returns the entry it replaces, if any. A queued orphan stays queued
    /// (its entry keeps its slot in the queue, wherever it lands).
    @discardableResult
    mutating func set(_ entry: RemoteDocumentEntry, for key: DocumentKey) -> RemoteDocumentEntry? {
        var entry = entry
        let number = entry.state == .found ? numbers[key.collectionPath].map(Int.init) : Self.absentBucket
        guard let old = handle(of: key) else {
            // A new document is in no queue yet, whatever slot the entry it came from named.
            entry.orphan = 0
            insert(entry, for: key)
            return nil
        }
        let previous = self[old]
        entry.orphan = previous.orphan
        if Int(old.bucket) == number {
            buckets[Int(old.bucket)].replace(entry, at: Int(old.position))
            return previous
        }
        detach(key, at: old)
        let new = insert(entry, for: key)
        if let slot = OrphanQueue.slot(named: entry.orphan) { orphans.move(slot, to: new) }
        return previous
    }

    /// Adds the existing documents replay found in `collection` (a bucket of ids new to it, or to a view that
    /// has none of the collection yet); returns the entries that lost to an entry already there for the same
    /// key (the lower sequence number loses).
    mutating func insertReplayed(_ documents: DocumentBucket, collection: ResourcePath) -> [RemoteDocumentEntry] {
        guard !documents.isEmpty else { return [] }
        guard let number = numbers[collection].map(Int.init) else {
            buckets[bucketNumber(for: collection)] = documents
            foundCount += documents.count
            return []
        }
        var losers: [RemoteDocumentEntry] = []
        for position in 0..<documents.count {
            let entry = documents.entries[position]
            documents.withID(at: position) { id in
                if let current = buckets[number].position(of: id).map({ buckets[number].entries[$0] }) {
                    losers.append(current.sequence > entry.sequence ? entry : current)
                    if current.sequence < entry.sequence { buckets[number].set(entry, for: id) }
                } else {
                    buckets[number].set(entry, for: id)
                    foundCount += 1
                }
            }
        }
        return losers
    }

    /// Points `key`'s entry at its record's new place after compaction moved it from `from`.
    mutating func relocate(_ key: DocumentKey, from: EventReference, to: EventReference) {
        if let number = numbers[key.collectionPath], buckets[Int(number)].relocate(key.documentID, from: from, to: to) { return }
        relocateAbsent(key, from: from, to: to)
    }

    /// ``relocate(_:from:to:)`` for the key `collection/documentID` (the id's UTF-8 bytes), without building the
    /// key unless the document is absent (a tombstone or unknown).
    mutating func relocate(
        collection: ResourcePath, documentID: UnsafeRawBufferPointer, from: EventReference, to: EventReference
    ) {
        if let number = numbers[collection], buckets[Int(number)].relocate(documentID, from: from, to: to) { return }
        if !buckets[Self.absentBucket].isEmpty {
            relocateAbsent(DocumentKey(path: collection.appending(String(decoding: documentID, as: UTF8.self))), from: from, to: to)
        }
    }

    /// Forgets `key` (and takes it out of the orphan queue); returns the entry it had.
    @discardableResult
    mutating func remove(_ key: DocumentKey) -> RemoteDocumentEntry? {
        guard let handle = handle(of: key) else { return nil }
        let previous = self[handle]
        if let slot = OrphanQueue.slot(named: previous.orphan) { orphans.remove(slot, entries: &buckets) }
        detach(key, at: handle)
        return previous
    }

    /// Calls `body` with every cached document, existing or not (garbage collection, inspection); nothing is
    /// copied, and each key is built only for the call.
    func forEachEntry(_ body: (DocumentKey, RemoteDocumentEntry) throws -> Void) rethrows {
        for number in buckets.indices {
            for position in 0..<buckets[number].count {
                let handle = DocumentHandle(bucket: number, position: position)
                try body(key(at: handle), self[handle])
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

    /// Runs `body` with the orphan queue and the buckets, whose entries' ``RemoteDocumentEntry/orphan`` fields the
    /// queue writes (`RemoteDocumentView+Orphans.swift`).
    mutating func updateOrphans<T>(_ body: (inout OrphanQueue, inout [DocumentBucket]) -> T) -> T { body(&orphans, &buckets) }

    /// Adds `entry` for `key`, which has none; returns where it went.
    @discardableResult
    private mutating func insert(_ entry: RemoteDocumentEntry, for key: DocumentKey) -> DocumentHandle {
        let number: Int
        if entry.state == .found {
            number = bucketNumber(for: key.collectionPath)
            buckets[number].set(entry, for: key.documentID)
            foundCount += 1
        } else {
            number = Self.absentBucket
            Self.withPath(key) { _ = buckets[number].set(entry, for: $0) }
        }
        return DocumentHandle(bucket: number, position: buckets[number].count - 1)
    }

    /// Removes the entry at `handle` (`key`'s) from its bucket, telling the orphan queue about the entry that
    /// takes its position; the caller handles the removed entry's place in the queue.
    private mutating func detach(_ key: DocumentKey, at handle: DocumentHandle) {
        let number = Int(handle.bucket)
        let position = Int(handle.position)
        if number == Self.absentBucket {
            Self.withPath(key) { _ = buckets[number].remove($0) }
        } else {
            buckets[number].remove(key.documentID)
            foundCount -= 1
        }
        if position < buckets[number].count, let slot = OrphanQueue.slot(named: buckets[number].entries[position].orphan) {
            orphans.move(slot, to: handle)
        }
        if number != Self.absentBucket && buckets[number].isEmpty { freeBucket(number) }
    }

    /// The bucket number of `collection`, giving it one (and its group a member) when it has none.
    private mutating func bucketNumber(for collection: ResourcePath) -> Int {
        if let number = numbers[collection] { return Int(number) }
        let number: Int
        if let free = freeNumbers.popLast() {
            number = Int(free)
            paths[number] = collection
        } else {
            number = buckets.count
            buckets.append(DocumentBucket())
            paths.append(collection)
        }
        numbers[collection] = Int32(number)
        if let group = collection.lastSegment { groups[group, default: []].insert(collection) }
        return number
    }

    private mutating func freeBucket(_ number: Int) {
        guard let collection = paths[number] else { return }
        buckets[number] = DocumentBucket()
        paths[number] = nil
        numbers[collection] = nil
        freeNumbers.append(Int32(number))
        if let group = collection.lastSegment {
            groups[group]?.remove(collection)
            if groups[group]?.isEmpty == true { groups[group] = nil }
        }
    }

    private mutating func relocateAbsent(_ key: DocumentKey, from: EventReference, to: EventReference) {
        guard !buckets[Self.absentBucket].isEmpty else { return }
        Self.withPath(key) { _ = buckets[Self.absentBucket].relocate($0, from: from, to: to) }
    }

    /// Calls `body` with the UTF-8 bytes of `key`'s path (the absent bucket's ids).
    private static func withPath<T>(_ key: DocumentKey, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var path = key.path.canonicalString
        return try path.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
