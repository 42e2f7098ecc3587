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
    /// The sequence number the next appended event gets (a moment in LRU time).
    var nextSequence: UInt64 { get }
    func close() throws
}

/// Events in a SegmentLog: durable, replayed on open.
final class LogEventStore: EventStore {
    let log: SegmentLog

    init(log: SegmentLog) { self.log = log }

    func append(_ events: [EncodedEvent]) throws -> [(reference: EventReference, sequence: UInt64)] {
        var batch = WriteBatch()
        for event in events { batch.append(kind: event.kind.rawValue, key: event.key, value: event.value) }
        do {
            let locations = try log.commit(batch)
            // The log has one owner (this store), so the batch's numbers end just before the next one.
            let first = log.nextLSN - UInt64(locations.count)
            return locations.enumerated().map { (.log($0.element), first + UInt64($0.offset)) }
        } catch {
            throw LocalStoreError.wrap(error)
        }
    }

    func withValue<T>(of reference: EventReference, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard case .log(let location) = reference else { preconditionFailure("a memory reference in a log store") }
        do {
            return try log.withRecord(at: location) { try body($0.value) }
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
            try log.forEachRecord(at: locations, fillCache: fillCache) { try body($0, $1.value) }
        } catch let error as StorageError {
            throw LocalStoreError.wrap(error)
        }
    }

    func retire(_ reference: EventReference) {
        if case .log(let location) = reference { log.retire(location) }
    }

    var nextSequence: UInt64 { log.nextLSN }

    func close() throws {
        do {
            try log.close()
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
    private(set) var estimatedBytes: Int64 = 0

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

    var nextSequence: UInt64 { UInt64(next) }

    func close() throws {
        values.removeAll()
        estimatedBytes = 0
    }
}
