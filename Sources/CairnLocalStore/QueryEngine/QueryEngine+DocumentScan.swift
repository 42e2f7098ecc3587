import CairnModel

/// Reading many cached documents at once (the query engine's scans). Four things keep it cheap:
/// - **field values first** — a scan reads only the fields its filters (and, for a limit query, its order-by)
///   need: from the ``FieldValueCache`` when it has them, else from the encoded bytes with single-field reads
///   (``DocumentCodec/value(at:in:)``, about ten times cheaper than a full decode), and fills the cache;
/// - **decode only what can be in the answer** — the documents whose values pass every filter, or for a limit
///   query that the scan can rank on its own, only the first `limit` of them (``ScanPlan``, ``TopSelection``);
/// - **log order** — the documents it does read are sorted by where their events sit in the log (segment,
///   frame, record), so each compressed frame is decompressed once, and frames read for a scan do not push the
///   frame cache's contents out;
/// - **no copies, keys built late** — record bytes are read in place, and a document's key is built only when
///   the document is decoded or ranked.
extension QueryEngine {
    /// The filters a scan tests before decoding: the query's top-level field filters, except those on
    /// `__name__` (they test the key, which needs no decoding) — an OR tree is left to `query.matches`.
    static func prefilters(of query: Query) -> [FieldFilter] {
        query.filters.compactMap { filter in
            guard case .field(let fieldFilter) = filter, !fieldFilter.field.isDocumentKey else { return nil }
            return fieldFilter
        }
    }

    /// The existing documents among `candidates` that pass `filters`, read in log order; every candidate read
    /// counts in the report's `documentsRead`, every decoded one in `documentsDecoded`.
    ///
    /// ```swift
    /// let documents = try scanRemoteDocuments(changed, filters: Self.prefilters(of: query), report: &report)
    /// ```
    func scanRemoteDocuments(
        _ candidates: [(key: DocumentKey, entry: RemoteDocumentEntry)], filters: [FieldFilter],
        report: inout QueryExecutionReport
    ) throws -> [Document] {
        let found = candidates.filter { $0.entry.state == .found }.sorted { $0.entry.reference < $1.entry.reference }
        report.documentsRead += found.count
        var documents: [Document] = []
        try events.forEachValue(of: found.map(\.entry.reference), fillCache: true) { position, value in
            let (key, entry) = found[position]
            if !filters.isEmpty, !(try RemoteDocumentEvent.passes(filters, value: value, key: key)) { return }
            documents.append(try LocalDocumentsView.document(key, entry, value))
        }
        report.documentsDecoded += documents.count
        return documents
    }

    /// The remote documents of the query's collection (or collection group) that may match it, without
    /// pending writes: every one that passes the field filters, or for a ranked limit query the first `limit`
    /// of those in query order; plus how many matching ones a ranked scan left undecoded. `documentsRead`
    /// counts every document looked at, `documentsDecoded` those decoded.
    ///
    /// ```swift
    /// let scan = try scanCollections(query, report: &report)   // query: a collection or collection group
    /// ```
    func scanCollections(_ query: Query, report: inout QueryExecutionReport) throws -> (documents: [Document], matchesLeftOut: Int) {
        let plan = ScanPlan(query)
        let collections = query.collectionGroup.map { Array(remoteDocuments.groups[$0] ?? []) } ?? [query.path]
        let caching = fieldValueCache.capacity > 0
        var columns = collections.map { collection in
            plan.fields.map { fieldValueCache.take(FieldValueCache.ColumnKey(collection: collection, field: $0)) }
        }
        defer { returnColumns(columns, of: collections, fields: plan.fields) }
        // The buckets are read only: positions in them stay valid for the whole scan.
        let buckets = collections.map { remoteDocuments.collections[$0] }
        var overlaid: [ResourcePath: Set<String>] = [:]
        for key in mutationQueue.overlays.keys { overlaid[key.collectionPath, default: []].insert(key.documentID) }

        var selection = plan.selection.map { selection in
            TopSelection<RankedCandidate>(limit: selection.limit) { Self.ranks($0, before: $1, selection, collections, buckets) }
        }
        var matches = 0
        var passed: [ScanCandidate] = []
        var misses: [ScanCandidate] = []
        var documents: [Document] = []
        var values = [Value?](repeating: nil, count: plan.fields.count)
        // Ranks or keeps a candidate whose field values are in `values`; true when it must be decoded now.
        func consider(_ candidate: () -> ScanCandidate) -> Bool {
            guard plan.passes(values), plan.hasOrderFields(values) else { return false }
            matches += 1
            guard selection != nil else { return true }
            selection!.offer(RankedCandidate(candidate: candidate(), values: values))
            return false
        }

        for (index, collection) in collections.enumerated() {
            guard let bucket = buckets[index] else { continue }
            let inScope = query.collectionGroup == nil || query.path.isPrefix(of: collection)
            let skipped = overlaid[collection]
            let cached = columns[index]
            for position in 0..<bucket.count {
                if let skipped, skipped.contains(bucket.id(at: position)) { continue }
                if !inScope, !query.matchesPathAndCollectionGroup(DocumentKey(path: collection.appending(bucket.id(at: position)))) { continue }
                report.documentsRead += 1
                let entry = bucket.entries[position]
                let candidate = ScanCandidate(collection: Int32(index), position: Int32(position), entry: entry)
                guard Self.cachedValues(of: entry.reference, in: cached, into: &values) else {
                    misses.append(candidate)
                    continue
                }
                if consider({ candidate }) { passed.append(candidate) }
            }
        }
        // A candidate's key, built only for the documents decoded or ranked on a tie.
        func key(of candidate: ScanCandidate) -> DocumentKey {
            let collection = Int(candidate.collection)
            return DocumentKey(path: collections[collection].appending(buckets[collection]!.id(at: Int(candidate.position))))
        }

        // Documents whose values are not cached: read in log order, their values cached, decoded if they pass.
        misses.sort { $0.entry.reference < $1.entry.reference }
        try events.forEachValue(of: misses.map(\.entry.reference), fillCache: false) { position, value in
            let candidate = misses[position]
            try Self.readValues(plan.fields, from: value, into: &values) { key(of: candidate) }
            if caching {
                for slot in values.indices { columns[Int(candidate.collection)][slot].insert(values[slot], for: candidate.entry.reference) }
            }
            if consider({ candidate }) {
                documents.append(try LocalDocumentsView.document(key(of: candidate), candidate.entry, value))
            }
        }

        // The documents that passed on cached values, or the ranked ones kept: decoded in log order.
        let toDecode = (selection.map { $0.elements.map(\.candidate) } ?? passed).sorted { $0.entry.reference < $1.entry.reference }
        try events.forEachValue(of: toDecode.map(\.entry.reference), fillCache: true) { position, value in
            let candidate = toDecode[position]
            documents.append(try LocalDocumentsView.document(key(of: candidate), candidate.entry, value))
        }
        report.documentsDecoded += documents.count
        return (documents, matches - documents.count)
    }

