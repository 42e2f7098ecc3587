import CairnCore
import CairnModel
import Synchronization

/// The listen plumbing shared by queries and document references: validation, the client, and delivery on the
/// callback queue.
///
/// ```swift
/// let registration = db.addListener(query: query.state, options: ListenOptions()) { result in ... }
/// db.listenOnce(query: query.state, options: getOptions) { result in ... }   // gets: the first event only
/// ```
extension Firestore {
    /// The query to run, checked as Firebase checks queries when they are executed, and the client.
    func prepareListen(_ query: Result<CairnModel.Query, FirestoreErrorCode>)
        -> Result<(CairnModel.Query, FirestoreClient), FirestoreErrorCode>
    {
        query.flatMap { query in
            do throws(ModelError) {
                try query.validateForExecution()
            } catch {
                return .failure(FirestoreErrorCode(error))
            }
            return client().map { (query, $0) }
        }
    }

    /// Starts a listen whose events run `handler` on the callback queue until the registration is removed or an
    /// error (delivered once) ends it.
    func addListener(
        query: Result<CairnModel.Query, FirestoreErrorCode>, options: ListenOptions,
        handler: @escaping (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) -> SnapshotListenerRegistration {
        let registration = SnapshotListenerRegistration(firestore: self)
        let box = UncheckedSendable(handler)
        switch prepareListen(query) {
        case .failure(let error):
            registration.deliver(final: true) { box.value(.failure(error)) }
        case .success(let (query, client)):
            let handle = client.listen(query: query, options: options) { result in
                let isError = if case .failure = result { true } else { false }
                registration.deliver(final: isError) { box.value(result) }
            }
            registration.attach(handle)
        }
        return registration
    }

    /// Runs a listen for its first event only (Firebase's listen-once gets): `handler` runs once, on the
    /// client's worker queue, and the listen is stopped.
    func listenOnce(
        query: Result<CairnModel.Query, FirestoreErrorCode>, options: ListenOptions,
        handler: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) {
        switch prepareListen(query) {
        case .failure(let error):
            handler(.failure(error))
        case .success(let (query, client)):
            let fired = Mutex(false)
            let registration = SnapshotListenerRegistration(firestore: self)
            let handle = client.listen(query: query, options: options) { result in
                let first = fired.withLock { fired in
                    defer { fired = true }
                    return !fired
                }
                guard first else { return }
                registration.remove()
                handler(result)
            }
            registration.attach(handle)
        }
    }

    /// The options of a listen-once get: every change, and the server's answer when online.
    static let getOptions = ListenOptions(
        includeDocumentMetadataChanges: true, includeQueryMetadataChanges: true, waitForSyncWhenOnline: true)
}
