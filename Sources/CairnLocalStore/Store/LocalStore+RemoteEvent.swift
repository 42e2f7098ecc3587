import CairnModel

extension LocalStore {
    /// Applies a remote event in ONE atomic append (Firebase's `LocalStore::ApplyRemoteEvent`) and returns the
    /// new local views of the documents it changed, `nil` where the cache knows nothing now. In the append:
    /// the targets of `targetMismatches` reset (no resume token, no snapshot versions), the active targets'
    /// new resume tokens and snapshot versions (saved when `ShouldPersistTargetData` says so) and membership
    /// changes, the documents that changed (newer versions only; read time = the snapshot version), and the
    /// last remote snapshot version. Changes for targets that are not active are ignored, as Firebase does for
    /// targets the client stopped listening to. A `noDocument` at version 0 (access lost, or a deletion the
    /// core synthesized for a failed limbo resolution) removes the cached copy and is always among the changed
    /// documents.
    ///
    /// ```swift
    /// let event = RemoteEvent(snapshotVersion: version,
    ///                         targetChanges: [targetID: TargetChange(resumeToken: token, added: [key])],
    ///                         documentUpdates: [key: document])
    /// let changed = try store.applyRemoteEvent(event)   // [key: the document as the user now sees it]
    /// ```
    ///
    /// - Throws: `invalidArgument` when the snapshot version is older than the last one applied.
    @discardableResult
    package func applyRemoteEvent(_ event: RemoteEvent) throws -> [DocumentKey: Document?] {
        try checkOpen()
        let version = event.snapshotVersion
        guard version >= lastRemoteSnapshotVersion else {
            throw LocalStoreError(
                .invalidArgument, "a remote event cannot go back from snapshot \(lastRemoteSnapshotVersion.seconds)s to \(version.seconds)s")
        }
        // An existence filter proved these targets' cached results wrong: they start from scratch, also after a
        // restart.
        var reset: [Int32: TargetData] = [:]
        for targetID in event.targetMismatches.keys {
            guard var data = targets.active[targetID] else { continue }
            data.resumeToken = []
            data.snapshotVersion = TargetData.noSnapshotVersion
            data.lastLimboFreeSnapshotVersion = TargetData.noSnapshotVersion
            reset[targetID] = data
        }
        var targetEvents: [TargetCacheEvent] = []
        var newTargetData: [(data: TargetData, savedAt: Int?)] = []
        for (targetID, data) in reset.sorted(by: { $0.key < $1.key }) where event.targetChanges[targetID] == nil {
            newTargetData.append((data, targetEvents.count))
            targetEvents.append(.saved(data))
        }
        for (targetID, change) in event.targetChanges.sorted(by: { $0.key < $1.key }) {
            let previous = reset[targetID]
            guard var data = previous ?? targets.active[targetID] else { continue }
            if !change.resumeToken.isEmpty {
                data.resumeToken = change.resumeToken
                data.snapshotVersion = version
            }
            let (changes, new) = try targetCache.planUpdate(
                data, over: previous, added: change.added, removed: change.removed, modified: change.modified)
            let savedAt: Int? = if case .saved = changes.first { targetEvents.count } else { nil }
            targetEvents += changes
            newTargetData.append((new, savedAt))
        }
        let documents = event.documentUpdates.keys.sorted().map { key in
            var document = event.documentUpdates[key]!
            document.readTime = version
            return document
        }
        let (accepted, lostAccess) = documentCache.changes(in: documents)
        var globals = targets.globals
        globals.lastRemoteSnapshotVersion = version
        if version != lastRemoteSnapshotVersion { targetEvents.append(.globalsChanged(globals)) }

        var changedKeys = Set(accepted.map(\.key) + lostAccess)
        if !targetEvents.isEmpty || !changedKeys.isEmpty {
            let encoded = targetEvents.map(\.encoded) + accepted.map(RemoteDocumentEvent.encode) + lostAccess.map(RemoteDocumentEvent.evicted)
            try commit(encoded) { written in
                for (change, (reference, sequence)) in zip(targetEvents, written) {
                    applyTargetEvent(change, reference: reference, sequence: sequence)
                }
                for (data, savedAt) in newTargetData {
                    var data = data
                    if let savedAt { data.sequenceNumber = written[savedAt].sequence }
                    targets.active[data.targetID] = data
                }
                let documentWrites = written.dropFirst(targetEvents.count)
                noteRemoteDocuments(accepted, written: Array(documentWrites.prefix(accepted.count)))
                noteEvictions(lostAccess, written: Array(documentWrites.dropFirst(accepted.count)))
                refreshOverlays(after: accepted.map(\.key) + lostAccess)
            }
            try collectEagerly()
        }
        // A deletion at version 0 changes the views even when the cache did not hold the document.
        for document in documents where document.state == .noDocument && document.version == Self.noVersion {
            changedKeys.insert(document.key)
        }
        try prepareOverlays()
        return try localViews(changedKeys.sorted())
    }
}
