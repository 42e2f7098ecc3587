import SegmentLog

/// Where the cache's events go: the segment log (persistent mode) or memory only (memory mode). Views hold
/// `EventReference`s and read bodies back through the store; superseded events are retired.
protocol EventStore: AnyObject {
    /// Appends events atomically; returns each event's reference and sequence number (LRU recency).
    func append(_ events: [EncodedEvent]) throws -> [(reference: EventReference, sequence: UInt64)]
    /// Calls `body` with the value bytes of an event.
    func withValue<T>(of reference: EventReference, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T
    /// Calls `body` with the position and value bytes of each event of `references`; in log order (sorted),
    /// each log frame is decompressed once, and kept in the frame cache only if `fillCache`.
    func forEachValue(of references: [EventReference], fillCache: Bool, _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws
    /// Marks an event as superseded: it no longer counts as live and compaction may drop it.
    func retire(_ reference: EventReference)
    /// Applies the memory/persistent rule for a removal event (an eviction, a target's or a batch's removal)
    /// once the views applied it: a log keeps it live, since replay needs it to keep what it removed away
    /// (`RemovalRecords` retires it later); memory drops it at once, as nothing replays it.
    func removalApplied(_ reference: EventReference)
    /// The sequence number the next appended event gets (a moment in LRU time).
    var nextSequence: UInt64 { get }
    /// The log holding the events, for compaction and inspection; nil when they live in memory only.
    var log: SegmentLog? { get }
    /// The size garbage collection brings under a threshold when it is not the log's: the estimated bytes of
    /// the live events in memory; nil for a log (its size is its segment files).
    var estimatedMemoryBytes: Int64? { get }
    /// What syncs behind the appends; nil when each append is durable as it returns, or nothing ever is (memory).
    var groupCommit: GroupCommit? { get }
    func close() throws
}

/// Events in a SegmentLog: durable, replayed on open.
final class LogEventStore: EventStore {
    private let segmentLog: SegmentLog
    /// Syncs behind the appends, when the cache does not sync each one (``CacheSyncing``).
    let groupCommit: GroupCommit?

    init(log: SegmentLog, groupCommit: GroupCommit? = nil) {
        self.segmentLog = log
        self.groupCommit = groupCommit
    }

    func append(_ events: [EncodedEvent]) throws -> [(reference: EventReference, sequence: UInt64)] {
        var batch = WriteBatch()
        for event in events { batch.append(kind: event.kind.rawValue, key: event.key, value: event.value) }
        do {
            let locations = try segmentLog.commit(batch)
            // The log has one owner (this store), so the batch's numbers end just before the next one.
            let next = segmentLog.nextLSN
            let first = next - UInt64(locations.count)
            groupCommit?.noteAppended(upTo: next)
            return locations.enumerated().map { (.log($0.element), first + UInt64($0.offset)) }
        } catch {
            throw LocalStoreError.wrap(error)
        }
    }

    func withValue<T>(of reference: EventReference, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard case .log(let location) = reference else { preconditionFailure("a memory reference in a log store") }
        do {
            return try segmentLog.withRecord(at: location) { try body($0.value) }
        } catch let error as StorageError {
            throw LocalStoreError.wrap(error)
        }
    }

    func forEachValue(of references: [EventReference], fillCache: Bool, _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        let locations = references.map { reference in
            guard case .log(let location) = reference else { preconditionFailure("a memory reference in a log store") }
            return location
        }
        do {
            try segmentLog.forEachRecord(at: locations, fillCache: fillCache) { try body($0, $1.value) }
        } catch let error as StorageError {
            throw LocalStoreError.wrap(error)
        }
    }

    func retire(_ reference: EventReference) {
        if case .log(let location) = reference { segmentLog.retire(location) }
    }

    func removalApplied(_ reference: EventReference) {}

    var nextSequence: UInt64 { segmentLog.nextLSN }

    var log: SegmentLog? { segmentLog }

    var estimatedMemoryBytes: Int64? { nil }

    func close() throws {
        groupCommit?.close()
        do {
            try segmentLog.close()
        } catch {
            throw LocalStoreError.wrap(error)
        }
    }
}

/// Events kept in memory only (memory cache mode): nothing survives the process. Keeps a running estimate of
/// its size for LRU garbage collection: each live event counts its key and value bytes plus ``entryOverhead``.
final class MemoryEventStore: EventStore {
    /// The bytes an event costs beyond its key and value: its dictionary entry and the view's reference to it.
    static let entryOverhead = 48

    private var values: [Int: (value: [UInt8], size: Int)] = [:]
    private var next = 1
    /// The sum of the live events' estimated sizes.
    private var estimatedBytes: Int64 = 0

    func append(_ events: [EncodedEvent]) throws -> [(reference: EventReference, sequence: UInt64)] {
        events.map { event in
            defer { next += 1 }
            let size = event.key.count + event.value.count + Self.entryOverhead
            values[next] = (event.value, size)
            estimatedBytes += Int64(size)
            return (.memory(next), UInt64(next))
        }
    }

    func withValue<T>(of reference: EventReference, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard case .memory(let id) = reference, let value = values[id]?.value else {
            throw LocalStoreError.dataLoss("an event referenced by the cache is gone")
        }
        return try value.withUnsafeBytes { try body($0) }
    }

    func forEachValue(of references: [EventReference], fillCache: Bool, _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        for (position, reference) in references.enumerated() {
            try withValue(of: reference) { try body(position, $0) }
        }
    }

    func retire(_ reference: EventReference) {
        if case .memory(let id) = reference, let removed = values.removeValue(forKey: id) {
            estimatedBytes -= Int64(removed.size)
        }
    }

    func removalApplied(_ reference: EventReference) { retire(reference) }

    var nextSequence: UInt64 { UInt64(next) }

    var log: SegmentLog? { nil }

    var estimatedMemoryBytes: Int64? { estimatedBytes }

    var groupCommit: GroupCommit? { nil }

    func close() throws {
        values.removeAll()
        estimatedBytes = 0
    }
}
