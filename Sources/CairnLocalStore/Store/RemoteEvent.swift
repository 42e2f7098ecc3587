import CairnModel

/// What the watch stream delivered up to one consistent snapshot (Firebase's `RemoteEvent`): built by the
/// client core's `WatchChangeAggregator` and applied by ``LocalStore/applyRemoteEvent(_:)`` in one call.
///
/// ```swift
/// let event = RemoteEvent(snapshotVersion: version,
///                         targetChanges: [2: TargetChange(resumeToken: token, current: true, added: [key])],
///                         documentUpdates: [key: document])
/// let changed = try store.applyRemoteEvent(event)   // the new local views of the documents it changed
/// ```
package struct RemoteEvent: Sendable {
    /// The snapshot version the event brings every listened target to.
    package var snapshotVersion: Timestamp
    /// Per target: its new resume token, whether it became current and its membership changes.
    package var targetChanges: [Int32: TargetChange]
    /// Targets whose cached results an existence filter proved wrong: their resume token and snapshot versions
    /// are reset with the event, and the core listens to them again (the purpose says whether a bloom filter
    /// was involved).
    package var targetMismatches: [Int32: TargetData.Purpose]
    /// The new server state of the documents that changed: found, or `noDocument` for deletes (version 0 for
    /// "access lost" or a synthesized deletion).
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
}

/// One target's part of a ``RemoteEvent`` (Firebase's `TargetChange`).
package struct TargetChange: Sendable, Hashable {
    /// The token to resume the target from; empty when the server sent none (the old one stays).
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
