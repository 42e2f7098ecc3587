import CairnModel
import SegmentLog

/// The target cache (Firebase's `TargetCache` with the globals): owns the targets view — saved and active
/// targets, their membership, the globals — and the events `targetSaved`, `targetRemoved`,
/// `targetMembershipChanged` and `globalsChanged`. Each event goes through `LocalStore.applyTargetEvent`, which
/// also tells the garbage collector which documents joined or left their last target. The operations are in
/// `LocalStore+Targets.swift` and `LocalStore+Globals.swift`.
///
/// ```swift
/// let cache = TargetCache()
/// try cache.replay(record, kind: .targetSaved, into: store)
/// cache.view.saved[2]?.data.resumeToken
/// ```
final class TargetCache: StoreComponent {
    /// Saved targets, membership, globals, and the targets active in this session.
    var view = TargetView()

    static let eventKinds: [EventKind] = [.targetSaved, .targetRemoved, .targetMembershipChanged, .globalsChanged]

    func replay(_ record: RecordView, kind: EventKind, into store: LocalStore) throws {
        let event = try TargetCacheEvent.decode(kind, key: record.key, value: record.value)
        store.applyTargetEvent(event, reference: .log(record.location), sequence: record.lsn, replaying: true)
    }

    func finishReplay(into store: LocalStore) throws {}

    var liveEventCount: Int { view.liveRecordCount }

    func relocate(_ move: Relocation, kind: EventKind, key: UnsafeRawBufferPointer, context: inout RelocationContext) throws {
        switch kind {
        case .targetRemoved:
            context.removals.relocate(from: move.from, to: move.to)
        case .globalsChanged:
            view.relocate(kind, targetID: nil, from: .log(move.from), to: .log(move.to))
        default:
            view.relocate(kind, targetID: try TargetEvent.targetID(from: key), from: .log(move.from), to: .log(move.to))
        }
    }

    static func describe(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (key: String, body: InspectionJSON) {
        DecodedRecord.targetEvent(try TargetCacheEvent.decode(kind, key: key, value: value))
    }
}
