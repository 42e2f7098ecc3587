import SegmentLog

/// A part of the cache that owns event kinds (Docs/LocalStore.md §3a): it alone replays their records into its
/// view, follows them when compaction moves them and describes them for inspection, so adding an event kind
/// touches one component. The store dispatches by the ``ComponentRegistry``; no central `switch` over
/// ``EventKind`` remains.
///
/// ```swift
/// final class IndexManager: StoreComponent {
///     static let eventKinds: [EventKind] = [.indexConfigurationChanged]
///     func replay(_ record: RecordView, kind: EventKind, into store: LocalStore) throws { ... }
///     ...
/// }
/// ```
protocol StoreComponent: AnyObject {
    /// The event kinds this component owns; every kind has exactly one owner.
    static var eventKinds: [EventKind] { get }
    /// A record of an owned kind as `cairn dump` shows it: its key, readable, and its contents decoded.
    static func describe(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (key: String, body: InspectionJSON)
    /// Applies one record of an owned kind met by replay. Only headers are read: bodies stay in the log. Records
    /// come in log order, which compaction may have changed: compare sequence numbers, not positions.
    func replay(_ record: RecordView, kind: EventKind, into store: LocalStore) throws
    /// Ends replay: installs what the component gathered while the records came in.
    func finishReplay(into store: LocalStore) throws
    /// Points the view at the new place of an owned record that compaction moved.
    func relocate(_ move: Relocation, kind: EventKind, key: UnsafeRawBufferPointer, context: inout RelocationContext) throws
    /// The events of owned kinds the view holds as live, which compaction must keep: the current record of
    /// everything the view knows. Removal records are not counted here: the ``CompactionCoordinator`` holds
    /// evictions and target removals, and batch removals stay live for good.
    var liveEventCount: Int { get }
}

/// What the relocations of one compaction share: the split document keys (parsed once per collection) and
/// the removal records that follow their records.
struct RelocationContext {
    var splitter = DocumentKeySplitter()
    var removals: RemovalRecords
}

/// The components by the event kind they own: replay and compaction look the owner of a record up here, and
/// inspection the owner's type.
///
/// ```swift
/// let registry = ComponentRegistry([documents, queue, targets, indexes])
/// try registry.owner(of: record.kind)?.replay(record, kind: kind, into: store)
/// ComponentRegistry.ownerType(of: .targetSaved)      // TargetCache.self
/// ```
struct ComponentRegistry {
    /// The types of the components that own event kinds, in replay order (a store's registry holds one of each).
    static var componentTypes: [any StoreComponent.Type] {
        [RemoteDocumentCache.self, MutationQueue.self, TargetCache.self, IndexManager.self, BundleCache.self]
    }

    /// The type of the component that owns `kind` (for decoding records without a store).
    static func ownerType(of kind: EventKind) -> (any StoreComponent.Type)? {
        componentTypes.first { $0.eventKinds.contains(kind) }
    }

    /// In replay order: a component's `finishReplay` may read the views of those before it.
    let components: [any StoreComponent]
    private var owners: [(any StoreComponent)?] = Array(repeating: nil, count: 256)

    /// - Precondition: no two components own the same kind (a programming error, not bad input).
    init(_ components: [any StoreComponent]) {
        self.components = components
        for component in components {
            for kind in type(of: component).eventKinds {
                precondition(owners[Int(kind.rawValue)] == nil, "two components own event kind \(kind)")
                owners[Int(kind.rawValue)] = component
            }
        }
    }

    /// The component that owns `kind`, or nil when none does.
    func owner(of kind: EventKind) -> (any StoreComponent)? { owners[Int(kind.rawValue)] }
}
