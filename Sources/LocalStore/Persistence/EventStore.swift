import SegmentLog

/// Where the cache's events go: the segment log (persistent mode) or memory only (memory mode). Views hold
/// `EventReference`s and read bodies back through the store; superseded events are retired.
protocol EventStore: AnyObject {
    /// Appends events atomically; returns each event's reference and sequence number (LRU recency).
    func append(_ events: [EncodedEvent]) throws -> [(reference: EventReference, sequence: UInt64)]
    /// Calls `body` with the value bytes of an event.
    func withValue<T>(of reference: EventReference, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T
    /// Marks an event as superseded: it no longer counts as live and compaction may drop it.
    func retire(_ reference: EventReference)
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
        let record: Record
        do {
            record = try log.read(location)
        } catch {
            throw LocalStoreError.wrap(error)
        }
        return try record.value.withUnsafeBytes { try body($0) }
    }

    func retire(_ reference: EventReference) {
        if case .log(let location) = reference { log.retire(location) }
    }

    func close() throws {
        do {
            try log.close()
        } catch {
            throw LocalStoreError.wrap(error)
        }
    }
}

/// Events kept in memory only (memory cache mode): nothing survives the process.
final class MemoryEventStore: EventStore {
    private var values: [Int: [UInt8]] = [:]
    private var next = 1

    func append(_ events: [EncodedEvent]) throws -> [(reference: EventReference, sequence: UInt64)] {
        events.map { event in
            defer { next += 1 }
            values[next] = event.value
            return (.memory(next), UInt64(next))
        }
    }

    func withValue<T>(of reference: EventReference, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        guard case .memory(let id) = reference, let value = values[id] else {
            throw LocalStoreError.dataLoss("an event referenced by the cache is gone")
        }
        return try value.withUnsafeBytes { try body($0) }
    }

    func retire(_ reference: EventReference) {
        if case .memory(let id) = reference { values[id] = nil }
    }

    func close() throws { values.removeAll() }
}
