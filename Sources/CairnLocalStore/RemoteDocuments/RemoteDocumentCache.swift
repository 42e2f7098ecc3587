import CairnModel
import SegmentLog

/// The remote document cache (Firebase's `RemoteDocumentCache`): owns the remote documents view and the
/// document events, `remoteDocumentChanged` and `documentEvicted`. Replay reads headers only and resolves each
/// key once the scan ends (``RemoteDocumentReplay``); compaction moves are followed per collection
/// (``DocumentKeySplitter``). The operations over it are in `LocalStore+RemoteDocuments.swift`.
///
/// ```swift
/// let cache = RemoteDocumentCache()
/// try cache.replay(record, kind: .remoteDocumentChanged, into: store)
/// try cache.finishReplay(into: store)
/// cache.view.entry(for: key)?.version
/// ```
final class RemoteDocumentCache: StoreComponent {
    /// The server state of the cached documents, by collection.
    var view = RemoteDocumentView()
    /// During replay only: the latest event per key, in the buckets the view will keep, and the evictions.
    private var replaying = RemoteDocumentReplay()

    static let eventKinds: [EventKind] = [.remoteDocumentChanged, .documentEvicted]

    func replay(_ record: RecordView, kind: EventKind, into store: LocalStore) throws {
        if kind == .remoteDocumentChanged {
            let header = try RemoteDocumentHeader.decode(record.value)
            let entry = RemoteDocumentEntry(
                reference: .log(record.location), state: header.state, version: header.version,
                readTime: header.readTime, hasCommittedMutations: header.hasCommittedMutations, sequence: record.lsn)
            if let superseded = try replaying.noteChanged(key: record.key, entry: entry) { store.events.retire(superseded) }
        } else {
            // Compaction moves records but keeps their sequence numbers, so an eviction may be met before the
            // document event it removed: the replay compares sequence numbers once the scan ends.
            replaying.noteEvicted(key: record.key, lsn: record.lsn)
            store.compactionCoordinator.removals.track(record.location)
        }
    }

    var liveEventCount: Int { view.foundCount + view.absentCount }

    func finishReplay(into store: LocalStore) throws {
        var gathered = replaying
        replaying = RemoteDocumentReplay()
        try gathered.install(into: &view) { store.events.retire($0) }
    }

    func relocate(_ move: Relocation, kind: EventKind, key: UnsafeRawBufferPointer, context: inout RelocationContext) throws {
        let from = EventReference.log(move.from)
        let to = EventReference.log(move.to)
        if kind == .documentEvicted {
            context.removals.relocate(from: move.from, to: move.to)
        } else if let (collection, documentID) = try context.splitter.split(key) {
            view.relocate(collection: context.splitter.collections[collection], documentID: documentID, from: from, to: to)
        } else {
            view.relocate(try RemoteDocumentEvent.documentKey(from: key), from: from, to: to)
        }
    }

    /// Which of `documents` change the cache (Firebase's `PopulateDocumentChanges`): the documents to store,
    /// and the keys whose access was lost (a `noDocument` at version 0), to evict.
    func changes(in documents: [Document]) -> (accepted: [Document], lostAccess: [DocumentKey]) {
        var newest: [DocumentKey: Document] = [:]
        var order: [DocumentKey] = []
        for document in documents {
            if let seen = newest[document.key] {
                if document.version >= seen.version { newest[document.key] = document }
            } else {
                newest[document.key] = document
                order.append(document.key)
            }
        }
        var accepted: [Document] = []
        var lostAccess: [DocumentKey] = []
        for key in order {
            let document = newest[key]!
            if document.state == .noDocument && document.version == Timestamp(seconds: 0, nanoseconds: 0) {
                if view.entry(for: key) != nil { lostAccess.append(key) }
                continue
            }
            guard let cached = view.entry(for: key) else {
                accepted.append(document)
                continue
            }
            if document.version > cached.version || (document.version == cached.version && cached.hasCommittedMutations) {
                accepted.append(document)
            }
        }
        return (accepted, lostAccess)
    }

    static func describe(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (key: String, body: InspectionJSON) {
        let documentKey = try RemoteDocumentEvent.documentKey(from: key)
        guard kind == .remoteDocumentChanged else {
            guard value.isEmpty else { throw LocalStoreError.dataLoss("an eviction holds \(value.count) bytes instead of none") }
            return (documentKey.description, .object([]))
        }
        let document = try RemoteDocumentEvent.decode(value, key: documentKey)
        var members: [(String, InspectionJSON)] = [
            ("state", .string("\(document.state)")),
            ("version", .string(InspectionJSON.formatTimestamp(document.version))),
            ("readTime", .string(InspectionJSON.formatTimestamp(document.readTime))),
        ]
        if document.hasCommittedMutations { members.append(("hasCommittedMutations", .bool(true))) }
        if document.state == .found { members.append(("fields", InspectionJSON.fields(document.data))) }
        return (documentKey.description, .object(members))
    }
}
