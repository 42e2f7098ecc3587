import CairnModel
import Foundation
import CairnLocalStore
import CairnLogging

/// The core's link to the backend (Firebase's `RemoteStore`): it keeps the watch stream listening to every active
/// target and the write stream draining the mutation queue, tracks the online state, and retries with backoff.
///
/// - **Watch**: the stream starts when the network is enabled and there is a target; on every (re)open it re-sends
///   all targets with their resume tokens. With no target left it goes idle (closed after 60 s), and a
///   reconnection still waiting for its backoff is dropped until a target is wanted again. Changes go through a
///   ``WatchChangeAggregator``; at each consistent snapshot the resulting ``RemoteEvent`` goes to the
///   ``RemoteSyncer``. Targets an existence filter proved inconsistent are re-listened to without a resume token.
/// - **Write** (`RemoteStore+Write.swift`): up to ``maxPendingWrites`` batches from the local store are in flight;
///   the stream token is persisted; permanent errors reject the batch, transient ones retry after a backoff.
///
/// Confined to the ``AsyncQueue``: every entry point (the methods below and the streams' delegate callbacks)
/// checks that it runs there, and its timers are bound to the queue.
///
/// ```swift
/// let remoteStore = RemoteStore(localStore: store, datastore: datastore, queue: queue)
/// remoteStore.syncer = syncEngine
/// remoteStore.start()
/// remoteStore.listen(try store.allocateTarget(query))
/// ```
package final class RemoteStore {
    /// How many mutation batches may be in flight on the write stream.
    package static let maxPendingWrites = 10
    /// How long a stream with nothing to do stays open.
    package static let streamIdleTimeout: TimeInterval = 60

    package let localStore: LocalStore
    /// For lookups, queries and transactions, which bypass the streams.
    package let datastore: any Datastore
    package let queue: AsyncQueue
    package weak var syncer: (any RemoteSyncer)?

    private let onlineStateHandler: ((OnlineState) -> Void)?
    package private(set) lazy var onlineStateTracker = OnlineStateTracker(queue: queue) { [weak self] state in
        self?.broadcast(state)
    }
    package private(set) lazy var watchStream: any WatchStream = datastore.makeWatchStream(delegate: self)
    package private(set) lazy var writeStream: any WriteStream = datastore.makeWriteStream(delegate: self)
    package let watchBackoff: ExponentialBackoff
    package let writeBackoff: ExponentialBackoff
    /// The targets the client listens to, by id, with the resume tokens of the last consistent snapshots.
    package private(set) var listenTargets: [Int32: TargetData] = [:]
    /// Exists while the watch stream is started.
    private var aggregator: WatchChangeAggregator?
    /// The batches sent (or to send) on the write stream, oldest first.
    package var writePipeline: [MutationBatch] = []
    package private(set) var isNetworkEnabled = false
    private var watchIdleTimer: DelayedOperation?
    package var writeIdleTimer: DelayedOperation?

    /// - Parameter onlineStateHandler: hears every online-state change; when `nil` the changes go to
    ///   ``RemoteSyncer/handleOnlineStateChange(_:)``.
    package init(
        localStore: LocalStore, datastore: any Datastore, queue: AsyncQueue,
        onlineStateHandler: ((OnlineState) -> Void)? = nil
    ) {
        self.localStore = localStore
        self.datastore = datastore
        self.queue = queue
        self.onlineStateHandler = onlineStateHandler
        watchBackoff = ExponentialBackoff(queue: queue, timerID: .listenStreamConnectionBackoff)
        writeBackoff = ExponentialBackoff(queue: queue, timerID: .writeStreamConnectionBackoff)
        // The streams and the tracker need `self`, so they are made now that it exists.
        _ = onlineStateTracker
        _ = watchStream
        _ = writeStream
    }

    /// Reports a confinement violation unless called on the queue; every entry point calls it.
    func verifyOnQueue(_ function: String = #function) {
        queue.verifyIsCurrentQueue("RemoteStore.\(function)")
    }

    /// The current online state.
    package var onlineState: OnlineState { onlineStateTracker.state }

    /// True while the network is enabled.
    package var canUseNetwork: Bool { isNetworkEnabled }

    /// Starts the streams that have work (Firebase's `Start`).
    package func start() {
        verifyOnQueue()
        enableNetwork()
    }

    /// Re-enables the network after ``disableNetwork()``: restores the stream token and starts the streams that
    /// have work.
    package func enableNetwork() {
        verifyOnQueue()
        CairnLogger.firestoreRemote.debug("network enabled")
        isNetworkEnabled = true
        writeStream.lastStreamToken = localStore.writeStreamToken(forUser: localStore.currentUser) ?? []
        if shouldStartWatchStream {
            startWatchStream()
        } else {
            onlineStateTracker.updateState(.unknown)
        }
        fillWritePipeline()
    }

    /// Closes both streams, forgets the batches in flight (they stay in the local store and are sent again) and
    /// reports the client offline.
    package func disableNetwork() {
        verifyOnQueue()
        CairnLogger.firestoreRemote.debug("network disabled")
        isNetworkEnabled = false
        disableNetworkInternal()
        onlineStateTracker.updateState(.offline)
    }

    /// Closes everything for good; the online state becomes unknown.
    package func shutdown() {
        verifyOnQueue()
        isNetworkEnabled = false
        disableNetworkInternal()
        onlineStateTracker.updateState(.unknown)
    }

    /// The user changed: restart both streams, so that they authenticate anew and the write pipeline is refilled
    /// with the new user's batches.
    package func handleCredentialChange() {
        verifyOnQueue()
        guard canUseNetwork else { return }
        isNetworkEnabled = false
        disableNetworkInternal()
        onlineStateTracker.updateState(.unknown)
        enableNetwork()
    }

    /// Starts listening to a target; the watch stream starts if needed.
    package func listen(_ targetData: TargetData) {
        verifyOnQueue()
        let targetID = targetData.targetID
        precondition(listenTargets[targetID] == nil, "listen called twice for target \(targetID).")
        CairnLogger.firestoreRemote.debug("watch target \(targetID) added: \(targetData.query.logDescription)")
        listenTargets[targetID] = targetData
        if shouldStartWatchStream {
            startWatchStream()  // the target is sent when the stream opens
        } else if watchStream.isOpen {
            sendWatchRequest(targetData)
        } else if listenTargets.count == 1, canUseNetwork, watchStream.isStarted {
            // An attempt from before the last unlisten is still connecting, and that unlisten set the online state
            // to unknown: this listen waits on that attempt, so its 10 s clock starts again (else a connection that
            // hangs would keep the listener from ever seeing the cache). The target is sent when the stream opens.
            onlineStateTracker.handleWatchStreamStart()
        }
    }

    /// Stops listening to a target. With no target left the watch stream goes idle.
    package func stopListening(targetID: Int32) {
        verifyOnQueue()
        precondition(listenTargets[targetID] != nil, "stopListening called for target \(targetID), which is not listened to.")
        listenTargets[targetID] = nil
        CairnLogger.firestoreRemote.debug("watch target \(targetID) removed")
        if watchStream.isOpen { sendUnwatchRequest(targetID) }
        guard listenTargets.isEmpty else { return }
        if watchStream.isOpen {
            markWatchStreamIdle()
        } else {
            // A reconnection waiting for its backoff is no longer wanted; the delay it waited stays owed by the
            // next listen's attempt (the backoff is cancelled, not reset).
            watchBackoff.cancel()
            // Nothing to connect for, so nothing can prove the connection healthy.
            if canUseNetwork { onlineStateTracker.updateState(.unknown) }
        }
    }

    // MARK: Watch stream

    package var shouldStartWatchStream: Bool {
        canUseNetwork && !watchStream.isStarted && !watchBackoff.isWaiting && !listenTargets.isEmpty
    }

    private func startWatchStream() {
        aggregator = WatchChangeAggregator(metadata: self)
        watchBackoff.backoffAndRun { [weak self] in self?.watchStream.start() }
        onlineStateTracker.handleWatchStreamStart()
    }

    private func sendWatchRequest(_ targetData: TargetData) {
        cancelWatchIdleTimer()
        aggregator?.recordPendingTargetRequest(targetData.targetID)
        var request = targetData
        if !targetData.resumeToken.isEmpty || targetData.snapshotVersion > TargetData.noSnapshotVersion {
            request.expectedCount = remoteKeys(forTarget: targetData.targetID).count
        }
        watchStream.watch(request)
    }

    private func sendUnwatchRequest(_ targetID: Int32) {
        cancelWatchIdleTimer()
        aggregator?.recordPendingTargetRequest(targetID)
        watchStream.unwatch(targetID: targetID)
    }

    private func disableNetworkInternal() {
        cancelWatchIdleTimer()
        watchBackoff.cancel()
        watchBackoff.reset()
        watchStream.stop()
        aggregator = nil
        stopWriteStream()
    }

    private func markWatchStreamIdle() {
        guard watchIdleTimer == nil else { return }
        watchIdleTimer = queue.enqueueAfterFromQueue(delay: Self.streamIdleTimeout, timerID: .listenStreamIdle) { [weak self] in
            guard let self else { return }
            watchIdleTimer = nil
            guard watchStream.isOpen, listenTargets.isEmpty else { return }
            watchStream.stop()
            watchBackoff.reset()
            watchStreamWasInterrupted(error: nil)
        }
    }

    private func cancelWatchIdleTimer() {
        watchIdleTimer?.cancel()
        watchIdleTimer = nil
    }

    /// Applies the event the aggregator built at `snapshotVersion`: updates the in-memory resume tokens, re-listens
    /// to mismatched targets, and hands the event to the syncer.
    private func raiseWatchSnapshot(at snapshotVersion: Timestamp) {
        guard let aggregator else { return }
        let event = aggregator.createRemoteEvent(at: snapshotVersion)
        for (targetID, change) in event.targetChanges where !change.resumeToken.isEmpty {
            guard var data = listenTargets[targetID] else { continue }  // the client may have stopped listening
            data.resumeToken = change.resumeToken
            data.snapshotVersion = snapshotVersion
            listenTargets[targetID] = data
        }
        for (targetID, purpose) in event.targetMismatches.sorted(by: { $0.key < $1.key }) {
            guard var data = listenTargets[targetID] else { continue }
            // A known mismatch: forget the resume token and ask for everything again.
            data.resumeToken = []
            listenTargets[targetID] = data
            sendUnwatchRequest(targetID)
            // The purpose marks only this request, not later re-listens (e.g. after a reconnect).
            sendWatchRequest(
                TargetData(targetID: targetID, query: data.query, purpose: purpose, sequenceNumber: data.sequenceNumber))
        }
        syncer?.applyRemoteEvent(event)
    }

    /// The server rejected targets: forget them and fail their listens.
    private func processTargetError(targetIDs: [Int32], cause: FirestoreErrorCode) {
        for targetID in targetIDs where listenTargets[targetID] != nil {
            CairnLogger.firestoreRemote.debug("watch target \(targetID) rejected by the server: \(cause.code)")
            listenTargets[targetID] = nil
            aggregator?.removeTarget(targetID)
            syncer?.rejectListen(targetID: targetID, error: cause)
        }
    }

    private func broadcast(_ state: OnlineState) {
        CairnLogger.firestoreRemote.debug("online state: \(state)")
        if let onlineStateHandler {
            onlineStateHandler(state)
        } else {
            syncer?.handleOnlineStateChange(state)
        }
    }
}

