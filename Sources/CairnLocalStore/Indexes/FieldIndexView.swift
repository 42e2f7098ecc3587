import CairnModel

/// The field indexes of the cache (Docs/LocalStore.md §3 and §8): per configured index the ordered set of its
/// entries over the REMOTE documents (local writes are merged in by the query engine), and the backfill jobs
/// still to run.
///
/// Entries are not stored in the log: after open, and when indexes are added, the collections of their
/// collection group are queued (with their numbers of documents) in one job per group, and ``LocalStore/backfillIndexes(maxDocuments:)``
/// indexes them a bounded number at a time. Every document change is applied to every index at once (queued
/// or not), so an index whose job is done is exact; until then queries do not use it.
///
/// ```swift
/// var view = FieldIndexView()
/// view.replaceIndexes([byAuthor], documentsIn: { group in documentCounts(of: group) })
/// view.update([document], previous: [.document(old)])   // on every remote change
/// view.readyIndexes                          // [] until the job of byAuthor is done
/// ```
struct FieldIndexView {
    /// One index and its entries, in plain bytes (no key or array per entry).
    struct State {
        let index: FieldIndex
        var entries = SortedEntrySet()
        /// Whether the document key at the end of each sort key is encoded descending.
        var keyDescending: Bool { index.directionalSegments.last?.isDescending ?? false }
    }

    /// The documents of one collection group still to index for the indexes added together (Firebase
    /// backfills per collection group too): each document is decoded once for all of them.
    struct BackfillJob {
        var indexes: [FieldIndex]
        /// The collections of the group and how many of their documents are still to index: the positions below
        /// `left` in the view's bucket, taken from the end. No copy of a bucket is kept (a change to it would
        /// copy the whole collection for the backfill's duration): the view appends a new document at the end
        /// (indexed by the change itself), and a removal moves the last entry into the removed one's place, so
        /// the positions from `left` on stay indexed whatever changes; a moved entry may be indexed twice, which
        /// changes nothing.
        var pending: [(collection: ResourcePath, left: Int)]
        /// The documents still to index as far as the scheduling knows: the sum of `left`, trimmed when
        /// ``nextToBackfill(in:)`` finds the last collection smaller (``statuses(in:)`` recounts every collection).
        var remaining: Int
        var backfilled = 0
    }

