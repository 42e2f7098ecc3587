import CairnModel

/// The targets view (Firebase's `TargetCache`): the saved targets by id and by canonical id, their membership,
/// the globals, and the references of the records that are live, so that every superseded record is retired
/// (Docs/LocalStore.md §3–4).
///
/// Everything here is a pure function of the events except ``active``: the targets the client listens to in
/// this session, with their latest data, which may be newer than the saved data (a resume token that alone is
/// not worth saving, see `updateTarget`). That is Firebase's `target_data_by_target_`.
///
/// Records that stay live:
/// - the latest `targetSaved` of each target; a newer one retires the previous;
/// - the latest `globalsChanged`; a newer one retires the previous;
/// - the membership records since each target's latest snapshot (``TargetMembershipView``);
/// - every `targetRemoved`, which supersedes its target's other records, until it shadows nothing: the store
///   retires it once every segment that existed when it was written is compacted away (`RemovalRecords`,
///   Docs/LocalStore.md §4).
///
/// Sequence numbers decide, not arrival order: replay may meet records out of sequence order after compaction.
///
/// ```swift
/// var view = TargetView()
/// let superseded = view.apply(.saved(data), reference: reference, sequence: lsn)   // retire what it returns
/// view.target(matching: query.target)?.data.sequenceNumber                          // lsn
/// ```
struct TargetView {
    /// A saved target: its data (``TargetData/sequenceNumber`` is the record's) and its record.
    struct Entry {
        var data: TargetData
        var reference: EventReference
    }

    /// The latest saved data of every target not removed.
    private(set) var saved: [Int32: Entry] = [:]
    /// QueryTarget canonical id → the ids of the saved targets with that id. Targets that are not `==` may
    /// share a canonical id (`where(a).where(b)` and `where(and(a, b))`), so lookups compare targets.
    private var idsByCanonicalID: [String: [Int32]] = [:]
    /// Targets whose `targetRemoved` was seen; their ids are never reused, so it supersedes all their records.
    private var removedIDs: Set<Int32> = []
    private(set) var membership = TargetMembershipView()
    private(set) var globals = TargetGlobals()
    private var globalsRecord: (reference: EventReference, sequence: UInt64)?
    /// Session state, not derived from events: the targets the client listens to, with their latest data.
    var active: [Int32: TargetData] = [:]

    /// The records the view holds as live: the latest save of each target, the membership records, the
    /// latest globals.
    var liveRecordCount: Int { saved.count + membership.liveRecordCount + (globalsRecord == nil ? 0 : 1) }

    /// The saved target that runs `target`, if any.
    func target(matching target: QueryTarget) -> Entry? {
        for id in idsByCanonicalID[target.canonicalID] ?? [] {
            if let entry = saved[id], entry.data.target == target { return entry }
        }
        return nil
    }

    /// Points a record at its new place after compaction moved it from `from` (a saved target, a membership
    /// record, or the globals); records the view does not hold are ignored.
    mutating func relocate(_ kind: EventKind, targetID: Int32?, from: EventReference, to: EventReference) {
        switch kind {
        case .targetSaved:
            if let id = targetID, saved[id]?.reference == from { saved[id]!.reference = to }
        case .targetMembershipChanged:
            if let id = targetID { membership.relocate(id, from: from, to: to) }
        case .globalsChanged:
            if globalsRecord?.reference == from { globalsRecord!.reference = to }
        default:
            break
        }
    }

    /// Applies an event at `reference` with sequence number `sequence` (appended now, or met by replay);
    /// returns the references of the records it supersedes, the event's own when it is already superseded.
    mutating func apply(_ event: TargetCacheEvent, reference: EventReference, sequence: UInt64) -> [EventReference] {
        switch event {
        case .saved(var data):
            data.sequenceNumber = sequence
            return save(data, reference: reference)
        case .removed(let targetID):
            return remove(targetID)
        case .membershipChanged(let targetID, let change):
            if removedIDs.contains(targetID) { return [reference] }
            return membership.apply(change, to: targetID, reference: reference, sequence: sequence)
        case .globalsChanged(let globals):
            return setGlobals(globals, reference: reference, sequence: sequence)
        }
    }

    private mutating func save(_ data: TargetData, reference: EventReference) -> [EventReference] {
        let id = data.targetID
        if removedIDs.contains(id) { return [reference] }
        var superseded: [EventReference] = []
        if let current = saved[id] {
            if current.data.sequenceNumber > data.sequenceNumber { return [reference] }
            superseded.append(current.reference)
            unindex(current.data)
        }
        saved[id] = Entry(data: data, reference: reference)
        idsByCanonicalID[data.target.canonicalID, default: []].append(id)
        return superseded
    }

    private mutating func remove(_ targetID: Int32) -> [EventReference] {
        removedIDs.insert(targetID)
        active[targetID] = nil
        var superseded = membership.removeAll(of: targetID)
        if let current = saved.removeValue(forKey: targetID) {
            superseded.append(current.reference)
            unindex(current.data)
        }
        return superseded
    }

    private mutating func setGlobals(_ globals: TargetGlobals, reference: EventReference, sequence: UInt64) -> [EventReference] {
        if let current = globalsRecord, current.sequence > sequence { return [reference] }
        let superseded = globalsRecord.map { [$0.reference] } ?? []
        self.globals = globals
        globalsRecord = (reference, sequence)
        return superseded
    }

    private mutating func unindex(_ data: TargetData) {
        let canonicalID = data.target.canonicalID
        idsByCanonicalID[canonicalID]?.removeAll { $0 == data.targetID }
        if idsByCanonicalID[canonicalID]?.isEmpty == true { idsByCanonicalID[canonicalID] = nil }
    }
}