    /// Fills `values` from `columns` when every one has a value for `reference`.
    @inline(__always)
    private static func cachedValues(of reference: EventReference, in columns: [FieldValueCache.Column], into values: inout [Value?]) -> Bool {
        for slot in columns.indices {
            guard let value = columns[slot].value(for: reference) else { return false }
            values[slot] = value
        }
        return true
    }

    /// Reads `fields` from a remote-document event's value into `values` (nil for a missing field, and for
    /// every field of a document that does not exist); `key` names the document in errors.
    private static func readValues(
        _ fields: [FieldPath], from value: UnsafeRawBufferPointer, into values: inout [Value?], key: () -> DocumentKey
    ) throws {
        let header = try RemoteDocumentHeader.decode(value)
        let body = UnsafeRawBufferPointer(rebasing: value[RemoteDocumentHeader.size...])
        for slot in fields.indices {
            do {
                values[slot] = header.state == .found ? try DocumentCodec.value(at: fields[slot], in: body) : nil
            } catch {
                throw LocalStoreError.dataLoss("document \(key()) cannot be decoded: \(error.message)")
            }
        }
    }

    /// Query order for ranked candidates: the order-by values, then the key (built only on a tie).
    private static func ranks(
        _ a: RankedCandidate, before b: RankedCandidate, _ selection: ScanPlan.Selection, _ collections: [ResourcePath],
        _ buckets: [DocumentBucket?]
    ) -> Bool {
        for (slot, descending) in selection.orders {
            let comparison = compareValues(a.values[slot], b.values[slot])
            if comparison != 0 { return descending ? comparison > 0 : comparison < 0 }
        }
        func path(_ candidate: ScanCandidate) -> ResourcePath {
            let collection = Int(candidate.collection)
            return collections[collection].appending(buckets[collection]!.id(at: Int(candidate.position)))
        }
        let keyA = path(a.candidate)
        let keyB = path(b.candidate)
        return selection.keyDescending ? keyB < keyA : keyA < keyB
    }

    /// ``Value/compare(_:_:)`` with a missing value first (ranked candidates have every order-by value).
    private static func compareValues(_ a: Value?, _ b: Value?) -> Int {
        switch (a, b) {
        case let (a?, b?): Value.compare(a, b)
        case (nil, nil): 0
        case (nil, _?): -1
        case (_?, nil): 1
        }
    }

    /// Gives the scan's columns back to the cache, first dropping stale values from any column holding more
    /// values than its collection has documents.
    private func returnColumns(_ columns: [[FieldValueCache.Column]], of collections: [ResourcePath], fields: [FieldPath]) {
        for (index, collection) in collections.enumerated() {
            let bucket = remoteDocuments.collections[collection] ?? DocumentBucket()
            for (slot, field) in fields.enumerated() {
                var column = columns[index][slot]
                if column.values.count > bucket.count { column.retain(bucket.entries.map(\.reference)) }
                fieldValueCache.put(column, for: FieldValueCache.ColumnKey(collection: collection, field: field))
            }
        }
    }
}

/// A document a collection scan looks at: its collection (an index into the scan's list), its position in that
/// collection's bucket, and its view entry.
struct ScanCandidate {
    var collection: Int32
    var position: Int32
    var entry: RemoteDocumentEntry
}

/// A candidate with the field values a selecting scan ranks it by.
struct RankedCandidate {
    var candidate: ScanCandidate
    var values: [Value?]
}
