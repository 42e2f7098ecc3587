import CairnModel
import LocalStore

/// What the watch stream delivered up to one consistent snapshot (Firebase's `RemoteEvent`), built by the
/// ``WatchChangeAggregator`` and handed to the ``RemoteSyncer``.
struct RemoteEvent: Sendable {
    /// The snapshot version the event brings every listened target to.
    var snapshotVersion: CairnModel.Timestamp
    /// Per target: its new resume token, whether it became current and its membership changes.
    var targetChanges: [Int32: TargetChange]
    /// Targets whose cached results an existence filter proved wrong: they must be re-listened to with a fresh
    /// query (the purpose says whether a bloom filter was involved).
    var targetMismatches: [Int32: TargetData.Purpose]
    /// The new server state of the documents that changed: found, or `noDocument` for deletes.
    var documentUpdates: [DocumentKey: Document]
    /// Documents only limbo-resolution targets watch: their update resolves limbo without touching a query.
    var resolvedLimboDocuments: Set<DocumentKey>

    init(
        snapshotVersion: CairnModel.Timestamp, targetChanges: [Int32: TargetChange] = [:],
        targetMismatches: [Int32: TargetData.Purpose] = [:], documentUpdates: [DocumentKey: Document] = [:],
        resolvedLimboDocuments: Set<DocumentKey> = []
    ) {
        self.snapshotVersion = snapshotVersion
        self.targetChanges = targetChanges
        self.targetMismatches = targetMismatches
        self.documentUpdates = documentUpdates
        self.resolvedLimboDocuments = resolvedLimboDocuments
    }

    /// The same event in the form ``LocalStore/applyRemoteEvent(_:)`` takes; documents in key order.
    var localStoreEvent: LocalStore.RemoteEvent {
        LocalStore.RemoteEvent(
            snapshotVersion: snapshotVersion,
            targetChanges: targetChanges.mapValues { change in
                LocalStore.RemoteEvent.TargetChange(
                    resumeToken: change.resumeToken, added: change.added, modified: change.modified,
                    removed: change.removed)
            },
            documentUpdates: documentUpdates.keys.sorted().map { documentUpdates[$0]! })
    }
}

/// One target's part of a ``RemoteEvent`` (Firebase's `TargetChange`).
struct TargetChange: Sendable, Hashable {
    /// The token to resume the target from; empty when the server sent none.
    var resumeToken: [UInt8]
    /// True when the target became current (consistent with the server) in this event.
    var current: Bool
    var added: Set<DocumentKey>
    var modified: Set<DocumentKey>
    var removed: Set<DocumentKey>

    init(
        resumeToken: [UInt8] = [], current: Bool = false, added: Set<DocumentKey> = [],
        modified: Set<DocumentKey> = [], removed: Set<DocumentKey> = []
    ) {
        self.resumeToken = resumeToken
        self.current = current
        self.added = added
        self.modified = modified
        self.removed = removed
    }
}
