import CairnModel
import CairnLocalStore
import CairnLogging

/// The glue between the views the user listens to and the local and remote stores (Firebase's
/// `core::SyncEngine`): it starts views and watch targets, applies remote events and write results to the cache
/// and the views, resolves documents in limbo, and switches users. Confined to the client's AsyncQueue (the remote
/// store's): every entry point checks that it runs there.
///
/// ```swift
/// let engine = SyncEngine(localStore: store, remoteStore: remote, user: .unauthenticated)
/// engine.callback = eventManager
/// let targetID = try engine.listen(query, shouldListenToRemote: true)
/// engine.writeMutations([.delete(key)]) { error in ... }
/// ```
package final class SyncEngine: QueryEventSource, RemoteSyncer {
    /// One query's view and the target it runs on.
    package final class QueryView {
        package let query: Query
        package let targetID: Int32
        package let view: View

        package init(query: Query, targetID: Int32, view: View) {
            self.query = query
            self.targetID = targetID
            self.view = view
        }
    }

    package let localStore: LocalStore
    package let remoteStore: RemoteStore
    package weak var callback: SyncEngineCallback?
    /// Called with errors the engine cannot hand to a caller (the cache failed while applying a remote event).
    package var onInternalError: ((FirestoreErrorCode) -> Void)?
    package var currentUser: User
    package private(set) var onlineState = OnlineState.unknown

    package var queryViewsByQuery: [Query: QueryView] = [:]
    package var queriesByTarget: [Int32: [Query]] = [:]

    /// Limbo resolution state (SyncEngine+Limbo.swift).
    package var limbo: LimboResolutions

    /// Write callbacks by user and batch id, and `waitForPendingWrites` callbacks by batch id
    /// (SyncEngine+Writes.swift).
    package var writeCallbacks: [User: [Int: (FirestoreErrorCode?) -> Void]] = [:]
    package var pendingWritesCallbacks: [Int: [(FirestoreErrorCode?) -> Void]] = [:]

    package init(localStore: LocalStore, remoteStore: RemoteStore, user: User, maxConcurrentLimboResolutions: Int = 100) {
        self.localStore = localStore
        self.remoteStore = remoteStore
        self.currentUser = user
        self.limbo = LimboResolutions(maxConcurrent: maxConcurrentLimboResolutions)
    }

    /// Reports a confinement violation unless called on the queue; every entry point calls it.
    func verifyOnQueue(_ function: String = #function) {
        remoteStore.queue.verifyIsCurrentQueue("SyncEngine.\(function)")
    }

    // MARK: Listening

    package func listen(_ query: Query, shouldListenToRemote: Bool) throws -> Int32 {
        verifyOnQueue()
        precondition(queryViewsByQuery[query] == nil, "the sync engine already listens to \(query)")
        let targetData: TargetData
        let snapshot: ViewSnapshot
        do {
            targetData = try localStore.allocateTarget(query)
            snapshot = try initializeView(query, targetID: targetData.targetID, resumeToken: targetData.resumeToken)
        } catch {
            throw FirestoreErrorCode.fromCache(error)
        }
        CairnLogger.firestoreSync.debug("listen to \(query.logDescription) as target \(targetData.targetID)")
        callback?.onViewSnapshots([snapshot])
        if shouldListenToRemote { listenRemotely(targetData) }
        return targetData.targetID
    }

    /// Builds the view of a new query from the cache and computes its first snapshot.
    private func initializeView(_ query: Query, targetID: Int32, resumeToken: [UInt8]) throws -> ViewSnapshot {
        let (documents, remoteKeys) = try queryLocally(query, targetID: targetID)
        var current = false
        if let mirror = queriesByTarget[targetID]?.first, let mirrorView = queryViewsByQuery[mirror] {
            current = mirrorView.view.syncState == .synced
        }
        let view = View(query: query, remoteKeys: remoteKeys)
        let changes = view.computeDocumentChanges(Self.keyed(documents))
        let result = view.applyChanges(
            changes, targetUpdate: ViewTargetUpdate(current: current && onlineState != .offline),
            hasCachedResults: !resumeToken.isEmpty)
        queryViewsByQuery[query] = QueryView(query: query, targetID: targetID, view: view)
        queriesByTarget[targetID, default: []].append(query)
        guard let snapshot = result.snapshot else {
            preconditionFailure("a new view always produces a first snapshot")
        }
        return snapshot
    }

    package func listenToRemoteStore(_ query: Query) throws {
        verifyOnQueue()
        do {
            listenRemotely(try localStore.allocateTarget(query))
        } catch {
            throw FirestoreErrorCode.fromCache(error)
        }
    }

    package func stopListening(_ query: Query, shouldUnlistenToRemote: Bool) throws {
        verifyOnQueue()
        guard let queryView = queryViewsByQuery[query] else { return }
        let targetID = queryView.targetID
        queriesByTarget[targetID]?.removeAll { $0 == query }
        queryViewsByQuery[query] = nil
        guard queriesByTarget[targetID]?.isEmpty ?? true else { return }
        CairnLogger.firestoreSync.debug("stop listening to target \(targetID)")
        defer { removeAndCleanupTarget(targetID, error: nil) }
        do {
            try releaseTarget(targetID)
        } catch {
            throw FirestoreErrorCode.fromCache(error)
        }
        if shouldUnlistenToRemote { stopListeningRemotely(targetID) }
    }

    package func stopListeningToRemoteStoreOnly(_ query: Query) {
        verifyOnQueue()
        guard let queryView = queryViewsByQuery[query] else { return }
        if queriesByTarget[queryView.targetID]?.count == 1 { stopListeningRemotely(queryView.targetID) }
    }

    /// Queries with the same target share it: the watch stream hears of it once.
    private func listenRemotely(_ targetData: TargetData) {
        guard remoteStore.listenTargets[targetData.targetID] == nil else { return }
        remoteStore.listen(targetData)
    }

    /// Stops the target's listen unless the server already removed it.
    package func stopListeningRemotely(_ targetID: Int32) {
        guard remoteStore.listenTargets[targetID] != nil else { return }
        remoteStore.stopListening(targetID: targetID)
    }

    /// Forgets a target's views (telling their listeners `error`, if any) and its limbo documents.
    package func removeAndCleanupTarget(_ targetID: Int32, error: FirestoreErrorCode?) {
        for query in queriesByTarget[targetID] ?? [] {
            queryViewsByQuery[query] = nil
            if let error { callback?.onError(query, error) }
        }
        queriesByTarget[targetID] = nil
        for key in limbo.removeReferences(of: targetID) where !limbo.isReferenced(key) {
            removeLimboTarget(key)
        }
    }

    // MARK: RemoteSyncer

    package func applyRemoteEvent(_ event: RemoteEvent) {
        verifyOnQueue()
        for (targetID, change) in event.targetChanges {
            limbo.noteTargetChange(targetID, change)
        }
        do {
            let changed = try applyToCache(event)
            try emitNewSnapshots(changed, remoteEvent: event)
        } catch {
            reportInternal(error)
        }
    }

    package func rejectListen(targetID: Int32, error: FirestoreErrorCode) {
        verifyOnQueue()
        if let key = limbo.rejectResolution(targetID) {
            pumpEnqueuedLimboResolutions()
            // The limbo query failed: act as if the document were deleted, so the views drop it.
            let deleted = Document(key: key, state: .noDocument, version: TargetData.noSnapshotVersion)
            applyRemoteEvent(RemoteEvent(
                snapshotVersion: TargetData.noSnapshotVersion, documentUpdates: [key: deleted],
                resolvedLimboDocuments: [key]))
            return
        }
        do {
            try releaseTarget(targetID)
        } catch {
            reportInternal(error)
        }
        removeAndCleanupTarget(targetID, error: error)
    }

    package func remoteKeys(forTarget targetID: Int32) -> Set<DocumentKey> {
        if let key = limbo.receivedDocumentKey(targetID) { return [key] }
        var keys = Set<DocumentKey>()
        for query in queriesByTarget[targetID] ?? [] {
            if let view = queryViewsByQuery[query]?.view { keys.formUnion(view.remoteKeys) }
        }
        return keys
    }

    package func handleOnlineStateChange(_ state: OnlineState) {
        verifyOnQueue()
        onlineState = state
        var snapshots: [ViewSnapshot] = []
        for queryView in queryViewsByQuery.values.sorted(by: { $0.targetID < $1.targetID }) {
            if let snapshot = queryView.view.applyOnlineStateChange(state).snapshot { snapshots.append(snapshot) }
        }
        callback?.onViewSnapshots(snapshots)
        callback?.handleOnlineStateChange(state)
    }

    /// Applies a remote event to the cache; returns the new local views of the documents it changed.
    private func applyToCache(_ event: RemoteEvent) throws -> [DocumentKey: Document?] {
        var storeEvent = event
        // A synthesized event (a rejected limbo listen) has no version: it must not move the snapshot back.
        if storeEvent.snapshotVersion == TargetData.noSnapshotVersion {
            storeEvent.snapshotVersion = localStore.lastRemoteSnapshotVersion
        }
        return try localStore.applyRemoteEvent(storeEvent)
    }

    /// Releases a target in the cache.
    private func releaseTarget(_ targetID: Int32) throws {
        guard localStore.activeTargetIDs.contains(targetID) else { return }
        try localStore.releaseTarget(targetID, keepPersisted: false)
    }

    /// Hands an error no caller can receive to ``onInternalError``.
    package func reportInternal(_ error: any Error) {
        onInternalError?(FirestoreErrorCode.fromCache(error))
    }
}
