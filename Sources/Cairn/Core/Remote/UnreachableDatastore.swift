import CairnModel
import LocalStore

/// The ``Datastore`` of a client with no backend transport configured: every connection attempt fails with
/// `unavailable`, as a real stream does when the device has no network. Firebase's core reacts as it does
/// offline: after the first failed watch connection the online state is `offline`, listeners raise cached
/// snapshots (`isFromCache == true`), writes stay queued in the outbox (and survive a restart of a persistent
/// cache), the streams retry with exponential backoff, and one-shot RPCs (transaction reads and commits) fail
/// with `unavailable`.
///
/// It is the factory's default until a network transport (gRPC) is installed with
/// ``DatastoreFactory/install(_:)``.
///
/// ```swift
/// let queue = AsyncQueue(label: "cairn.worker")
/// let datastore = UnreachableDatastore(databaseID: DatabaseID(projectID: "demo"), queue: queue)
/// let client = try FirestoreClient(datastore: datastore, persistence: .memory, queue: queue)
/// ```
final class UnreachableDatastore: Datastore, @unchecked Sendable {
    /// The error of every failed connection and RPC.
    static let unreachableError = FirestoreErrorCode(
        .unavailable,
        "Could not reach Cloud Firestore backend: no network transport is configured in this build of Cairn. "
            + "The client works offline: reads are answered from the cache and writes stay queued until a "
            + "transport is installed.")

    let databaseID: DatabaseID
    private let queue: AsyncQueue

    /// A datastore for `databaseID` whose failures are reported on `queue` (the client's worker queue).
    init(databaseID: DatabaseID, queue: AsyncQueue) {
        self.databaseID = databaseID
        self.queue = queue
    }

    func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream {
        let stream = FailingStream(queue: queue)
        stream.interrupt = { [weak delegate] error in delegate?.watchStreamWasInterrupted(error: error) }
        return stream
    }

    func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream {
        let stream = FailingStream(queue: queue)
        stream.interrupt = { [weak delegate] error in delegate?.writeStreamWasInterrupted(error: error) }
        return stream
    }

    func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        fail(completion)
    }

    func runQuery(_ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        fail(completion)
    }

    func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        fail(completion)
    }

    func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        fail(completion)
    }

    func rollback(transactionID: [UInt8]) {}

    /// Reports the failure later on the queue, as a real RPC would after its connection attempt.
    private func fail<T>(_ completion: @escaping (Result<T, FirestoreErrorCode>) -> Void) {
        let callback = UncheckedSendable(completion)
        queue.enqueue { callback.value(.failure(Self.unreachableError)) }
    }
}

/// A watch or write stream whose every start fails: `start()` marks it started, then (on the queue) stops it
/// and reports the interruption, which makes the RemoteStore back off and try again.
private final class FailingStream: WatchStream, WriteStream, @unchecked Sendable {
    private let queue: AsyncQueue
    var interrupt: (FirestoreErrorCode) -> Void = { _ in }
    private(set) var isStarted = false
    /// Counts starts and stops, so that a failure scheduled for an earlier start is dropped.
    private var generation = 0
    var isOpen: Bool { false }
    var handshakeComplete: Bool { false }
    var lastStreamToken: [UInt8] = []

    init(queue: AsyncQueue) {
        self.queue = queue
    }

    func start() {
        isStarted = true
        generation += 1
        let attempt = generation
        queue.enqueue { [self] in
            guard isStarted, generation == attempt else { return }
            isStarted = false
            interrupt(UnreachableDatastore.unreachableError)
        }
    }

    func stop() {
        isStarted = false
        generation += 1
    }

    func watch(_ targetData: TargetData) {}
    func unwatch(targetID: Int32) {}
    func writeHandshake() {}
    func write(mutations: [Mutation]) {}
}
