import CairnModel

/// What the watch stream delivered up to one consistent snapshot (Firebase's `RemoteEvent`): per target its
/// new resume token and membership changes, and the new server state of the documents that changed.
public struct RemoteEvent: Sendable {
    /// One target's part of the event.
    public struct TargetChange: Sendable {
        /// The token to resume the target from; empty when the server sent none (the old one stays).
        public var resumeToken: [UInt8]
        public var added: Set<DocumentKey>
        public var modified: Set<DocumentKey>
        public var removed: Set<DocumentKey>

        public init(resumeToken: [UInt8] = [], added: Set<DocumentKey> = [], modified: Set<DocumentKey> = [], removed: Set<DocumentKey> = []) {
            self.resumeToken = resumeToken
            self.added = added
            self.modified = modified
            self.removed = removed
        }
    }

    public var snapshotVersion: Timestamp
    public var targetChanges: [Int32: TargetChange]
    /// Documents by key: found with contents, or `noDocument` (version 0 for "access lost").
    public var documentUpdates: [Document]

    public init(snapshotVersion: Timestamp, targetChanges: [Int32: TargetChange] = [:], documentUpdates: [Document] = []) {
        self.snapshotVersion = snapshotVersion
        self.targetChanges = targetChanges
        self.documentUpdates = documentUpdates
    }
}

extension LocalStore {
    /// Applies a remote event in ONE atomic append (Firebase's `LocalStore::ApplyRemoteEvent`): the active
    /// targets' new resume tokens and snapshot versions (saved when `ShouldPersistTargetData` says so) and
    /// membership changes, the documents that changed (newer versions only; read time = the snapshot version),
    /// and the last remote snapshot version. Changes for targets that are not active are ignored, as Firebase
    /// does for targets the client stopped listening to. Returns the keys whose server state changed.
    ///
    /// ```swift
    /// let event = RemoteEvent(snapshotVersion: version,
    ///                         targetChanges: [targetID: .init(resumeToken: token, added: [key])],
    ///                         documentUpdates: [document])
    /// let changed = try store.applyRemoteEvent(event)
    /// ```
    ///
    /// - Throws: `invalidArgument` when the snapshot version is older than the last one applied.
    @discardableResult
    public func applyRemoteEvent(_ event: RemoteEvent) throws -> [DocumentKey] {
        try checkOpen()
        let version = event.snapshotVersion
        guard version >= lastRemoteSnapshotVersion else {
            throw LocalStoreError(
                .invalidArgument, "a remote event cannot go back from snapshot \(lastRemoteSnapshotVersion.seconds)s to \(version.seconds)s")
        }
        var targetEvents: [TargetCacheEvent] = []
        var newTargetData: [(data: TargetData, savedAt: Int?)] = []
        for (targetID, change) in event.targetChanges.sorted(by: { $0.key < $1.key }) {
            guard var data = targets.active[targetID] else { continue }
            if !change.resumeToken.isEmpty {
                data.resumeToken = change.resumeToken
                data.snapshotVersion = version
            }
            let (changes, new) = try planTargetUpdate(data, added: change.added, removed: change.removed, modified: change.modified)
            let savedAt: Int? = if case .saved = changes.first { targetEvents.count } else { nil }
            targetEvents += changes
            newTargetData.append((new, savedAt))
        }
        let documents = event.documentUpdates.map { document in
            var document = document
            document.readTime = version
            return document
        }
        let (accepted, lostAccess) = remoteDocumentChanges(documents)
        var globals = targets.globals
        globals.lastRemoteSnapshotVersion = version
        if version != lastRemoteSnapshotVersion { targetEvents.append(.globalsChanged(globals)) }
        guard !targetEvents.isEmpty || !accepted.isEmpty || !lostAccess.isEmpty else { return [] }

        let encoded = targetEvents.map(\.encoded) + accepted.map(RemoteDocumentEvent.encode) + lostAccess.map(Self.evictionEvent)
        let written = try events.append(encoded)
        // Durable now: apply to the views; nothing below throws.
        for (change, (reference, sequence)) in zip(targetEvents, written) {
            applyTargetEvent(change, reference: reference, sequence: sequence)
        }
        for (data, savedAt) in newTargetData {
            var data = data
            if let savedAt { data.sequenceNumber = written[savedAt].sequence }
            targets.active[data.targetID] = data
        }
        let documentWrites = Array(written.dropFirst(targetEvents.count))
        noteRemoteDocuments(accepted, written: Array(documentWrites.prefix(accepted.count)))
        noteEvictions(lostAccess, written: Array(documentWrites.dropFirst(accepted.count)))
        let keys = accepted.map(\.key) + lostAccess
        refreshOverlays(after: keys)
        try collectEagerly()
        return keys
    }
}
