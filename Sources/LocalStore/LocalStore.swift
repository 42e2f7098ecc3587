import CairnModel
import SegmentLog

/// The offline cache: every change is an event appended to a log, every structure a view rebuilt from the
/// events on open (Docs/LocalStore.md). This first part holds the remote documents view: the server state of
/// cached documents, with eviction and collection scans.
///
/// A `LocalStore` has one owner: call it from one thread or serial queue at a time.
///
/// ```swift
/// let store = try LocalStore.open(at: "/var/lib/app/cache")
/// try store.applyRemoteDocuments([document])
/// let rooms = try store.executeQuery(Query(path: try ResourcePath(parsing: "rooms")))
/// try store.close()
/// ```
public final class LocalStore {
    let events: any EventStore
    var remoteDocuments = RemoteDocumentView()
    /// The outbox and overlays (LocalStore+MutationQueue.swift).
    var mutationQueue = MutationQueueView()
    /// Targets, their membership, and the globals (LocalStore+Targets.swift).
    var targets = TargetView()
    /// Field indexes: configuration, entries, backfill (LocalStore+Indexes.swift).
    var fieldIndexView = FieldIndexView()
    /// Decoded field values for scans (Scan/FieldValueCache.swift).
    var fieldValueCache = FieldValueCache()
    /// How the last `executeQuery(_:usePreviousResults:)` ran (LocalStore+QueryEngine.swift).
    package internal(set) var lastQueryReport: QueryExecutionReport?
    /// Orphans and inactive targets by sequence number, local-view references (GarbageCollection/).
    var garbage = GarbageCollectionIndex()
    /// How a memory cache collects garbage; nil for a persistent cache.
    public internal(set) var memoryGarbageCollector: MemoryGarbageCollector?
    private var isClosed = false

    init(events: any EventStore) {
        self.events = events
    }

    /// The log settings of a cache opened without explicit ones: SegmentLog's defaults with 2 MiB segments. A
    /// garbage-collection round compacts at most one segment's worth of bytes, so small segments keep its
    /// stall short (a cache in one 64 MiB segment would be rewritten whole); replay reads the same bytes
    /// either way.
    ///
    /// ```swift
    /// var configuration = LocalStore.defaultLogConfiguration
    /// configuration.durability = .normal
    /// let store = try LocalStore.open(at: path, configuration: configuration)
    /// ```
    public static var defaultLogConfiguration: SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.segmentTargetSize = 2 << 20
        return configuration
    }

    /// Opens (or creates) the persistent cache in `directory` and rebuilds the views by replaying its log.
    public static func open(
        at directory: String, configuration: SegmentLog.Configuration = LocalStore.defaultLogConfiguration
    ) throws -> LocalStore {
        let log: SegmentLog
        do {
            log = try SegmentLog.open(at: directory, configuration: configuration)
        } catch {
            throw LocalStoreError.wrap(error)
        }
        let store = LocalStore(events: LogEventStore(log: log))
        do {
            // Removals met by replay shadow records in any segment there is now (RemovalRecords).
            store.garbage.removals.see(segment: log.statistics.segments.map(\.id).max() ?? 0)
            try store.replay(log)
            store.rebuildGarbageCollectionIndex()
        } catch {
            try? log.close()
            throw LocalStoreError.wrap(error)
        }
        return store
    }

    /// Closes the cache and its log.
    public func close() throws {
        guard !isClosed else { return }
        // A compaction left in progress is abandoned: its unpublished outputs are removed.
        garbage.compaction = nil
        try events.close()
        isClosed = true
    }

    func checkOpen() throws {
        if isClosed { throw LocalStoreError(.closed, "the cache is closed") }
    }

    /// Rebuilds every view from the log. Only event headers are read; document bodies stay in the log, and
    /// document events are resolved per key after the scan (``RemoteDocumentReplay``).
    private func replay(_ log: SegmentLog) throws {
        var documents = RemoteDocumentReplay()
        var indexConfiguration: IndexConfigurationEvent?
        try log.scan { record in
            guard let kind = EventKind(rawValue: record.kind) else {
                throw LocalStoreError.dataLoss("the log holds an event of unknown kind \(record.kind) (a newer version wrote it?)")
            }
            switch kind {
            case .mutationBatchAdded, .mutationBatchRemoved:
                try replayMutationQueueEvent(kind, record)
            case .targetSaved, .targetRemoved, .targetMembershipChanged, .globalsChanged:
                try replayTargetEvent(kind, record)
            case .indexConfigurationChanged:
                try replayIndexConfiguration(record, newest: &indexConfiguration)
            case .remoteDocumentChanged:
                let header = try RemoteDocumentHeader.decode(record.value)
                let entry = RemoteDocumentEntry(
                    reference: .log(record.location), state: header.state, version: header.version,
                    readTime: header.readTime, hasCommittedMutations: header.hasCommittedMutations, sequence: record.lsn)
                if let superseded = documents.noteChanged(key: record.key, entry: entry) { events.retire(superseded) }
            case .documentEvicted:
                // Compaction moves records but keeps their sequence numbers, so an eviction may be met before
                // the document event it removed: the replay compares sequence numbers once the scan ends.
                documents.noteEvicted(key: record.key, lsn: record.lsn)
                garbage.removals.track(record.location)
            }
        }
        try documents.install(into: &remoteDocuments) { events.retire($0) }
        // Index entries are not in the log: the backfill rebuilds them from the documents just replayed.
        if let indexConfiguration { applyIndexConfiguration(indexConfiguration) }
    }
}