extension RemoteStore: WatchStreamDelegate {
    package func watchStreamDidOpen() {
        verifyOnQueue()
        CairnLogger.firestoreRemote.debug("watch stream open, \(listenTargets.count) target(s) to send")
        // Every target was removed while the stream connected: it goes idle like a stream whose last target left.
        if listenTargets.isEmpty { markWatchStreamIdle() }
        for targetID in listenTargets.keys.sorted() { sendWatchRequest(listenTargets[targetID]!) }
    }

    package func watchStreamDidChange(_ change: WatchChange, snapshotVersion: Timestamp) {
        verifyOnQueue()
        // A message from the server: the connection works.
        onlineStateTracker.updateState(.online)
        watchBackoff.reset()
        guard let aggregator else { return }
        if case let .targetChange(.removed, targetIDs, _, cause?) = change, cause.code != .ok {
            // An errored target: fail it now rather than at the next consistent snapshot.
            processTargetError(targetIDs: targetIDs, cause: cause)
            return
        }
        aggregator.handle(change)
        if snapshotVersion != TargetData.noSnapshotVersion, snapshotVersion >= localStore.lastRemoteSnapshotVersion {
            raiseWatchSnapshot(at: snapshotVersion)
        }
    }

    package func watchStreamWasInterrupted(error: FirestoreErrorCode?) {
        verifyOnQueue()
        CairnLogger.firestoreRemote.debug("watch stream closed\(error.map { ": \($0.code) \($0.message)" } ?? "")")
        aggregator = nil
        if error?.code == .resourceExhausted { watchBackoff.resetToMax() }
        if shouldStartWatchStream {
            if error != nil { onlineStateTracker.handleWatchStreamFailure() }
            startWatchStream()
        } else {
            // Nothing to listen to (or no network): no connection attempt is under way.
            onlineStateTracker.updateState(.unknown)
        }
    }
}

extension RemoteStore: TargetMetadataProvider {
    package func remoteKeys(forTarget targetID: Int32) -> Set<DocumentKey> {
        syncer?.remoteKeys(forTarget: targetID) ?? localStore.remoteKeys(forTarget: targetID)
    }

    package func targetData(forTarget targetID: Int32) -> TargetData? { listenTargets[targetID] }

    package var databaseID: DatabaseID { datastore.databaseID }
}
