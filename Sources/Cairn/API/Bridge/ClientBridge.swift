import CairnModel
import Foundation

/// The calls the public API makes into the client core, named as the core's `FirestoreClient` has them
/// (iOS `core/firestore_client.h`). The public types (``Firestore``, ``DocumentReference``, ``Query``, ...)
/// validate and convert user input, then hand CairnModel values to this protocol; everything that needs the
/// cache or the network happens behind it.
///
/// Threading: a bridge may call its completions and listeners on any thread; the API re-dispatches every user
/// callback onto `FirestoreSettings.dispatchQueue`.
///
/// ```swift
/// let handle = bridge.listen(query: query, options: ClientListenOptions(includeMetadataChanges: true)) { result in
///     if case .success(let snapshot) = result { print(snapshot.documents.count) }
/// }
/// handle.remove()
/// ```
protocol ClientBridge: AnyObject, Sendable {
    /// Starts listening to `query` (a document query for a `DocumentReference`): `listener` gets a snapshot for
    /// every change the options ask for, or one error after which the listen is over.
    func listen(
        query: CairnModel.Query, options: ClientListenOptions,
        listener: @escaping @Sendable (Result<ViewSnapshotData, FirestoreErrorCode>) -> Void
    ) -> any BridgeRegistration

    /// The document as the local cache has it (`FirestoreClient::GetDocumentFromLocalCache`): a found
    /// document, a `noDocument` tombstone when the cache knows it does not exist, or `nil` when the cache knows
    /// nothing about it.
    func getDocumentFromLocalCache(
        key: DocumentKey, completion: @escaping @Sendable (Result<CairnModel.Document?, FirestoreErrorCode>) -> Void)

    /// The query run against the local cache only (`FirestoreClient::GetDocumentsFromLocalCache`).
    func getDocumentsFromLocalCache(
        query: CairnModel.Query, completion: @escaping @Sendable (Result<ViewSnapshotData, FirestoreErrorCode>) -> Void)

    /// Applies `mutations` atomically to the local view and queues them for the server; `completion` runs when
    /// the server acknowledges (nil) or rejects them.
    func write(mutations: [Mutation], completion: @escaping @Sendable (FirestoreErrorCode?) -> Void)

    func enableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void)
    func disableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void)
    /// Completes when every write pending at call time is acknowledged.
    func waitForPendingWrites(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void)
    /// `listener` runs after every set of listener events raised by one change, and once on registration.
    func addSnapshotsInSyncListener(_ listener: @escaping @Sendable () -> Void) -> any BridgeRegistration
    /// Shuts the client down; pending writes stay queued for the next start.
    func terminate(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void)
    /// Installs the field indexes of an index-definition JSON document (the server's `indexes` /
    /// `fieldOverrides` format).
    func setIndexConfiguration(json: String, completion: @escaping @Sendable (FirestoreErrorCode?) -> Void)
    /// Turns the automatic creation of client-side indexes on or off.
    func setIndexAutoCreationEnabled(_ enabled: Bool)
    /// Deletes every client-side field index.
    func deleteAllFieldIndexes()

    /// Runs a transaction online (`FirestoreClient::Transaction`): for each attempt, the core makes a
    /// ``TransactionContext`` and calls `update`, which reads and buffers writes through it and calls its
    /// `done` callback with `nil` (commit) or the error that aborts the transaction. The core commits, retries
    /// up to `maxAttempts` on retryable failures, and calls `completion` once.
    func runTransaction(
        maxAttempts: Int,
        update: @escaping @Sendable (any TransactionContext, @escaping @Sendable (FirestoreErrorCode?) -> Void) -> Void,
        completion: @escaping @Sendable (FirestoreErrorCode?) -> Void)
}

/// The handle of a listen or listener registered with a ``ClientBridge``.
protocol BridgeRegistration: Sendable {
    /// Stops the listen; idempotent.
    func remove()
}

/// One attempt of a transaction, as the core runs it (iOS `core/transaction.h`): reads go to the server and
/// bypass the cache; writes are buffered and committed together, each with a precondition on the version read.
protocol TransactionContext: AnyObject, Sendable {
    /// Reads `keys` from the server; a document that does not exist comes back as a `noDocument`.
    func lookup(_ keys: [DocumentKey], completion: @escaping @Sendable (Result<[CairnModel.Document], FirestoreErrorCode>) -> Void)
    /// Buffers a write (a set, patch or delete built by the API); the core adds the read-version precondition.
    func write(_ mutation: Mutation)
}

/// How a listen is raised (core `ListenOptions` plus the listen source).
struct ClientListenOptions: Sendable, Hashable {
    /// Raise snapshots whose only change is the query's `isFromCache` or `hasPendingWrites`.
    var includeQueryMetadataChanges = false
    /// Raise snapshots whose only change is a document's metadata.
    var includeDocumentMetadataChanges = false
    /// When online, hold the first snapshot until the server has answered (listen-once gets).
    var waitForSyncWhenOnline = false
    /// `.cache`: never open a watch target; answer from the cache and local writes only.
    var source: ListenSource = .default

    init(
        includeQueryMetadataChanges: Bool = false, includeDocumentMetadataChanges: Bool = false,
        waitForSyncWhenOnline: Bool = false, source: ListenSource = .default
    ) {
        self.includeQueryMetadataChanges = includeQueryMetadataChanges
        self.includeDocumentMetadataChanges = includeDocumentMetadataChanges
        self.waitForSyncWhenOnline = waitForSyncWhenOnline
        self.source = source
    }

    /// Both kinds of metadata change, as `includeMetadataChanges:` asks.
    init(includeMetadataChanges: Bool, source: ListenSource = .default) {
        self.init(
            includeQueryMetadataChanges: includeMetadataChanges,
            includeDocumentMetadataChanges: includeMetadataChanges, source: source)
    }
}
