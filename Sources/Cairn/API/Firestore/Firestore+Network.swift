import CairnCore
import CairnModel
import Foundation

/// Network, lifecycle and sync calls. Completions are optional, as in Firebase, and run on the callback queue.
///
/// ```swift
/// db.disableNetwork { _ in print("offline: reads come from the cache, writes queue") }
/// db.enableNetwork()
/// db.waitForPendingWrites { error in print("every write so far is on the server") }
/// db.terminate { _ in db.clearPersistence() }
/// ```
extension Firestore {
    /// Reconnects after ``disableNetwork(completion:)``.
    public func enableNetwork(completion: ((Error?) -> Void)? = nil) {
        withClient(completion) { client, done in client.enableNetwork(completion: done) }
    }

    /// Disconnects: listeners and reads are answered from the cache, writes queue until the network is back.
    public func disableNetwork(completion: ((Error?) -> Void)? = nil) {
        withClient(completion) { client, done in client.disableNetwork(completion: done) }
    }

    /// Completes when every write made so far (in this run or a previous one) is acknowledged by the server. It
    /// does not complete while the network is disabled.
    public func waitForPendingWrites(completion: ((Error?) -> Void)? = nil) {
        withClient(completion) { client, done in client.waitForPendingWrites(completion: done) }
    }

    /// Shuts the instance down: listeners stop, pending writes stay queued for the next start, and every later
    /// call on this instance fails with `failedPrecondition`. `Firestore.firestore()` then returns a new instance.
    public func terminate(completion: ((Error?) -> Void)? = nil) {
        unregister()
        guard let started = markTerminated() else {
            complete(completion, nil)
            return
        }
        let box = UncheckedSendable(completion)
        started.credentials?.cancel()
        started.claim?.markTerminating()
        started.client.terminate { error in
            started.claim?.release()
            self.complete(box.value, error)
        }
    }

    /// Deletes the persistent cache (documents, pending writes, indexes). Only before the instance starts or
    /// after ``terminate(completion:)``; otherwise `failedPrecondition`. Not a secure erase.
    public func clearPersistence(completion: ((Error?) -> Void)? = nil) {
        if isRunning {
            complete(completion, FirestoreErrorCode(
                .failedPrecondition,
                "Persistence cannot be cleared while the client is running. Call terminate() first, or clear "
                    + "before any other call on the instance."))
            return
        }
        let configuration = self.configuration
        let box = UncheckedSendable(completion)
        DispatchQueue.global().async {
            var failure: FirestoreErrorCode?
            do throws(FirestoreErrorCode) {
                try configuration.clearPersistence()
            } catch {
                failure = error
            }
            self.complete(box.value, failure)
        }
    }

    /// `listener` runs after every set of snapshot events caused by one change (so that all listeners are in
    /// step), and once right away.
    @discardableResult
    public func addSnapshotsInSyncListener(_ listener: @escaping () -> Void) -> ListenerRegistration {
        let registration = SnapshotListenerRegistration(firestore: self)
        let box = UncheckedSendable(listener)
        if case .success(let client) = client() {
            registration.attach(client.addSnapshotsInSyncListener {
                registration.deliver { box.value() }
            })
        }
        return registration
    }

    /// Installs client-side indexes from index-definition JSON (the `indexes` / `fieldOverrides` format of the
    /// Firebase CLI's `firestore.indexes.json`). Invalid JSON is `invalidArgument`.
    ///
    /// ```swift
    /// db.setIndexConfiguration(#"{"indexes": [{"collectionGroup": "cities", "queryScope": "COLLECTION",
    ///     "fields": [{"fieldPath": "population", "order": "ASCENDING"}]}]}"#)
    /// ```
    public func setIndexConfiguration(_ json: String, completion: ((Error?) -> Void)? = nil) {
        do throws(ModelError) {
            _ = try IndexConfiguration.parse(json)
        } catch {
            complete(completion, FirestoreErrorCode(error))
            return
        }
        withClient(completion) { client, done in client.setIndexConfiguration(json: json, completion: done) }
    }

    /// Runs `call` with the started client and a `done` callback that completes `completion` on the callback
    /// queue; reports the start error instead when the client cannot start.
    func withClient(
        _ completion: ((Error?) -> Void)?,
        _ call: (FirestoreClient, @escaping @Sendable (FirestoreErrorCode?) -> Void) -> Void
    ) {
        switch client() {
        case .failure(let error):
            complete(completion, error)
        case .success(let client):
            let box = UncheckedSendable(completion)
            call(client) { error in self.complete(box.value, error) }
        }
    }
}
