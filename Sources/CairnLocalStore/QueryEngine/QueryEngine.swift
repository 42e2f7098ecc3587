import CairnModel

/// The query engine (Firebase's `QueryEngine`, semantics notes §4.7; Docs/LocalStore.md §7). In order:
/// 1. **index** — when ready field indexes serve every term of the query (``IndexPlanner``): the documents
///    with entries in the scan ranges, re-checked with `query.matches`;
/// 2. **previous results** — with `usePreviousResults`, when the query's target has a last limbo-free snapshot
///    version: the target's documents plus those read after that version, unless a limit query's edge may
///    have moved (Firebase's `needsRefill`);
/// 3. **scan** — every cached document of the collection (or collection group).
///
/// Every path adds the documents with pending writes in the query's scope, with the writes applied, so all
/// three give the same answer. After a scan, when automatic creation is on, a query that read at least
/// ``indexAutoCreationMinimumDocuments`` documents and more than ``relativeIndexReadCostPerDocument`` times
/// its matches gets an index (Firebase's `createCacheIndexes`): the engine names it, the store creates it.
///
/// The engine only reads the components' views (documents through the ``LocalDocumentsView``); what it keeps
/// is its own: the scans' cache of decoded field values and the report of the last query.
///
/// ```swift
/// let engine = QueryEngine(localDocuments: localDocuments, indexes: indexManager)
/// let (documents, report) = try engine.run(query, previousResultsOf: target, remoteKeys: keys)
/// ```
final class QueryEngine {
    let localDocuments: LocalDocumentsView
    let indexManager: IndexManager
    /// Decoded field values for scans (FieldValueCache.swift).
    var fieldValueCache = FieldValueCache()

    init(localDocuments: LocalDocumentsView, indexes: IndexManager) {
        self.localDocuments = localDocuments
        self.indexManager = indexes
    }

    var events: any EventStore { localDocuments.events }
    var remoteDocuments: RemoteDocumentView {
        _read { yield localDocuments.documents.view }
    }
    var mutationQueue: MutationQueueView {
        _read { yield localDocuments.queue.view }
    }
    var fieldIndexView: FieldIndexView {
        _read { yield indexManager.view }
    }

    func localView(_ key: DocumentKey) throws -> Document? { try localDocuments.localView(key) }

    func document(_ key: DocumentKey, _ entry: RemoteDocumentEntry) throws -> Document {
        try localDocuments.document(key, entry)
    }

    /// Runs `query` (overlays current): the matching documents with pending writes applied, in query order and
    /// cut to its limit, and how it ran. `previousResultsOf` is the query's target when the previous results
    /// may be used; `remoteKeys` its keys.
    func run(
        _ query: Query, previousResultsOf target: TargetData?, remoteKeys: Set<DocumentKey>
    ) throws -> (documents: [Document], report: QueryExecutionReport) {
        var report: QueryExecutionReport
        var documents: [Document]
        // Matches a ranked scan counted but did not decode (they sort after the query's limit).
        var matchesLeftOut = 0
        if let (indexed, indexReport) = try queryUsingIndexes(query) {
            (documents, report) = (indexed, indexReport)
        } else if let target, let (previous, previousReport) = try queryUsingPreviousResults(query, target, remoteKeys) {
            (documents, report) = (previous, previousReport)
        } else {
            (documents, report, matchesLeftOut) = try queryUsingScan(query)
        }
        let matching = documents.filter(query.matches)
        report.matches = matching.count + matchesLeftOut
        return (query.results(from: matching), report)
    }
}

extension QueryEngine {
    /// Scans that read fewer documents never create an index (Firebase's `indexAutoCreationMinCollectionSize`).
    package static let indexAutoCreationMinimumDocuments = 100

    /// How many documents a scan may read per match before an index pays off: reading a result through an
    /// index costs about this many scanned documents (Firebase: 2 on Android, 3.4 on iOS). Measured for this
    /// cache (release build, 20,000 and 100,000 documents): 0.6–1.6 for results under 1% of the collection,
    /// 2.7–3.2 at 10%, where the heuristic decides (Docs/LocalStore.md §8).
    package static let relativeIndexReadCostPerDocument = 3.0

