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

    /// A resume token that is this much older than the new one is saved even without other changes (Firebase's
    /// `kResumeTokenMaxAgeSeconds`).
    static let resumeTokenMaxAgeSeconds: Int64 = 5 * 60

    /// The events that bring an active target to `data` with these membership changes (nothing is written),
    /// and the target's new active data. A `saved` event, when there is one, comes first. `previous` is the
    /// target's data when the same commit already changes it (a reset), else its active data counts.
    func planUpdate(
        _ data: TargetData, over previous: TargetData?, added: Set<DocumentKey>, removed: Set<DocumentKey>,
        modified: Set<DocumentKey>
    ) throws -> (changes: [TargetCacheEvent], new: TargetData) {
        let targetID = data.targetID
        guard let old = previous ?? view.active[targetID] else {
            throw LocalStoreError(.invalidArgument, "target \(targetID) is not active: allocate its query before updating it")
        }
        guard data.target == old.target else {
            throw LocalStoreError(
                .invalidArgument, "target \(targetID) runs \(old.target), not \(data.target): a target's query never changes")
        }
        var new = data
        new.sequenceNumber = old.sequenceNumber
        var changes: [TargetCacheEvent] = []
        if Self.shouldPersistTargetData(new, over: old, changeCount: added.count + removed.count + modified.count) {
            changes.append(.saved(new))
        }
        // Only what changes is written; a key both added and removed ends up added, as in Firebase.
        let joining = added.filter { !view.membership.contains($0, in: targetID) }
        let leaving = removed.subtracting(added).filter { view.membership.contains($0, in: targetID) }
        if !joining.isEmpty || !leaving.isEmpty {
            if view.membership.wantsSnapshot(targetID) {
                let members = view.membership.keys(of: targetID).union(joining).subtracting(leaving)
                changes.append(.membershipChanged(targetID, .snapshot(members)))
            } else {
                changes.append(.membershipChanged(targetID, .delta(added: joining, removed: leaving)))
            }
        }
        return (changes, new)
    }

    /// Firebase's `ShouldPersistTargetData`: save when the old data has no resume token, when the new snapshot
    /// version is at least ``resumeTokenMaxAgeSeconds`` past the old one, or when documents changed.
    static func shouldPersistTargetData(_ new: TargetData, over old: TargetData, changeCount: Int) -> Bool {
        if old.resumeToken.isEmpty { return true }
        if new.snapshotVersion.seconds &- old.snapshotVersion.seconds >= resumeTokenMaxAgeSeconds { return true }
        return changeCount > 0
    }

    static func describe(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (key: String, body: InspectionJSON) {
        DecodedRecord.targetEvent(try TargetCacheEvent.decode(kind, key: key, value: value))
    }
}
