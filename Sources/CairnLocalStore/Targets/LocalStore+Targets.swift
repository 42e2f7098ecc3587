import CairnModel

/// Targets: the queries the client listens to, kept across restarts with their resume tokens and the documents
/// that matched them (Firebase's `LocalStore::AllocateTarget` / `ReleaseTarget` / `ApplyRemoteEvent` over its
/// `TargetCache`). Each mutating call is one atomic append.
///
/// ```swift
/// var room = try store.allocateTarget(query)             // reuses the saved target of an equal query
/// room.resumeToken = token
/// room.snapshotVersion = version
/// try store.updateTarget(room, added: [key], removed: [])
/// store.remoteKeys(forTarget: room.targetID)             // [key]
/// try store.releaseTarget(room.targetID, keepPersisted: false)
/// ```
extension LocalStore {
    /// Starts listening to `query`'s target: the saved target with the same ``QueryTarget`` (its id, resume
    /// token and snapshot versions) when there is one, else a new target with the next even id — the cache's
    /// ids step by 2, as Firebase's `TargetIdGenerator` for the target cache, leaving odd ids to limbo
    /// resolution — saved together with the new highest id. The target becomes active until released.
    package func allocateTarget(_ query: Query) throws -> TargetData {
        try checkOpen()
        if let existing = targetData(for: query) {
            if targets.active[existing.targetID] == nil { targets.active[existing.targetID] = existing }
            collector.index.inactiveTargets.remove(existing.targetID)
            return existing
        }
        let (targetID, overflow) = targets.globals.highestTargetID.addingReportingOverflow(2)
        guard !overflow else {
            throw LocalStoreError(.invalidArgument, "every target id up to \(Int32.max) is used; clear the cache to start again")
        }
        var globals = targets.globals
        globals.highestTargetID = targetID
        let sequences = try commitTargetEvents([.saved(TargetData(targetID: targetID, query: query)), .globalsChanged(globals)])
        let data = TargetData(targetID: targetID, query: query, sequenceNumber: sequences[0])
        targets.active[targetID] = data
        return data
    }

    /// The data of the target that runs `query`'s target: the active data when the target is active (it may be
    /// newer than what is saved), else the saved data; `nil` when the cache has no such target.
    package func targetData(for query: Query) -> TargetData? {
        guard let entry = targets.target(matching: query.target) else { return nil }
        return targets.active[entry.data.targetID] ?? entry.data
    }

    /// The ids of the targets allocated and not released in this session; garbage collection leaves them alone.
    package var activeTargetIDs: Set<Int32> { Set(targets.active.keys) }

    /// Applies a remote event's change to an active target: its new data (resume token, snapshot versions) and
    /// the documents that joined (`added`), left (`removed`) or changed (`modified`) its result. In one
    /// append: the membership change, and the data when Firebase's `ShouldPersistTargetData` says it is worth
    /// saving — the previous data has no resume token, the new snapshot version is 5 minutes or more past the
    /// previous one, or documents were added, modified or removed. Otherwise only the active data changes, as a
    /// resume token alone is not worth a write; the watch stream resumes from the active data anyway.
    ///
    /// Returns the active data; its sequence number is the LSN of its latest save. After a long run of changes
    /// the membership change is written as a snapshot of the whole membership, which retires the older ones.
    ///
    /// - Throws: `invalidArgument` when the target is not active or `data` runs another query.
    @discardableResult
    package func updateTarget(
        _ data: TargetData, added: Set<DocumentKey>, removed: Set<DocumentKey>, modified: Set<DocumentKey> = []
    ) throws -> TargetData {
        try checkOpen()
        var (changes, new) = try targetCache.planUpdate(data, over: nil, added: added, removed: removed, modified: modified)
        if !changes.isEmpty {
            let sequences = try commitTargetEvents(changes)
            if case .saved = changes[0] { new.sequenceNumber = sequences[0] }
        }
        targets.active[data.targetID] = new
        try collectEagerly()
        return new
    }