    /// Path 1: the candidates ready indexes give, plus the documents with pending writes in scope; `nil` when
    /// the query matches every document of its collection (a scan is cheaper) or some term has no ready index.
    private func queryUsingIndexes(_ query: Query) throws -> ([Document], QueryExecutionReport)? {
        guard !query.matchesAllDocuments, !fieldIndexView.indexes.isEmpty,
            let scans = IndexPlanner.plan(for: query, among: fieldIndexView.readyIndexes)
        else { return nil }
        var report = QueryExecutionReport(path: .index)
        report.indexes = scans.map(\.index)
        var documents: [Document] = []
        if let limit = Self.limitInIndexOrder(query, scans) {
            // The entries come in query order: stop after `limit` remote matches (overlays are added below).
            var found = 0
            report.readInQueryOrder = true
            report.entriesRead += try fieldIndexView.visit(scans[0].index, in: scans[0].ranges[0]) { key in
                guard let document = try indexedRemoteDocument(key, query, &report) else { return true }
                if query.matches(document) {
                    documents.append(document)
                    found += 1
                }
                return found < limit
            }
        } else {
            var keys = Set<DocumentKey>()
            for scan in scans {
                keys.formUnion(fieldIndexView.keys(of: scan.index, in: scan.ranges, entriesRead: &report.entriesRead))
            }
            let candidates = keys.compactMap { key in indexedRemoteEntry(key, query).map { (key: key, entry: $0) } }
            documents = try scanRemoteDocuments(candidates, filters: Self.prefilters(of: query), report: &report)
        }
        try appendOverlaid(query, to: &documents, report: &report)
        return (documents, report)
    }

    /// The remote document an index entry points to, when it is in the query's scope and has no overlay (the
    /// overlays are added separately).
    private func indexedRemoteDocument(_ key: DocumentKey, _ query: Query, _ report: inout QueryExecutionReport) throws -> Document? {
        guard let entry = indexedRemoteEntry(key, query) else { return nil }
        report.documentsRead += 1
        report.documentsDecoded += 1
        return try document(key, entry)
    }

    /// The entry of the remote document an index entry points to, under the same conditions.
    private func indexedRemoteEntry(_ key: DocumentKey, _ query: Query) -> RemoteDocumentEntry? {
        guard query.matchesPathAndCollectionGroup(key), mutationQueue.overlays[key] == nil,
            let entry = remoteDocuments.entry(for: key), entry.state == .found
        else { return nil }
        return entry
    }

    /// The query's limit when one index range yields the remote documents in query order, so the scan may stop
    /// after `limit` matches (Firebase's FULL index type with a limit): one conjunctive term, an index with no
    /// contains segment (one entry per document) that has a segment for every filter and order by, one range
    /// (its equality columns fixed), and the document key running in the query's final direction.
    private static func limitInIndexOrder(_ query: Query, _ scans: [IndexScan]) -> Int? {
        guard let limit = query.limit, query.limitType == .first, scans.count == 1, scans[0].ranges.count == 1,
            scans[0].index.arraySegment == nil, let matcher = try? TargetIndexMatcher(query),
            !matcher.isPartial(scans[0].index),
            (scans[0].index.directionalSegments.last?.isDescending ?? false) == (query.normalizedOrderBy.last?.descending ?? false)
        else { return nil }
        return limit
    }

    /// Path 2: the target's previous results plus the documents read after its last limbo-free snapshot, plus
    /// the documents with pending writes in scope; `nil` when the target was never limbo-free, the query
    /// matches every document, or a limit query needs a refill.
    private func queryUsingPreviousResults(_ query: Query, _ target: TargetData, _ previousKeys: Set<DocumentKey>)
        throws -> ([Document], QueryExecutionReport)?
    {
        let version = target.lastLimboFreeSnapshotVersion
        guard !query.matchesAllDocuments, version != TargetData.noSnapshotVersion else { return nil }
        var report = QueryExecutionReport(path: .previousResults)
        var previous: [Document] = []
        for key in previousKeys {
            report.documentsRead += 1
            if let document = try localView(key), query.matches(document) { previous.append(document) }
        }
        if query.limit != nil && Self.needsRefill(query, previous, previousKeyCount: previousKeys.count, version) {
            return nil
        }
        let changed = remoteDocumentsRead(after: version, for: query).filter {
            !previousKeys.contains($0.key) && mutationQueue.overlays[$0.key] == nil
        }
        var documents = previous
        documents += try scanRemoteDocuments(changed, filters: Self.prefilters(of: query), report: &report)
        // The previous keys are in `documents` already, with their pending writes applied.
        try appendOverlaid(query, to: &documents, report: &report, skipping: previousKeys)
        return (documents, report)
    }

