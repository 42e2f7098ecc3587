import CairnModel
import LocalStore

/// What the watch stream delivered up to one consistent snapshot (Firebase's `RemoteEvent`), built by the
/// ``WatchChangeAggregator`` and handed to the ``RemoteSyncer``.
package struct RemoteEvent: Sendable {
    /// The snapshot version the event brings every listened target to.
    package var snapshotVersion: Timestamp
    /// Per target: its new resume token, whether it became current and its membership changes.
    package var targetChanges: [Int32: TargetChange]
    /// Targets whose cached results an existence filter proved wrong: they must be re-listened to with a fresh
    /// query (the purpose says whether a bloom filter was involved).
    package var targetMismatches: [Int32: TargetData.Purpose]
    /// The new server state of the documents that changed: found, or `noDocument` for deletes.
    package var documentUpdates: [DocumentKey: Document]
    /// Documents only limbo-resolution targets watch: their update resolves limbo without touching a query.
    package var resolvedLimboDocuments: Set<DocumentKey>

    package init(
        snapshotVersion: Timestamp, targetChanges: [Int32: TargetChange] = [:],
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
    package var localStoreEvent: LocalStore.RemoteEvent {
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
package struct TargetChange: Sendable, Hashable {
    /// The token to resume the target from; empty when the server sent none.
    package var resumeToken: [UInt8]
    /// True when the target became current (consistent with the server) in this event.
    package var current: Bool
    package var added: Set<DocumentKey>
    package var modified: Set<DocumentKey>
    package var removed: Set<DocumentKey>

    package init(
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
