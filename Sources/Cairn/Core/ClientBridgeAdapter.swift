import CairnModel
import Dispatch
import LocalStore

/// Serves the public API's ``ClientBridge`` with the real core: every call goes to a ``FirestoreClient``, and
/// the core's types are converted to the bridge's (``ViewSnapshot`` → ``ViewSnapshotData``, ``ListenOptions``,
/// ``TransactionAttempt`` → ``TransactionContext``). Completions run on the client's worker queue; the API moves
/// them onto `FirestoreSettings.dispatchQueue`.
///
/// ```swift
/// let client = try FirestoreClient(datastore: datastore, persistence: .memory, queue: queue)
/// let bridge: any ClientBridge = ClientBridgeAdapter(client: client, onTerminated: {})
/// ```
final class ClientBridgeAdapter: ClientBridge {
    let client: FirestoreClient
    /// Runs once the core has closed its cache (the factory releases the cache directory).
    private let onTerminated: @Sendable () -> Void
    /// Runs when `terminate` is called, before the core closes.
    private let onTerminating: @Sendable () -> Void

    init(
        client: FirestoreClient, onTerminated: @escaping @Sendable () -> Void,
        onTerminating: @escaping @Sendable () -> Void = {}
    ) {
        self.client = client
        self.onTerminated = onTerminated
        self.onTerminating = onTerminating
    }

    func listen(
        query: CairnModel.Query, options: ClientListenOptions,
        listener: @escaping @Sendable (Result<ViewSnapshotData, FirestoreErrorCode>) -> Void
    ) -> any BridgeRegistration {
        let coreOptions = ListenOptions(
            includeDocumentMetadataChanges: options.includeDocumentMetadataChanges,
            includeQueryMetadataChanges: options.includeQueryMetadataChanges,
            waitForSyncWhenOnline: options.waitForSyncWhenOnline, source: options.source)
        return client.listen(query: query, options: coreOptions) { result in
            listener(result.map(ViewSnapshotData.init(_:)))
        }
    }

    func getDocumentFromLocalCache(
        key: DocumentKey, completion: @escaping @Sendable (Result<CairnModel.Document?, FirestoreErrorCode>) -> Void
    ) {
        client.run({ [client] in try client.localStore.localDocument(key) }, completion: completion)
    }

    func getDocumentsFromLocalCache(
        query: CairnModel.Query, completion: @escaping @Sendable (Result<ViewSnapshotData, FirestoreErrorCode>) -> Void
    ) {
        client.getDocumentsFromLocalCache(query: query) { result in completion(result.map(ViewSnapshotData.init(_:))) }
    }

    func write(mutations: [Mutation], completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        client.write(mutations: mutations, completion: completion)
    }

    func enableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        client.enableNetwork(completion: completion)
    }

    func disableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        client.disableNetwork(completion: completion)
    }

    func waitForPendingWrites(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        client.waitForPendingWrites(completion: completion)
    }

    func addSnapshotsInSyncListener(_ listener: @escaping @Sendable () -> Void) -> any BridgeRegistration {
        client.addSnapshotsInSyncListener(listener)
    }

    func terminate(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        onTerminating()
        client.terminate { [onTerminated] error in
            onTerminated()
            completion(error)
        }
    }

    func setIndexConfiguration(json: String, completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        client.setIndexConfiguration(json: json, completion: completion)
    }

    func setIndexAutoCreationEnabled(_ enabled: Bool) {
        client.run({ [client] in try client.localStore.setIndexAutoCreationEnabled(enabled) }, completion: { _ in })
    }

    func deleteAllFieldIndexes() {
        client.run({ [client] in try client.localStore.deleteAllFieldIndexes() }, completion: { _ in })
    }

    func runTransaction(
        maxAttempts: Int,
        update: @escaping @Sendable (any TransactionContext, @escaping @Sendable (FirestoreErrorCode?) -> Void) -> Void,
        completion: @escaping @Sendable (FirestoreErrorCode?) -> Void
    ) {
        let queue = client.queue
        client.transaction(
            maxAttempts: maxAttempts,
            updateFunction: { (attempt: TransactionAttempt, done: @escaping (Result<Void, FirestoreErrorCode>) -> Void) in
                let finish = UncheckedSendable(done)
                update(TransactionContextAdapter(attempt: attempt, queue: queue)) { error in
                    // After the writes the update function made: the queue keeps their order.
                    queue.enqueue { finish.value(error.map { .failure($0) } ?? .success(())) }
                }
            },
            completion: { result in completion(result.failure) })
    }
}

/// A ``TransactionAttempt`` offered to the API's transaction code, which runs off the worker queue: each call
/// hops onto the queue the attempt belongs to.
private final class TransactionContextAdapter: TransactionContext {
    private let attempt: UncheckedSendable<TransactionAttempt>
    private let queue: AsyncQueue

    init(attempt: TransactionAttempt, queue: AsyncQueue) {
        self.attempt = UncheckedSendable(attempt)
        self.queue = queue
    }

    func lookup(
        _ keys: [DocumentKey],
        completion: @escaping @Sendable (Result<[CairnModel.Document], FirestoreErrorCode>) -> Void
    ) {
        queue.enqueue { [attempt] in attempt.value.lookup(keys, completion: completion) }
    }

    func write(_ mutation: Mutation) {
        queue.enqueue { [attempt] in attempt.value.write(mutation) }
    }
}

extension ListenerHandle: BridgeRegistration {}

extension ViewSnapshotData {
    /// The bridge's form of a core snapshot.
    init(_ snapshot: ViewSnapshot) {
        self.init(
            query: snapshot.query, documents: snapshot.documents.documents,
            oldDocuments: snapshot.oldDocuments.documents,
            documentChanges: snapshot.documentChanges.map { change in
                let kind: Change.Kind =
                    switch change.kind {
                    case .added: .added
                    case .removed: .removed
                    case .modified: .modified
                    case .metadata: .metadata
                    }
                return Change(kind: kind, document: change.document)
            },
            isFromCache: snapshot.isFromCache, mutatedKeys: snapshot.mutatedKeys,
            syncStateChanged: snapshot.syncStateChanged, excludesMetadataChanges: snapshot.excludesMetadataChanges,
            hasCachedResults: snapshot.hasCachedResults)
    }
}