    /// The existing remote documents in the query's scope read after `readTime`: one pass over the in-memory
    /// entries of the query's collection (or the group's collections), comparing read times; only the keys of
    /// the documents returned are built and nothing is decoded.
    private func remoteDocumentsRead(after readTime: Timestamp, for query: Query) -> [(key: DocumentKey, entry: RemoteDocumentEntry)] {
        if query.path.isDocumentPath && query.collectionGroup == nil {
            return remoteDocuments.candidates(for: query).filter { $0.entry.state == .found && $0.entry.readTime > readTime }
        }
        let collections = query.collectionGroup.map { Array(remoteDocuments.groups[$0] ?? []) } ?? [query.path]
        var result: [(key: DocumentKey, entry: RemoteDocumentEntry)] = []
        for collection in collections {
            guard let bucket = remoteDocuments.collections[collection] else { continue }
            for position in 0..<bucket.count where bucket.entries[position].readTime > readTime {
                result.append((DocumentKey(path: collection.appending(bucket.id(at: position))), bucket.entries[position]))
            }
        }
        return result
    }

    /// Firebase's `needsRefill`: the previous results of a limit query cannot be reused when one of them no
    /// longer matches (the server would have sent a replacement from beyond the limit), or when the document at
    /// the limit's edge has pending writes or changed after the limbo-free version (it may have moved out).
    static func needsRefill(_ query: Query, _ previousMatches: [Document], previousKeyCount: Int, _ version: Timestamp) -> Bool {
        if previousMatches.count != previousKeyCount { return true }
        let sorted = previousMatches.sorted { query.compareDocuments($0, $1) < 0 }
        guard let edge = query.limitType == .first ? sorted.last : sorted.first else { return false }
        return edge.hasLocalMutations || edge.version > version
    }

    /// Path 3: every cached document in scope, pending writes applied; decoded only when the query's top-level
    /// field filters pass on cached or encoded field values, and for a ranked limit query only the first
    /// `limit` (QueryEngine+DocumentScan.swift). Also returns how many matches were left undecoded.
    private func queryUsingScan(_ query: Query) throws -> ([Document], QueryExecutionReport, Int) {
        var report = QueryExecutionReport(path: .scan)
        var documents: [Document]
        var matchesLeftOut = 0
        if query.path.isDocumentPath && query.collectionGroup == nil {
            let candidates = remoteDocuments.candidates(for: query).filter { mutationQueue.overlays[$0.key] == nil }
            documents = try scanRemoteDocuments(candidates, filters: Self.prefilters(of: query), report: &report)
        } else {
            (documents, matchesLeftOut) = try scanCollections(query, report: &report)
        }
        try appendOverlaid(query, to: &documents, report: &report)
        return (documents, report, matchesLeftOut)
    }

    /// Adds the local view of every document with pending writes in the query's scope (deleted ones and
    /// those in `skipping` left out).
    private func appendOverlaid(
        _ query: Query, to documents: inout [Document], report: inout QueryExecutionReport, skipping: Set<DocumentKey> = []
    ) throws {
        for key in mutationQueue.overlays.keys where query.matchesPathAndCollectionGroup(key) && !skipping.contains(key) {
            report.documentsRead += 1
            if let document = try localView(key) { documents.append(document) }
        }
    }

    /// Firebase's `createCacheIndexes`: after a scan that read at least the minimum number of documents and
    /// more than ``relativeIndexReadCostPerDocument`` per match, an index for each term of the query that no
    /// index fully serves. None when a term cannot have one (several inequality fields, a document query): the
    /// query would need a scan anyway.
    func indexesWorthCreating(_ query: Query, _ report: QueryExecutionReport) -> [FieldIndex] {
        guard fieldIndexView.autoCreationEnabled, report.documentsRead >= Self.indexAutoCreationMinimumDocuments,
            Double(report.documentsRead) > Self.relativeIndexReadCostPerDocument * Double(report.matches)
        else { return [] }
        let existing = fieldIndexView.indexes
        var created: [FieldIndex] = []
        for term in TargetIndexMatcher.dnfTerms(of: query) {
            // A term has no OR filter, so the matcher accepts it.
            guard let matcher = try? TargetIndexMatcher(term) else { return [] }
            if let best = IndexPlanner.bestIndex(for: term, among: existing + created), !matcher.isPartial(best) { continue }
            guard term.inequalityFields.count <= 1, let index = matcher.buildTargetIndex() else { return [] }
            if !existing.contains(index) && !created.contains(index) { created.append(index) }
        }
        return created
    }
}
