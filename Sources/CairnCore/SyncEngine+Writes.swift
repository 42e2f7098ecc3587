import CairnModel
import Foundation
import CairnLocalStore
import CairnLogging

/// The write pipeline's side in the sync engine (Firebase's `SyncEngine::WriteMutations`,
/// `HandleSuccessfulWrite`, `HandleRejectedWrite`, `RegisterPendingWritesCallback`): a write goes to the outbox
/// and the views at once, its completion waits for the server.
extension SyncEngine {
    /// Writes `mutations` as one batch: into the cache's outbox, into every view (as pending writes), then to
    /// the write stream when the network allows. `completion` runs when the server acknowledges (nil) or
    /// rejects (the error) the batch, or at once with the error when the cache refuses it.
    package func writeMutations(_ mutations: [Mutation], completion: @escaping (FirestoreErrorCode?) -> Void) {
        verifyOnQueue()
        let written: (batchID: Int, changed: [DocumentKey: Document?])
        do {
            written = try localStore.writeLocally(mutations, localWriteTime: Self.now())
        } catch let error as LocalStoreError where error.code == .invalidArgument {
            completion(FirestoreErrorCode(.invalidArgument, error.message))
            return
        } catch {
            completion(FirestoreErrorCode.fromCache(error))
            return
        }
        writeCallbacks[currentUser, default: [:]][written.batchID] = completion
        CairnLogger.firestoreSync.debug(
            "write batch \(written.batchID) queued: " + mutations.map { "\($0.key)" }.joined(separator: ", "))
        do {
            try emitNewSnapshots(written.changed, remoteEvent: nil)
        } catch {
            reportInternal(error)
        }
        remoteStore.fillWritePipeline()
    }

    /// A sync behind the cache's appends ended (group commit, Docs/LocalStore.md §10). Success: the batches it
    /// made durable may go to the server. Failure: the log is poisoned, so the batches it did not cover are never
    /// sent; their completions (and the `waitForPendingWrites` callbacks waiting for them) fail with `dataLoss`,
    /// and the failure is logged as an error. They stay in the views until the app restarts; reopening the cache
    /// finds them pending, or not, as the disk kept them.
    package func handleLocalDurability(_ result: Result<UInt64, LocalStoreError>) {
        verifyOnQueue()
        guard case .failure(let cause) = result else {
            remoteStore.fillWritePipeline()
            return
        }
        let error = Self.notDurableError(cause)
        var failed: [Int] = []
        for (user, callbacks) in writeCallbacks {
            for batchID in callbacks.keys.sorted() where !localStore.isBatchDurable(batchID) {
                failed.append(batchID)
                writeCallbacks[user]?.removeValue(forKey: batchID)?(error)
            }
        }
        for highest in pendingWritesCallbacks.keys.sorted() where !localStore.isBatchDurable(highest) {
            for callback in pendingWritesCallbacks.removeValue(forKey: highest) ?? [] { callback(error) }
        }
        CairnLogger.firestoreLocalStore.error(
            "a sync of the local cache failed, so the cache stopped taking writes: \(cause.message); "
                + "write batch(es) \(failed.map(String.init).joined(separator: ", ")) failed with dataLoss")
    }

    /// The error of a write that a failed sync of the cache did not cover.
    private static func notDurableError(_ cause: LocalStoreError) -> FirestoreErrorCode {
        FirestoreErrorCode(
            .dataLoss,
            "The local cache could not make this write durable (\(cause.message)). It was not sent to the server "
                + "and may be lost; later writes fail until the app restarts and reopens the cache.")
    }

    package func applySuccessfulWrite(_ result: MutationBatchResult) {
        verifyOnQueue()
        let batchID = result.batch.batchID
        CairnLogger.firestoreSync.debug("write batch \(batchID) acknowledged")
        // The completion runs before the events: the acknowledgement may or may not change the views yet
        // (the watch stream may be behind), so callbacks consistently come first.
        notifyUser(batchID: batchID, error: nil)
        triggerPendingWritesCallbacks(batchID: batchID)
        do {
            let changed = try localStore.acknowledgeBatch(result)
            try emitNewSnapshots(changed, remoteEvent: nil)
        } catch {
            reportInternal(error)
        }
    }

    package func rejectFailedWrite(batchID: Int, error: FirestoreErrorCode) {
        verifyOnQueue()
        CairnLogger.firestoreSync.debug("write batch \(batchID) rejected, its changes are rolled back: \(error.code)")
        do {
            let changed = try localStore.rejectBatch(batchID)
            notifyUser(batchID: batchID, error: error)
            triggerPendingWritesCallbacks(batchID: batchID)
            try emitNewSnapshots(changed, remoteEvent: nil)
        } catch let failure {
            reportInternal(failure)
        }
    }

    /// Calls `callback` once every write pending now has been acknowledged or rejected (at once when there is
    /// none); a user change fails it with `cancelled`, and a write a failed sync left behind (never sent) with
    /// `dataLoss`, at once.
    package func registerPendingWritesCallback(_ callback: @escaping (FirestoreErrorCode?) -> Void) {
        verifyOnQueue()
        guard let highest = localStore.highestUnacknowledgedBatchID else {
            callback(nil)
            return
        }
        if let cause = localStore.durabilityFailure, !localStore.isBatchDurable(highest) {
            callback(Self.notDurableError(cause))
            return
        }
        pendingWritesCallbacks[highest, default: []].append(callback)
    }

    package func failPendingWritesCallbacks() {
        let callbacks = pendingWritesCallbacks.values.flatMap { $0 }
        pendingWritesCallbacks = [:]
        let error = FirestoreErrorCode(.cancelled, "'waitForPendingWrites' task is cancelled due to User change.")
        for callback in callbacks { callback(error) }
    }

    private func notifyUser(batchID: Int, error: FirestoreErrorCode?) {
        guard let callback = writeCallbacks[currentUser]?.removeValue(forKey: batchID) else { return }
        callback(error)
    }

    private func triggerPendingWritesCallbacks(batchID: Int) {
        guard let callbacks = pendingWritesCallbacks.removeValue(forKey: batchID) else { return }
        for callback in callbacks { callback(nil) }
    }

    /// Switches the user: pending-writes callbacks fail, the views show the new user's pending writes
    /// (Firebase's `HandleCredentialChange`).
    package func handleCredentialChange(_ user: User) {
        verifyOnQueue()
        let changed = user != currentUser
        currentUser = user
        if changed {
            CairnLogger.firestoreSync.debug("user changed: the views show the new user's pending writes")
            failPendingWritesCallbacks()
            do {
                let views = try localStore.switchUser(to: user.localStoreID)
                try emitNewSnapshots(views, remoteEvent: nil)
            } catch {
                reportInternal(error)
            }
        }
        remoteStore.handleCredentialChange()
    }

    /// The local write time of a batch: now, as a Firestore timestamp.
    package static func now() -> Timestamp {
        let interval = Date().timeIntervalSince1970
        let seconds = interval.rounded(.down)
        return Timestamp(seconds: Int64(seconds), nanoseconds: Int32((interval - seconds) * 1e9))
    }
}