    private(set) var states: [State] = []
    private(set) var jobs: [BackfillJob] = []
    /// How many changed or removed documents had a previous version that could not be read, so that their old
    /// entries were found by scanning the indexes (tests and inspection; 0 on an undamaged log).
    private(set) var fallbackScans = 0
    /// How many index scans those documents took: one per index of their collection groups per batch of changes.
    private(set) var fallbackIndexScans = 0
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
    /// job over the collections `documentsIn(group)` returns with their numbers of documents (nothing is copied
    /// or decoded).
    mutating func replaceIndexes(_ indexes: [FieldIndex], documentsIn: (String) -> [(collection: ResourcePath, count: Int)]) {
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
            let pending = documentsIn(group).filter { $0.count > 0 }.map { (collection: $0.collection, left: $0.count) }
            let count = pending.reduce(0) { $0 + $1.left }
            if count > 0 { jobs.append(BackfillJob(indexes: added[group]!, pending: pending, remaining: count)) }
        }
    }

    /// Whether an index covers documents of `key`'s collection group (only then does a change need the
    /// document's previous version).
    func covers(_ key: DocumentKey) -> Bool {
        states.contains { Self.sameGroup($0.index, key) }
    }

    /// The fields the indexes of `key`'s collection group read (what a previous version must provide).
    func indexedFields(of key: DocumentKey) -> [FieldPath] {
        var fields: [FieldPath] = []
        for state in states where Self.sameGroup(state.index, key) {
            let segments = state.index.directionalSegments + (state.index.arraySegment.map { [$0] } ?? [])
            for segment in segments where !segment.field.isDocumentKey && !fields.contains(segment.field) {
                fields.append(segment.field)
            }
        }
        return fields
    }

    /// Re-indexes remote documents (each key once) in every index of their collection group, ready or not: the
    /// entries of `previous[i]` (the state of `documents[i]` before the change, with at least the indexed fields)
    /// go, those of `documents[i]` come; a document that does not exist has none.
    mutating func update(_ documents: [Document], previous: [PreviousVersion]) {
        removeUnreadable(documents.map(\.key), previous)
        for (document, previous) in zip(documents, previous) {
            for position in states.indices where Self.sameGroup(states[position].index, document.key) {
                Self.removeEntries(previous, from: &states[position])
                for entry in states[position].index.entries(for: document) { Self.insert(entry, into: &states[position]) }
            }
        }
    }

    /// Removes the entries of `keys` (each once; documents that left the cache, `previous[i]` the last state of
    /// `keys[i]`) from every index.
    mutating func remove(_ keys: [DocumentKey], previous: [PreviousVersion]) {
        removeUnreadable(keys, previous)
        for (key, previous) in zip(keys, previous) {
            for position in states.indices where Self.sameGroup(states[position].index, key) {
                Self.removeEntries(previous, from: &states[position])
            }
        }
    }

    /// The next document to backfill: the job it belongs to (the least advanced job) and its key, read from the
    /// view's bucket of its collection (`buckets`), left queued until ``backfill(job:_:_:)``; `nil` when every
    /// index is ready. Positions that the collection no longer has (documents removed since) are dropped first,
    /// and a job with none left is done.
    mutating func nextToBackfill(in buckets: (ResourcePath) -> DocumentBucket?) -> (job: Int, key: DocumentKey)? {
        while let job = jobs.indices.min(by: { progress(of: jobs[$0]) < progress(of: jobs[$1]) }) {
            while let (collection, left) = jobs[job].pending.last {
                let bucket = buckets(collection)
                let available = min(left, bucket?.count ?? 0)
                jobs[job].remaining -= left - available
                if let bucket, available > 0 {
                    jobs[job].pending[jobs[job].pending.count - 1].left = available
                    return (job, DocumentKey(path: collection.appending(bucket.id(at: available - 1))))
                }
                jobs[job].pending.removeLast()
            }
            jobs.remove(at: job)
        }
        return nil
    }

    /// Indexes `document` (nil when it no longer exists) in every index of the job and takes its key off the
    /// job's queue; a job whose queue empties is done, and its indexes serve queries from now on.
    mutating func backfill(job: Int, _ key: DocumentKey, _ document: Document?) {
        let last = jobs[job].pending.count - 1
        jobs[job].pending[last].left -= 1
        if jobs[job].pending[last].left == 0 { jobs[job].pending.removeLast() }
        jobs[job].remaining -= 1
        jobs[job].backfilled += 1
        // The document's entries, if any, are those of its current state already (every change since the job
        // began was applied to its indexes), so inserting them again changes nothing: no removal is needed.
        for index in jobs[job].indexes {
            guard let document, let position = states.firstIndex(where: { $0.index == index }) else { continue }
            for entry in index.entries(for: document) { Self.insert(entry, into: &states[position]) }
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

    /// The backfill progress of every index, in configuration order: a job's documents to go are counted in
    /// the view's buckets of its collections (`buckets`), so documents removed from any of them no longer count.
    func statuses(in buckets: (ResourcePath) -> DocumentBucket?) -> [FieldIndexStatus] {
        states.map { state in
            let job = jobs.first { $0.indexes.contains(state.index) }
            let toBackfill = job?.pending.reduce(0) { $0 + min($1.left, buckets($1.collection)?.count ?? 0) } ?? 0
            return FieldIndexStatus(
                index: state.index, entryCount: state.entries.count, memoryBytes: state.entries.allocatedBytes,
                documentsToBackfill: toBackfill,
                documentsBackfilled: job?.backfilled ?? 0)
        }
    }

    private func progress(of job: BackfillJob) -> Double { Double(job.backfilled) / Double(job.backfilled + job.remaining) }

    private static func insert(_ entry: IndexEntry, into state: inout State) {
        state.entries.insert(entry.sortKey, keyStart: (entry.arrayValue?.count ?? 0) + entry.directionalValue.count)
    }

    /// Removes the entries computed from a previous version that was read (an unreadable one's entries are
    /// gone already: ``removeUnreadable(_:_:)``).
    private static func removeEntries(_ previous: PreviousVersion, from state: inout State) {
        guard case .document(let document) = previous else { return }
        for entry in state.index.entries(for: document) { state.entries.remove(entry.sortKey) }
    }

    /// Removes every entry of the documents among `keys` whose previous version could not be read (rare: its
    /// frame is damaged): one scan per index of their collection groups, O(entries) whatever their number, for
    /// the entries whose sort key ends in one of their keys' encodings (compared from each entry's key offset,
    /// so exactly).
    private mutating func removeUnreadable(_ keys: [DocumentKey], _ previous: [PreviousVersion]) {
        var unreadable: [DocumentKey] = []
        for (key, previous) in zip(keys, previous) {
            if case .unreadable = previous { unreadable.append(key) }
        }
        guard !unreadable.isEmpty else { return }
        fallbackScans += unreadable.count
        for position in states.indices {
            // The encoded keys of the index's group, found by a hash of their bytes (no copy per entry scanned).
            // The state is not copied: its entries are changed below.
            var encodedKeys: [Int: [[UInt8]]] = [:]
            for key in unreadable where Self.sameGroup(states[position].index, key) {
                var encoder = IndexKeyEncoder()
                encoder.appendDocumentKey(key, descending: states[position].keyDescending)
                encodedKeys[encoder.bytes.withUnsafeBytes(Self.hash), default: []].append(encoder.bytes)
            }
            guard !encodedKeys.isEmpty else { continue }
            fallbackIndexScans += 1
            var old: [[UInt8]] = []
            states[position].entries.forEachEntry { sortKey, keyStart in
                let key = UnsafeRawBufferPointer(rebasing: sortKey[keyStart...])
                guard let candidates = encodedKeys[Self.hash(key)], candidates.contains(where: { key.elementsEqual($0) })
                else { return }
                old.append(Array(sortKey))
            }
            for sortKey in old { states[position].entries.remove(sortKey) }
        }
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        return hasher.finalize()
    }
}

extension FieldIndexView {
    /// What a changed or removed remote document had in the indexes before the change, as its previous version
    /// tells: nothing (it did not exist, or is new), the entries of a document, or, when that version could not
    /// be read back, unknown (the indexes are scanned for its key).
    enum PreviousVersion {
        case none
        case document(Document)
        case unreadable
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
    /// The bytes its entries take in memory (the arrays of its entry set, without allocator overhead).
    package var memoryBytes: Int
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
