import CairnModel

/// One listener of a query (Firebase's `core::QueryListener`): filters the view's snapshots by its options and
/// decides when the first one is raised.
///
/// The first snapshot is held back while it comes from the cache, is empty, the target never had a resume token
/// and the client may still reach the server — so an app does not flash an empty result before the server
/// answers. Once the client is known to be offline (or the listener reads the cache only), it is raised.
package final class QueryListener {
    package typealias Handler = (Result<ViewSnapshot, FirestoreErrorCode>) -> Void

    package let query: Query
    package let options: ListenOptions
    private let handler: Handler
    private var raisedInitialEvent = false
    private var lastSnapshot: ViewSnapshot?
    private var onlineState = OnlineState.unknown

    package init(query: Query, options: ListenOptions, handler: @escaping Handler) {
        self.query = query
        self.options = options
        self.handler = handler
    }

    /// True unless the listener reads the cache only.
    package var listensToRemoteStore: Bool { options.source != .cache }

    /// Handles a new snapshot of the view; returns whether an event was raised to the user.
    @discardableResult
    package func onViewSnapshot(_ incoming: ViewSnapshot) -> Bool {
        let snapshot = options.includeDocumentMetadataChanges ? incoming : incoming.withoutMetadataChanges()
        var raised = false
        if !raisedInitialEvent {
            if shouldRaiseInitialEvent(snapshot, onlineState) {
                raiseInitialEvent(snapshot)
                raised = true
            }
        } else if shouldRaiseEvent(snapshot) {
            handler(.success(snapshot))
            raised = true
        }
        lastSnapshot = snapshot
        return raised
    }

    package func onError(_ error: FirestoreErrorCode) {
        handler(.failure(error))
    }

    /// Handles a change of the online state; returns whether the held-back first snapshot was raised.
    @discardableResult
    package func onOnlineStateChanged(_ state: OnlineState) -> Bool {
        onlineState = state
        guard let lastSnapshot, !raisedInitialEvent, shouldRaiseInitialEvent(lastSnapshot, state) else { return false }
        raiseInitialEvent(lastSnapshot)
        return true
    }

    private func shouldRaiseInitialEvent(_ snapshot: ViewSnapshot, _ state: OnlineState) -> Bool {
        if !snapshot.isFromCache { return true }
        if !listensToRemoteStore { return true }
        let maybeOnline = state != .offline
        if options.waitForSyncWhenOnline && maybeOnline { return false }
        return !snapshot.documents.isEmpty || snapshot.hasCachedResults || state == .offline
    }

    private func shouldRaiseEvent(_ snapshot: ViewSnapshot) -> Bool {
        if !snapshot.documentChanges.isEmpty { return true }
        let pendingWritesChanged = lastSnapshot.map { $0.hasPendingWrites != snapshot.hasPendingWrites } ?? false
        if snapshot.syncStateChanged || pendingWritesChanged { return options.includeQueryMetadataChanges }
        return false
    }

    private func raiseInitialEvent(_ snapshot: ViewSnapshot) {
        raisedInitialEvent = true
        handler(.success(ViewSnapshot.initial(
            query: snapshot.query, documents: snapshot.documents, mutatedKeys: snapshot.mutatedKeys,
            isFromCache: snapshot.isFromCache, excludesMetadataChanges: snapshot.excludesMetadataChanges,
            hasCachedResults: snapshot.hasCachedResults)))
    }
}
