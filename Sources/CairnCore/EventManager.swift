import CairnModel

/// What the event manager asks of the sync engine (Firebase's `QueryEventSource`).
package protocol QueryEventSource: AnyObject {
    /// Starts a view of `query` and, when `shouldListenToRemote`, its watch target; returns the target id.
    func listen(_ query: Query, shouldListenToRemote: Bool) throws -> Int32
    /// Adds the watch target of a query whose view exists (a first default-source listener joins cache ones).
    func listenToRemoteStore(_ query: Query) throws
    func stopListening(_ query: Query, shouldUnlistenToRemote: Bool) throws
    /// Removes the watch target of a query whose view stays (the last default-source listener left).
    func stopListeningToRemoteStoreOnly(_ query: Query)
}

/// What the sync engine tells its listener (Firebase's `SyncEngineCallback`).
package protocol SyncEngineCallback: AnyObject {
    func onViewSnapshots(_ snapshots: [ViewSnapshot])
    func onError(_ query: Query, _ error: FirestoreErrorCode)
    func handleOnlineStateChange(_ state: OnlineState)
}

/// Shares one view per query among its listeners and fans snapshots out to them (Firebase's `EventManager`).
/// It also raises snapshots-in-sync events: after every set of listener events one change caused.
///
/// ```swift
/// let listener = QueryListener(query: query, options: ListenOptions()) { result in ... }
/// let targetID = try eventManager.addQueryListener(listener)
/// try eventManager.removeQueryListener(listener)
/// ```
package final class EventManager: SyncEngineCallback {
    private final class QueryListeners {
        package var listeners: [QueryListener] = []
        package var viewSnapshot: ViewSnapshot?
        package var targetID: Int32 = 0

        package var hasRemoteListeners: Bool { listeners.contains { $0.listensToRemoteStore } }
    }

    private weak var source: QueryEventSource?
    private var queries: [Query: QueryListeners] = [:]
    private var onlineState = OnlineState.unknown
    private var snapshotsInSyncListeners: [(id: Int, callback: () -> Void)] = []
    private var nextSnapshotsInSyncID = 0

    package init(source: QueryEventSource) {
        self.source = source
    }

    /// Registers `listener`; the first listener of a query starts its view (and watch target, unless it reads
    /// the cache only). Returns the query's target id.
    @discardableResult
    package func addQueryListener(_ listener: QueryListener) throws -> Int32 {
        let query = listener.query
        let firstListen = queries[query] == nil
        let info = queries[query] ?? QueryListeners()
        queries[query] = info
        let needsWatchOnly = !firstListen && !info.hasRemoteListeners && listener.listensToRemoteStore
        info.listeners.append(listener)
        listener.onOnlineStateChanged(onlineState)
        if let snapshot = info.viewSnapshot, listener.onViewSnapshot(snapshot) {
            raiseSnapshotsInSyncEvent()
        }
        guard let source else { return info.targetID }
        do {
            if firstListen {
                info.targetID = try source.listen(query, shouldListenToRemote: listener.listensToRemoteStore)
            } else if needsWatchOnly {
                try source.listenToRemoteStore(query)
            }
        } catch {
            info.listeners.removeAll { $0 === listener }
            if info.listeners.isEmpty { queries[query] = nil }
            throw error
        }
        return info.targetID
    }

    /// Unregisters `listener`; the last listener of a query stops its view and watch target.
    package func removeQueryListener(_ listener: QueryListener) throws {
        let query = listener.query
        guard let info = queries[query] else { return }
        info.listeners.removeAll { $0 === listener }
        if info.listeners.isEmpty {
            queries[query] = nil
            try source?.stopListening(query, shouldUnlistenToRemote: listener.listensToRemoteStore)
        } else if !info.hasRemoteListeners && listener.listensToRemoteStore {
            source?.stopListeningToRemoteStoreOnly(query)
        }
    }

    /// Adds a listener that is called now and after every set of snapshot events; returns its id for removal.
    @discardableResult
    package func addSnapshotsInSyncListener(_ callback: @escaping () -> Void) -> Int {
        nextSnapshotsInSyncID += 1
        snapshotsInSyncListeners.append((nextSnapshotsInSyncID, callback))
        callback()
        return nextSnapshotsInSyncID
    }

    package func removeSnapshotsInSyncListener(_ id: Int) {
        snapshotsInSyncListeners.removeAll { $0.id == id }
    }

    /// The id of the most recently added snapshots-in-sync listener, if any.
    package var lastSnapshotsInSyncListenerID: Int? { snapshotsInSyncListeners.last?.id }

    package func onViewSnapshots(_ snapshots: [ViewSnapshot]) {
        var raised = false
        for snapshot in snapshots {
            guard let info = queries[snapshot.query] else { continue }
            for listener in info.listeners {
                if listener.onViewSnapshot(snapshot) { raised = true }
            }
            info.viewSnapshot = snapshot
        }
        if raised { raiseSnapshotsInSyncEvent() }
    }

    package func onError(_ query: Query, _ error: FirestoreErrorCode) {
        guard let info = queries.removeValue(forKey: query) else { return }
        for listener in info.listeners { listener.onError(error) }
    }

    package func handleOnlineStateChange(_ state: OnlineState) {
        onlineState = state
        var raised = false
        for info in queries.values {
            for listener in info.listeners {
                if listener.onOnlineStateChanged(state) { raised = true }
            }
        }
        if raised { raiseSnapshotsInSyncEvent() }
    }

    private func raiseSnapshotsInSyncEvent() {
        for listener in snapshotsInSyncListeners { listener.callback() }
    }
}
