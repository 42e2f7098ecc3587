import CairnModel

/// The field indexes of the cache (Docs/LocalStore.md §3 and §8): per configured index the ordered set of its
/// entries over the REMOTE documents (local writes are merged in by the query engine) and which documents have
/// which entries, and the backfill jobs still to run.
///
/// Entries are not stored in the log: after open, and when indexes are added, the ids of every document of
/// their collection group are queued in one job per group, and ``LocalStore/backfillIndexes(maxDocuments:)``
/// indexes them a bounded number at a time. Every document change is applied to every index at once (queued
/// or not), so an index whose job is done is exact; until then queries do not use it.
///
/// ```swift
/// var view = FieldIndexView()
/// view.replaceIndexes([byAuthor], documentsIn: { group in idsByCollection(of: group) })
/// view.update(document)                      // on every remote change
/// view.readyIndexes                          // [] until the job of byAuthor is done
/// ```
struct FieldIndexView {
    /// One index and its entries, in plain bytes (no key or array per entry).
    struct State {
        let index: FieldIndex
        var entries = SortedEntrySet()
        /// Each entry again, behind an 8-byte hash of its document's encoded key: the entries of one document
        /// are one run here (shared only with documents of the same hash, told apart by the key at the end of
        /// each sort key), so a changed or removed document finds its old entries.
        var byDocument = SortedEntrySet()
        /// Whether the document key at the end of each sort key is encoded descending.
        var keyDescending: Bool { index.directionalSegments.last?.isDescending ?? false }
    }

    /// The documents of one collection group still to index for the indexes added together (Firebase
    /// backfills per collection group too): each document is decoded once for all of them.
    struct BackfillJob {
        var indexes: [FieldIndex]
        /// The collections of the group, each with its documents when the job began (a copy of the view's
        /// bucket, shared until either changes) and how many of them are still to index (taken from the end).
        var pending: [(collection: ResourcePath, documents: DocumentBucket, left: Int)]
        var remaining: Int
        let total: Int
    }

    private(set) var states: [State] = []
    private(set) var jobs: [BackfillJob] = []
    /// Whether the query engine creates indexes for slow queries.
    var autoCreationEnabled = false
    /// The current configuration event and its sequence number (replay keeps the newest).
    var configurationRecord: (reference: EventReference, sequence: UInt64)?

    var indexes: [FieldIndex] { states.map(\.index) }

    /// The indexes whose backfill is done: queries may use them.
    var readyIndexes: [FieldIndex] {
        let pending = Set(jobs.flatMap(\.indexes))
        return indexes.filter { !pending.contains($0) }
    }

    /// Makes `indexes` the configured ones, in that order: indexes already present keep their entries and
    /// backfill, the others are dropped, and the new ones of each collection group start empty with one backfill
    /// job over the collections and documents `documentsIn(group)` returns (the view's buckets, shared, nothing
    /// is copied or decoded).
    mutating func replaceIndexes(_ indexes: [FieldIndex], documentsIn: (String) -> [(collection: ResourcePath, documents: DocumentBucket)]) {
        var existing: [FieldIndex: State] = [:]
        for state in states { existing[state.index] = state }
        let kept = Set(indexes)
        jobs = jobs.compactMap { job in
            var job = job
            job.indexes.removeAll { !kept.contains($0) }
            return job.indexes.isEmpty ? nil : job
        }
        var added: [String: [FieldIndex]] = [:]
        var groups: [String] = []
        states = indexes.map { index in
            if let state = existing[index] { return state }
            if added[index.collectionGroup] == nil { groups.append(index.collectionGroup) }
            added[index.collectionGroup, default: []].append(index)
            return State(index: index)
        }
        for group in groups {
            let pending = documentsIn(group).filter { !$0.documents.isEmpty }.map { ($0.collection, $0.documents, $0.documents.count) }
            let count = pending.reduce(0) { $0 + $1.2 }
            if count > 0 { jobs.append(BackfillJob(indexes: added[group]!, pending: pending, remaining: count, total: count)) }
        }
    }

    /// Re-indexes `document` (a remote document's new state) in every index of its collection group, ready or
    /// not; a document that does not exist leaves them.
    mutating func update(_ document: Document) {
        for position in states.indices where Self.sameGroup(states[position].index, document.key) {
            Self.reindex(&states[position], document.key, document.exists ? document : nil)
        }
    }

    /// Removes `key` from every index (the document left the cache).
    mutating func remove(_ key: DocumentKey) {
        for position in states.indices where Self.sameGroup(states[position].index, key) {
            Self.reindex(&states[position], key, nil)
        }
    }

    /// The next document to backfill: the job it belongs to (the least advanced job) and its key, left queued
    /// until ``backfill(job:_:_:)``; `nil` when every index is ready.
    func nextToBackfill() -> (job: Int, key: DocumentKey)? {
        guard let job = jobs.indices.min(by: { progress(of: jobs[$0]) < progress(of: jobs[$1]) }) else { return nil }
        let (collection, documents, left) = jobs[job].pending[jobs[job].pending.count - 1]
        return (job, DocumentKey(path: collection.appending(documents.id(at: left - 1))))
    }

