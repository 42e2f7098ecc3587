import CairnModel
import SegmentLog

/// The bundle cache (Firebase's `BundleCache`): the loaded bundles (id, creation time, totals) and the named
/// queries they saved, each the newest `bundleSaved` / `namedQuerySaved` event of its key. Both are small and
/// few, so the view keeps them decoded; a newer event retires the older one. The operations are in
/// `LocalStore+Bundles.swift`.
///
/// ```swift
/// let cache = BundleCache()
/// try cache.replay(record, kind: .namedQuerySaved, into: store)
/// cache.view.namedQueries["open-rooms"]?.value.query
/// ```
final class BundleCache: StoreComponent {
    /// A decoded event and where it lives.
    struct Entry<Value> {
        var value: Value
        var reference: EventReference
        var sequence: UInt64
    }

    /// The bundles by id and the named queries by name.
    struct View {
        var bundles: [String: Entry<BundleMetadata>] = [:]
        var namedQueries: [String: Entry<NamedQuery>] = [:]
    }

    var view = View()

    static let eventKinds: [EventKind] = [.bundleSaved, .namedQuerySaved]

    func replay(_ record: RecordView, kind: EventKind, into store: LocalStore) throws {
        let event = try BundleCacheEvent.decode(kind, key: record.key, value: record.value)
        apply(event, reference: .log(record.location), sequence: record.lsn, events: store.events)
    }

    func finishReplay(into store: LocalStore) throws {}

    var liveEventCount: Int { view.bundles.count + view.namedQueries.count }

    func relocate(_ move: Relocation, kind: EventKind, key: UnsafeRawBufferPointer, context: inout RelocationContext) throws {
        let from = EventReference.log(move.from)
        let to = EventReference.log(move.to)
        let name = try BundleCacheEvent.name(in: key, of: kind)
        if kind == .bundleSaved {
            if view.bundles[name]?.reference == from { view.bundles[name]?.reference = to }
        } else if view.namedQueries[name]?.reference == from {
            view.namedQueries[name]?.reference = to
        }
    }

    /// Applies a saved event: it replaces the entry of its key unless that one is newer (replay meets records
    /// in log order, which compaction may have changed); the loser is retired.
    func apply(_ event: BundleCacheEvent, reference: EventReference, sequence: UInt64, events: any EventStore) {
        switch event {
        case .bundleSaved(let metadata):
            Self.replace(&view.bundles[metadata.id], with: Entry(value: metadata, reference: reference, sequence: sequence), events)
        case .namedQuerySaved(let named):
            Self.replace(&view.namedQueries[named.name], with: Entry(value: named, reference: reference, sequence: sequence), events)
        }
    }

    private static func replace<Value>(_ slot: inout Entry<Value>?, with entry: Entry<Value>, _ events: any EventStore) {
        if let current = slot, current.sequence > entry.sequence {
            events.retire(entry.reference)
            return
        }
        if let current = slot { events.retire(current.reference) }
        slot = entry
    }

    static func describe(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (key: String, body: InspectionJSON) {
        switch try BundleCacheEvent.decode(kind, key: key, value: value) {
        case .bundleSaved(let metadata):
            return (DecodedRecord.describeKey(key), .object([
                ("createTime", .string(InspectionJSON.formatTimestamp(metadata.createTime))),
                ("version", .integer(Int64(metadata.version))),
                ("totalDocuments", .integer(Int64(metadata.totalDocuments))),
                ("totalBytes", .integer(Int64(metadata.totalBytes))),
            ]))
        case .namedQuerySaved(let named):
            return (DecodedRecord.describeKey(key), .object([
                ("readTime", .string(InspectionJSON.formatTimestamp(named.readTime))),
                ("query", .string(named.query.canonicalID)),
            ]))
        }
    }
}
