import CairnModel

/// What the client core (the SyncEngine) needs from the cache beyond the other extensions.
extension LocalStore {
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
    public func noteLimboFree(targetID: Int32) {
        guard (try? checkOpen()) != nil, var data = targets.active[targetID] else { return }
        data.lastLimboFreeSnapshotVersion = data.snapshotVersion
        targets.active[targetID] = data
    }
}

extension LocalStore {
    /// Forgets an active target's resume token and snapshot versions, durably: an existence filter said the
    /// cached result is wrong, so the target must be listened to from scratch, also after a restart (Firebase's
    /// `ApplyRemoteEvent` for a target mismatch). Nothing happens for a target that is not active.
    ///
    /// ```swift
    /// try store.clearResumeToken(targetID: 2)
    /// store.targetData(for: query)?.resumeToken   // []
    /// ```
    public func clearResumeToken(targetID: Int32) throws {
        try checkOpen()
        guard var data = targets.active[targetID] else { return }
        data.resumeToken = []
        data.snapshotVersion = TargetData.noSnapshotVersion
        data.lastLimboFreeSnapshotVersion = TargetData.noSnapshotVersion
        let sequences = try commitTargetEvents([.saved(data)])
        data.sequenceNumber = sequences[0]
        targets.active[targetID] = data
    }
}
