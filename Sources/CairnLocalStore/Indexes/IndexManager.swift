import CairnModel
import SegmentLog

/// The index manager (Firebase's `IndexManager` and `IndexBackfiller`): owns the field-index view and the
/// `indexConfigurationChanged` event. The newest configuration wins; index entries are not in the log but
/// rebuilt by the backfill from the remote documents, so replay installs the configuration after the remote
/// document cache finished. The operations are in `LocalStore+Indexes.swift`.
///
/// ```swift
/// let indexes = IndexManager(documents: documentCache)
/// try indexes.replay(record, kind: .indexConfigurationChanged, into: store)
/// try indexes.finishReplay(into: store)       // the indexes wait for their backfill
/// ```
final class IndexManager: StoreComponent {
    /// Configuration, entries and backfill progress of the field indexes.
    var view = FieldIndexView()
    /// During replay only: the newest configuration met so far.
    private var newest: IndexConfigurationEvent?
    /// The remote documents the indexes cover (a new index's backfill starts from their keys).
    private let documents: RemoteDocumentCache

    init(documents: RemoteDocumentCache) {
        self.documents = documents
    }

    static let eventKinds: [EventKind] = [.indexConfigurationChanged]

    func replay(_ record: RecordView, kind: EventKind, into store: LocalStore) throws {
        let reference = EventReference.log(record.location)
        if let current = view.configurationRecord, current.sequence > record.lsn {
            store.events.retire(reference)
            return
        }
        let configuration = try IndexConfigurationEvent.decode(record.value)
        if let current = view.configurationRecord { store.events.retire(current.reference) }
        view.configurationRecord = (reference, record.lsn)
        newest = configuration
    }

    var liveEventCount: Int { view.configurationRecord == nil ? 0 : 1 }

    func finishReplay(into store: LocalStore) throws {
        guard let configuration = newest else { return }
        newest = nil
        apply(configuration)
    }

    func relocate(_ move: Relocation, kind: EventKind, key: UnsafeRawBufferPointer, context: inout RelocationContext) throws {
        if let current = view.configurationRecord, current.reference == .log(move.from) {
            view.configurationRecord = (.log(move.to), current.sequence)
        }
    }

    /// Installs a configuration: indexes still listed keep their entries, others go, new ones wait for their
    /// backfill over the documents of their collection group.
    func apply(_ configuration: IndexConfigurationEvent) {
        view.autoCreationEnabled = configuration.autoCreationEnabled
        view.replaceIndexes(configuration.indexes) { group in
            (documents.view.groups[group] ?? []).compactMap { collection in
                documents.view.collections[collection].map { (collection, $0.count) }
            }
        }
    }

    static func describe(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (key: String, body: InspectionJSON) {
        let configuration = try IndexConfigurationEvent.decode(value)
        return (DecodedRecord.describeKey(key), .object([
            ("autoCreation", .bool(configuration.autoCreationEnabled)),
            ("indexes", .array(configuration.indexes.map(DecodedRecord.indexJSON))),
        ]))
    }
}
