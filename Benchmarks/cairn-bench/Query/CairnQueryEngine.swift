// Cairn's side of the query suite: LocalStore on SegmentLog through its public API, as the client core uses
// it — `applyRemoteDocuments` to fill the cache, `setIndexConfiguration(json:)` and the index backfill,
// `executeQuery(_:usePreviousResults:)` for queries (what `getDocuments(source: .cache)` and listeners run),
// `writeLocally` for the outbox, targets for listens, and `collectGarbage(threshold:maxRounds:)`. The listened
// query of `listener_latency` goes through the public `Firestore` API instead (FirestoreListener.swift).

import CairnModel
import CairnLocalStore
import SegmentLog

/// The bounds of Cairn's caches a run sets (`--cairn-scan-cache-mib`, `--cairn-frame-cache-mib`); nil keeps
/// LocalStore's default.
struct CairnCacheBounds {
    var scanCacheBytes: Int?
    var frameCacheBytes: Int?

    /// The options that pass the bounds on to a child process.
    var arguments: [String] {
        (scanCacheBytes.map { ["--cairn-scan-cache-mib", String($0 >> 20)] } ?? [])
            + (frameCacheBytes.map { ["--cairn-frame-cache-mib", String($0 >> 20)] } ?? [])
    }
}

/// Cairn's LocalStore as the client core opens it: group commit (an append returns once it is in the operating
/// system, a background thread syncs behind it, Docs/LocalStore.md §10), LocalStore's default frame cache and
/// scan cache of decoded field values (32 MiB at most); while loading a fixture, durability `.none`.
final class CairnQueryEngine: QueryEngine {
    let name = "cairn"
    let isPersistent = true
    /// Documents per `applyRemoteDocuments` call while loading.
    private let chunk = 1000
    private let bounds: CairnCacheBounds

    init(bounds: CairnCacheBounds = CairnCacheBounds()) {
        self.bounds = bounds
    }

    /// The log configuration of a load: the client's (2 MiB segments, so the cache is laid out as an app's
    /// would be), no syncing.
    private static var loadConfiguration: SegmentLog.Configuration {
        var configuration = LocalStore.defaultLogConfiguration
        configuration.durability = .none
        return configuration
    }

    var layout: String {
        let log = Self.loadConfiguration
        return "cairn 1: applyRemoteDocuments in chunks of \(chunk); SegmentLog frames \(log.frameTargetSize) B, "
            + "segments \(log.segmentTargetSize) B, compression \(log.compression)"
    }

    func load(_ corpus: QueryCorpus, into directory: String) throws {
        let store = try LocalStore.open(at: directory, configuration: Self.loadConfiguration)
        try store.setIndexConfiguration(json: QueryCatalog.indexConfiguration)
        var start = 0
        while start < corpus.count {
            try store.applyRemoteDocuments(corpus.documents(start..<min(start + chunk, corpus.count)))
            start += chunk
        }
        try store.close()
    }

    func open(_ directory: String) throws -> any QueryCache {
        var configuration = LocalStore.defaultLogConfiguration
        if let frameCacheBytes = bounds.frameCacheBytes { configuration.frameCacheBytes = frameCacheBytes }
        let store = try LocalStore.open(at: directory, configuration: configuration, syncing: .behindAppends)
        if let scanCacheBytes = bounds.scanCacheBytes { store.scanCacheCapacity = scanCacheBytes }
        return CairnQueryCache(store: store)
    }

    /// Through the client core: a `Firestore` instance offline on `directory` with a snapshot listener.
    func openListener(_ directory: String, query: Query) throws -> any ListenedQuery {
        guard query.collectionGroup == nil, query.filters.isEmpty, query.explicitOrderBy.count == 1,
            let order = query.explicitOrderBy.first, order.field.count == 1, !order.descending
        else { throw BenchError("listener_latency: Cairn listens to a collection ordered by one field, not \(query)") }
        return try FirestoreListener(
            directory: directory, collectionPath: query.path.canonicalString, orderField: order.field.segments[0])
    }
}

/// An open LocalStore.
final class CairnQueryCache: QueryCache {
    let store: LocalStore
    /// The cache's size after the last garbage collection.
    private var lastKnownBytes: Int64?

    init(store: LocalStore) {
        self.store = store
    }

    func execute(_ query: Query) throws -> [Document] {
        try store.executeQuery(query, usePreviousResults: true).documents
    }

    /// Runs the index backfill to the end (the core runs it in steps of 50 documents on a timer; an app that
    /// has been open for a while has finished it).
    func catchUp() throws {
        while try store.backfillIndexes(maxDocuments: 10_000) > 0 {}
    }

    func write(_ mutations: [Mutation]) throws {
        try store.writeLocally(mutations, localWriteTime: benchWriteTime)
    }

    func listen(_ query: Query) throws {
        let keys = Set(try execute(query).map(\.key))
        let target = try store.allocateTarget(query)
        try store.updateTarget(target, added: keys, removed: [])
    }

    /// LocalStore's own measure (the segment files' bytes), as the last collection reported it; before any,
    /// read from the store (which collects nothing to answer).
    func cacheBytes() throws -> Int64 {
        if let lastKnownBytes { return lastKnownBytes }
        let bytes = Int64(store.collectableSize() ?? 0)
        lastKnownBytes = bytes
        return bytes
    }

    func collectGarbageRound(threshold: Int64) throws -> Bool {
        // A round as the client schedules it (FirestoreClient): one per queue operation, within the time budget.
        let result = try store.collectGarbage(threshold: threshold, maxRounds: 1, roundBudget: LocalStore.defaultRoundBudget)
        lastKnownBytes = Int64(result.bytesAfter)
        return result.rounds > 0 && result.documentsEvicted + result.targetsRemoved > 0
    }

    func close() throws { try store.close() }
}
