import CairnModel

/// Which documents belong to which target (Firebase's `target_documents` rows), built from
/// `targetMembershipChanged` events, with the reverse index key → targets that garbage collection needs to
/// tell whether a document is in any target.
///
/// Replay may meet a target's events out of order: compaction moves records but keeps their sequence numbers
/// (SegmentLog `scan`). So every key remembers the sequence number of the last event that mentioned it, and an
/// event only changes a key it mentions later than that; a snapshot event replaces every mention older than
/// itself. The result is the membership the events give in sequence order, whatever order they arrive in.
///
/// Records: a target's live records are its latest snapshot and the deltas after it. After
/// ``deltasPerSnapshot`` deltas the store writes a snapshot instead of the next delta, which retires them.
///
/// ```swift
/// var view = TargetMembershipView()
/// _ = view.apply(.delta(added: [a, b], removed: []), to: 2, reference: r1, sequence: 10)
/// _ = view.apply(.delta(added: [], removed: [a]), to: 2, reference: r2, sequence: 11)
/// view.keys(of: 2)             // [b]
/// view.targets(containing: b)  // [2]
/// ```
struct TargetMembershipView {
    /// How many deltas a target accumulates before the store writes a snapshot instead.
    static let deltasPerSnapshot = 64

    private struct Membership {
        /// The latest snapshot event.
        var snapshot: (reference: EventReference, sequence: UInt64)?
        /// The delta events newer than the snapshot: the live records besides it.
        var deltas: [(reference: EventReference, sequence: UInt64)] = []
        /// Member keys → sequence number of the event that last added them.
        var members: [DocumentKey: UInt64] = [:]
        /// Keys that left after the snapshot → sequence number of the event that removed them, so that an older
        /// event met later during replay cannot bring them back.
        var departed: [DocumentKey: UInt64] = [:]

        var snapshotSequence: UInt64 { snapshot?.sequence ?? 0 }

        func lastMention(of key: DocumentKey) -> UInt64 { members[key] ?? departed[key] ?? 0 }
    }

    private var memberships: [Int32: Membership] = [:]
    /// Document key → the targets it belongs to.
    private var targetsByKey: [DocumentKey: Set<Int32>] = [:]

    func keys(of targetID: Int32) -> Set<DocumentKey> {
        guard let membership = memberships[targetID] else { return [] }
        return Set(membership.members.keys)
    }

    func contains(_ key: DocumentKey, in targetID: Int32) -> Bool {
        memberships[targetID]?.members[key] != nil
    }

    func targets(containing key: DocumentKey) -> Set<Int32> { targetsByKey[key] ?? [] }

    /// Whether any target has a member.
    var hasMembers: Bool { !targetsByKey.isEmpty }

    /// Points a membership record of `targetID` at its new place after compaction moved it.
    mutating func relocate(_ targetID: Int32, from: EventReference, to: EventReference) {
        guard var membership = memberships[targetID] else { return }
        if membership.snapshot?.reference == from { membership.snapshot!.reference = to }
        if let i = membership.deltas.firstIndex(where: { $0.reference == from }) { membership.deltas[i].reference = to }
        memberships[targetID] = membership
    }

    /// The live delta records of a target (the records since its last snapshot).
    func deltaCount(of targetID: Int32) -> Int { memberships[targetID]?.deltas.count ?? 0 }

    /// How many documents a target holds.
    func memberCount(of targetID: Int32) -> Int { memberships[targetID]?.members.count ?? 0 }

    /// Whether the next change of a target should be written as a snapshot: once it has at least
    /// ``deltasPerSnapshot`` deltas and at least one per 16 members, so a snapshot (which writes every member)
    /// costs at most ~16 keys per delta it replaces, however large the target.
    func wantsSnapshot(_ targetID: Int32) -> Bool {
        let deltas = deltaCount(of: targetID)
        return deltas >= Self.deltasPerSnapshot && deltas >= memberCount(of: targetID) / 16
    }

    /// Applies a membership event; returns the references of the records it supersedes (itself, when it is
    /// older than the target's latest snapshot).
    mutating func apply(
        _ change: MembershipChange, to targetID: Int32, reference: EventReference, sequence: UInt64
    ) -> [EventReference] {
        var membership = memberships[targetID] ?? Membership()
        guard sequence > membership.snapshotSequence else { return [reference] }
        var superseded: [EventReference] = []
        if change.isSnapshot {
            superseded += membership.snapshot.map { [$0.reference] } ?? []
            superseded += membership.deltas.filter { $0.sequence < sequence }.map(\.reference)
            membership.deltas.removeAll { $0.sequence < sequence }
            membership.snapshot = (reference, sequence)
            for (key, mentioned) in membership.members where mentioned < sequence {
                membership.members[key] = nil
                unindex(key, targetID)
            }
            membership.departed = membership.departed.filter { $0.value > sequence }
            for key in change.added where membership.lastMention(of: key) < sequence {
                membership.members[key] = sequence
                index(key, targetID)
            }
        } else {
            membership.deltas.append((reference, sequence))
            for key in change.removed where membership.lastMention(of: key) < sequence {
                if membership.members.removeValue(forKey: key) != nil { unindex(key, targetID) }
                membership.departed[key] = sequence
            }
            for key in change.added where membership.lastMention(of: key) < sequence {
                membership.departed[key] = nil
                membership.members[key] = sequence
                index(key, targetID)
            }
        }
        memberships[targetID] = membership
        return superseded
    }

    /// Forgets a target's membership; returns the references of its records.
    /// The records the view holds as live: each target's latest snapshot and the deltas after it.
    var liveRecordCount: Int {
        memberships.values.reduce(0) { $0 + ($1.snapshot == nil ? 0 : 1) + $1.deltas.count }
    }

    mutating func removeAll(of targetID: Int32) -> [EventReference] {
        guard let membership = memberships.removeValue(forKey: targetID) else { return [] }
        for key in membership.members.keys { unindex(key, targetID) }
        return (membership.snapshot.map { [$0.reference] } ?? []) + membership.deltas.map(\.reference)
    }

    private mutating func index(_ key: DocumentKey, _ targetID: Int32) {
        targetsByKey[key, default: []].insert(targetID)
    }

    private mutating func unindex(_ key: DocumentKey, _ targetID: Int32) {
        targetsByKey[key]?.remove(targetID)
        if targetsByKey[key]?.isEmpty == true { targetsByKey[key] = nil }
    }
}