    /// Indexes `document` (nil when it no longer exists) in every index of the job and takes its key off the
    /// job's queue; a job whose queue empties is done, and its indexes serve queries from now on.
    mutating func backfill(job: Int, _ key: DocumentKey, _ document: Document?) {
        let last = jobs[job].pending.count - 1
        jobs[job].pending[last].left -= 1
        if jobs[job].pending[last].left == 0 { jobs[job].pending.removeLast() }
        jobs[job].remaining -= 1
        for index in jobs[job].indexes {
            guard let position = states.firstIndex(where: { $0.index == index }) else { continue }
            Self.reindex(&states[position], key, document)
        }
        if jobs[job].pending.isEmpty { jobs.remove(at: job) }
    }

    /// The documents with an entry of `index` in `ranges`, each once; adds the entries read to `entriesRead`.
    func keys(of index: FieldIndex, in ranges: [IndexRange], entriesRead: inout Int) -> Set<DocumentKey> {
        var keys = Set<DocumentKey>()
        for range in ranges {
            entriesRead += visit(index, in: range) { key in
                keys.insert(key)
                return true
            }
        }
        return keys
    }

    /// Calls `body` with the document key of each entry of `index` in `range`, in sort-key order, while it
    /// returns true; returns the number of entries read.
    func visit(_ index: FieldIndex, in range: IndexRange, _ body: (DocumentKey) throws -> Bool) rethrows -> Int {
        guard let state = states.first(where: { $0.index == index }) else { return 0 }
        let descending = state.keyDescending
        var read = 0
        try state.entries.forEach(in: range) { sortKey, keyStart in
            read += 1
            // Every entry was built from a document key: the decoding cannot fail.
            guard let key = IndexKeyEncoder.documentKey(decoding: UnsafeRawBufferPointer(rebasing: sortKey[keyStart...]), descending: descending)
            else { return true }
            return try body(key)
        }
        return read
    }

    /// Every entry of `index` in order (tests compare them with entries computed from the documents).
    func entries(of index: FieldIndex) -> [IndexViewEntry] {
        guard let state = states.first(where: { $0.index == index }) else { return [] }
        return state.entries.all.compactMap { sortKey, keyStart in
            sortKey[keyStart...].withUnsafeBytes { IndexKeyEncoder.documentKey(decoding: $0, descending: state.keyDescending) }
                .map { IndexViewEntry(sortKey: sortKey, key: $0) }
        }
    }

    /// The backfill progress of every index, in configuration order.
    var statuses: [FieldIndexStatus] {
        states.map { state in
            let job = jobs.first { $0.indexes.contains(state.index) }
            return FieldIndexStatus(
                index: state.index, entryCount: state.entries.count, documentsToBackfill: job?.remaining ?? 0,
                documentsBackfilled: job.map { $0.total - $0.remaining } ?? 0)
        }
    }

    private func progress(of job: BackfillJob) -> Double { Double(job.total - job.remaining) / Double(job.total) }

    /// Replaces the entries of `key` in `state` with those of `document` (none for nil).
    private static func reindex(_ state: inout State, _ key: DocumentKey, _ document: Document?) {
        var encoder = IndexKeyEncoder()
        encoder.appendDocumentKey(key, descending: state.keyDescending)
        let encodedKey = encoder.bytes
        let hash = encodedKey.withUnsafeBytes { ByteKeyTable.hash($0) }
        let prefix = (0..<8).map { UInt8(truncatingIfNeeded: hash >> (56 - 8 * $0)) }
        var old: [[UInt8]] = []
        state.byDocument.forEach(prefix: prefix) { entry, keyStart in
            if entry[keyStart...].elementsEqual(encodedKey) { old.append(Array(entry[prefix.count...])) }
            return true
        }
        for sortKey in old {
            state.entries.remove(sortKey)
            state.byDocument.remove(prefix + sortKey)
        }
        guard let document else { return }
        for entry in state.index.entries(for: document) {
            let keyStart = (entry.arrayValue?.count ?? 0) + entry.directionalValue.count
            state.entries.insert(entry.sortKey, keyStart: keyStart)
            state.byDocument.insert(prefix + entry.sortKey, keyStart: prefix.count + keyStart)
        }
    }
}

/// The state of one field index, for inspection tools: how many entries it holds and how far its backfill is.
///
/// ```swift
/// for status in store.fieldIndexStatuses where !status.isReady {
///     print(status.index, "\(status.documentsBackfilled)/\(status.documentsBackfilled + status.documentsToBackfill)")
/// }
/// ```
package struct FieldIndexStatus: Sendable, Hashable {
    package var index: FieldIndex
    /// Entries in the index (one per document, or one per distinct array element with a contains segment).
    package var entryCount: Int
    /// Documents of the collection group not indexed yet; the index serves queries once this is 0.
    package var documentsToBackfill: Int
    /// Documents the backfill has indexed since the index was added or the cache opened.
    package var documentsBackfilled: Int

    /// True when the backfill is done and queries use the index.
    package var isReady: Bool { documentsToBackfill == 0 }
}

extension FieldIndexView {
    /// Whether the document at `key` is in `index`'s collection group (ids compared by their UTF-8 bytes).
    static func sameGroup(_ index: FieldIndex, _ key: DocumentKey) -> Bool {
        index.collectionGroup.utf8.elementsEqual(key.collectionGroup.utf8)
    }
}