    /// Stops listening to a target. With `keepPersisted` false (what a single client does), the target's active
    /// data is saved once more, so its sequence number — its recency for garbage collection — is the release
    /// time and its latest resume token survives a restart (Firebase's LRU `RemoveTarget` delegate). With
    /// `keepPersisted` true nothing is written (Firebase's `keepPersistedTargetData`, for a client that does
    /// not own the cache's writes). Either way the target stays cached until garbage collection removes it —
    /// except in an eager memory cache, where a release without `keepPersisted` removes the target and every
    /// document nothing else references. The target's local-view references are dropped.
    ///
    /// - Throws: `invalidArgument` when the target is not active.
    package func releaseTarget(_ targetID: Int32, keepPersisted: Bool) throws {
        try checkOpen()
        guard let data = targets.active[targetID] else {
            throw LocalStoreError(.invalidArgument, "target \(targetID) is not active, so it cannot be released")
        }
        if !keepPersisted { try commitTargetEvents([.saved(data)]) }
        targets.active[targetID] = nil
        collector.index.inactiveTargets.set(targetID, sequence: targets.saved[targetID]?.data.sequenceNumber ?? data.sequenceNumber)
        dropLocalViewReferences(of: targetID)
        // Eager memory mode (Firebase's MemoryEagerReferenceDelegate.RemoveTarget): the target goes at once.
        if collector.referenceDelegate.removesReleasedTargets && !keepPersisted { try commitTargetEvents([.removed(targetID)]) }
        try collectEagerly()
    }

    /// Removes a released target and its membership from the cache (garbage collection). Its id is never
    /// allocated again. The documents it held stay cached; those in no other target become orphans.
    ///
    /// - Throws: `invalidArgument` when the target is active or not cached.
    package func removeTarget(_ targetID: Int32) throws {
        try checkOpen()
        guard targets.active[targetID] == nil else {
            throw LocalStoreError(.invalidArgument, "target \(targetID) is active: release it before removing it")
        }
        guard targets.saved[targetID] != nil else {
            throw LocalStoreError(.invalidArgument, "target \(targetID) is not in the cache")
        }
        try commitTargetEvents([.removed(targetID)])
    }

    /// The documents the server says match the target (Firebase's `GetRemoteDocumentKeys`).
    package func remoteKeys(forTarget targetID: Int32) -> Set<DocumentKey> { targets.membership.keys(of: targetID) }

    /// The cached targets whose membership holds the document; empty for an orphan.
    package func targetIDs(containing key: DocumentKey) -> Set<Int32> { targets.membership.targets(containing: key) }

    /// Appends target-cache events in one batch and applies them to the view, retiring what they supersede.
    /// Returns each event's sequence number.
    @discardableResult
    func commitTargetEvents(_ changes: [TargetCacheEvent]) throws -> [UInt64] {
        try commit(changes.map(\.encoded)) { written in
            for (change, (reference, sequence)) in zip(changes, written) {
                applyTargetEvent(change, reference: reference, sequence: sequence)
            }
            return written.map(\.sequence)
        }
    }

    /// Records that the target's view is in sync with the server at the target's snapshot version (Firebase's
    /// `NotifyLocalViewChanges` for a view that is not from the cache): its last limbo-free snapshot version
    /// becomes its snapshot version, so the query engine may start from the previous result. Only the active
    /// data changes, as in Firebase; the next save of the target persists it. Nothing happens for a target that
    /// is not active or a closed cache.
    ///
    /// ```swift
    /// store.noteLimboFree(targetID: 2)
    /// store.targetData(for: query)?.lastLimboFreeSnapshotVersion   // == its snapshotVersion
    /// ```
    package func noteLimboFree(targetID: Int32) {
        guard (try? checkOpen()) != nil, var data = targets.active[targetID] else { return }
        data.lastLimboFreeSnapshotVersion = data.snapshotVersion
        targets.active[targetID] = data
    }
}
