import CairnLogging
import CairnModel
import SegmentLog

/// The offline cache: every change is an event appended to a log, every structure a view rebuilt from the
/// events on open (Docs/LocalStore.md). A facade over components, each owning its view and its event kinds
/// (Docs/LocalStore.md §3a): ``RemoteDocumentCache``, ``MutationQueue``, ``TargetCache``, ``IndexManager``,
/// ``BundleCache``, the read-only query engine, the LRU garbage collector and the ``CompactionCoordinator``. Every write goes through
/// `commit(_:then:)`; the operations live beside their component, one folder each.
///
/// A `LocalStore` has one owner: call it from one thread or serial queue at a time.
///
/// ```swift
/// let store = try LocalStore.open(at: "/var/lib/app/cache")
/// try store.applyRemoteDocuments([document])
/// let rooms = try store.executeQuery(Query(path: try ResourcePath(parsing: "rooms")))
/// try store.close()
/// ```
package final class LocalStore {
    let events: any EventStore
    /// The components, each owning its view and its event kinds (``StoreComponent``).
    let documentCache = RemoteDocumentCache()
    let mutationQueueComponent = MutationQueue()
    let targetCache = TargetCache()
    let indexManager: IndexManager
    let bundleCache = BundleCache()
    /// Removal records and the compaction in progress (Compaction/).
    let compactionCoordinator: CompactionCoordinator
    /// The owner of each event kind, for replay and compaction.
    let registry: ComponentRegistry
    /// Documents as the current user sees them, read through the event store (MutationQueue/).
    let localDocuments: LocalDocumentsView
    /// The read-only query engine and its scan cache (QueryEngine/).
    let queryEngine: QueryEngine
    /// How the last `executeQuery(_:usePreviousResults:)` ran (QueryEngine/).
    package internal(set) var lastQueryReport: QueryExecutionReport?
    /// Orphans, inactive targets, local-view references, eager vs LRU (GarbageCollection/).
    let collector: LruGarbageCollector
    /// How a memory cache collects garbage; nil for a persistent cache.
    package let memoryGarbageCollector: MemoryGarbageCollector?
    private var isClosed = false

    init(events: any EventStore, memoryGarbageCollector: MemoryGarbageCollector? = nil) {
        self.events = events
        self.memoryGarbageCollector = memoryGarbageCollector
        indexManager = IndexManager(documents: documentCache)
        collector = LruGarbageCollector(
            documents: documentCache, targets: targetCache,
            referenceDelegate: memoryGarbageCollector == .eager ? EagerReferenceDelegate() : LruReferenceDelegate())
        registry = ComponentRegistry([documentCache, mutationQueueComponent, targetCache, indexManager, bundleCache])
        compactionCoordinator = CompactionCoordinator(registry: registry)
        localDocuments = LocalDocumentsView(events: events, documents: documentCache, queue: mutationQueueComponent)
        queryEngine = QueryEngine(localDocuments: localDocuments, indexes: indexManager)
    }

    /// The components' views, under the names the operations use.
    var remoteDocuments: RemoteDocumentView {
        _read { yield documentCache.view }
        _modify { yield &documentCache.view }
    }
    var mutationQueue: MutationQueueView {
        _read { yield mutationQueueComponent.view }
        _modify { yield &mutationQueueComponent.view }
    }
    var targets: TargetView {
        _read { yield targetCache.view }
        _modify { yield &targetCache.view }
    }
    var fieldIndexView: FieldIndexView {
        _read { yield indexManager.view }
        _modify { yield &indexManager.view }
    }

    /// The log settings of a cache opened without explicit ones: SegmentLog's defaults with 16 KiB frames, 2 MiB
    /// segments and a 4 MiB frame cache. Encoded documents compress far better across 16 KiB than across
    /// SegmentLog's 8 KiB (a 10k-document cache: ratio 2.44 against 1.68, 4.5 against 6.5 MB on disk), and the
    /// cache's point reads are served by the frame cache, not by cold frames. A garbage-collection round compacts
    /// at most one segment's worth of bytes, so small segments keep its stall short (a cache in one 64 MiB
    /// segment would be rewritten whole); replay reads the same bytes either way. Scans read in log order without
    /// filling the frame cache, so it serves point reads only (256 frames of 16 KiB: a query's results read again,
    /// a listener's re-runs); SegmentLog's 32 MiB were a third of the peak memory of a 100k-document cache
    /// (Docs/LocalStore.md §3).
    ///
    /// ```swift
    /// var configuration = LocalStore.defaultLogConfiguration
    /// configuration.durability = .normal
    /// let store = try LocalStore.open(at: path, configuration: configuration)
    /// ```
    package static var defaultLogConfiguration: SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.frameTargetSize = 16 << 10
        configuration.segmentTargetSize = 2 << 20
        configuration.frameCacheBytes = 4 << 20
        return configuration
    }

    /// Opens (or creates) the persistent cache in `directory` and rebuilds the views by replaying its log.
    /// `syncing` says when appends become durable: with each one (the log's durability decides), or behind
    /// them by group commit, in which case the log is opened with durability `.none` (§10).
    package static func open(
        at directory: String, configuration: SegmentLog.Configuration = LocalStore.defaultLogConfiguration,
        syncing: CacheSyncing = .withEachAppend
    ) throws -> LocalStore {
        var configuration = configuration
        if syncing != .withEachAppend { configuration.durability = .none }
        let log: SegmentLog
        do {
            log = try SegmentLog.open(at: directory, configuration: configuration)
        } catch {
            throw LocalStoreError.wrap(error)
        }
        let groupCommit = syncing == .withEachAppend ? nil : GroupCommit(log: log, inBackground: syncing == .behindAppends)
        let store = LocalStore(events: LogEventStore(log: log, groupCommit: groupCommit))
        do {
            // Removals met by replay shadow records in any segment there is now (RemovalRecords).
            store.compactionCoordinator.removals.see(segment: log.statistics.segments.map(\.id).max() ?? 0)
            try store.replay(log)
        } catch {
            try? log.close()
            CairnLogger.firestoreLocalStore.debug("the cache at \(directory) could not be opened: \(error)")
            throw LocalStoreError.wrap(error)
        }
        let statistics = log.statistics
        let pending = store.mutationQueue.usersWithPendingBatches.reduce(0) { $0 + store.mutationQueue.queue(of: $1).count }
        CairnLogger.firestoreLocalStore.debug(
            "opened the cache at \(directory): \(statistics.segments.count) segment(s), \(statistics.fileBytes) bytes, "
                + "\(pending) pending write batch(es)")
        return store
    }

    /// Closes the cache and its log.
    package func close() throws {
        guard !isClosed else { return }
        // A compaction left in progress is abandoned: its unpublished outputs are removed.
        compactionCoordinator.inProgress = nil
        try events.close()
        isClosed = true
    }

    func checkOpen() throws {
        if isClosed { throw LocalStoreError(.closed, "the cache is closed") }
    }

    /// Rebuilds every view from the log: each record goes to the component that owns its kind
    /// (``ComponentRegistry``), then each component finishes in registry order, and the garbage collector's
    /// queues are rebuilt once the documents and targets are (before the field indexes: their backfill jobs
    /// share the view's buckets, and the orphan queue writes its ids into the entries, which would copy
    /// them). Only event headers are read.
    private func replay(_ log: SegmentLog) throws {
        try log.scan { record in
            guard let kind = EventKind(rawValue: record.kind), let owner = registry.owner(of: kind) else {
                throw LocalStoreError.dataLoss("the log holds an event of unknown kind \(record.kind) (a newer version wrote it?)")
            }
            try owner.replay(record, kind: kind, into: self)
        }
        for component in registry.components {
            if component === indexManager { collector.rebuild() }
            try component.finishReplay(into: self)
        }
    }
}
