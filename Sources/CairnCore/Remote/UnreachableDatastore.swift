import CairnModel
import CairnLocalStore

/// The ``Datastore`` of a client with no backend transport configured: every connection attempt fails with
/// `unavailable`, as a real stream does when the device has no network. Firebase's core reacts as it does
/// offline: after the first failed watch connection the online state is `offline`, listeners raise cached
/// snapshots (`isFromCache == true`), writes stay queued in the outbox (and survive a restart of a persistent
/// cache), the streams retry with exponential backoff, and one-shot RPCs (transaction reads and commits, aggregations)
/// fail with `unavailable`.
///
/// Offline-only programs (the `cairn demo` without an emulator) and tests pass it where `Firestore` would
/// otherwise make its gRPC datastore (`settings.datastoreProvider = UnreachableDatastore.provider`).
///
/// ```swift
/// let queue = AsyncQueue(label: "cairn.worker")
/// let datastore = UnreachableDatastore(databaseID: DatabaseID(projectID: "demo"), queue: queue)
/// let client = try FirestoreClient(datastore: datastore, persistence: .memory, queue: queue)
/// ```
package final class UnreachableDatastore: Datastore, Sendable {
    /// The error of every failed connection and RPC.
    package static let unreachableError = FirestoreErrorCode(
        .unavailable,
        "Could not reach Cloud Firestore backend: this client was started offline-only, without a network. "
            + "Reads are answered from the cache and writes stay queued in the outbox.")

    package let databaseID: DatabaseID
    private let queue: AsyncQueue

    /// Makes an unreachable datastore for every client: an offline-only program's `datastoreProvider`.
    package static let provider: DatastoreProvider = { info, queue in
        UnreachableDatastore(databaseID: info.databaseID, queue: queue)
    }

    /// A datastore for `databaseID` whose failures are reported on `queue` (the client's worker queue).
    package init(databaseID: DatabaseID, queue: AsyncQueue) {
        self.databaseID = databaseID
        self.queue = queue
    }

    package func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream {
        let stream = FailingStream(queue: queue)
        stream.interrupt = { [weak delegate] error in delegate?.watchStreamWasInterrupted(error: error) }
        return stream
    }

    package func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream {
        let stream = FailingStream(queue: queue)
        stream.interrupt = { [weak delegate] error in delegate?.writeStreamWasInterrupted(error: error) }
        return stream
    }

    package func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        fail(completion)
    }

    package func runQuery(_ query: Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        fail(completion)
    }

    package func runAggregateQuery(
        _ query: Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        fail(completion)
    }

    package func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        fail(completion)
    }

    package func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        fail(completion)
    }

    package func rollback(transactionID: [UInt8]) {}

    /// Reports the failure later on the queue, as a real RPC would after its connection attempt. Called on the
    /// queue, like every datastore call.
    private func fail<T>(_ completion: @escaping (Result<T, FirestoreErrorCode>) -> Void) {
        queue.enqueueFromQueue { completion(.failure(Self.unreachableError)) }
    }
}

/// A watch or write stream whose every start fails: `start()` marks it started, then (on the queue) stops it
/// and reports the interruption, which makes the RemoteStore back off and try again. Confined to the queue, like
/// the RemoteStore that uses it.
private final class FailingStream: WatchStream, WriteStream {
    private let queue: AsyncQueue
    package var interrupt: (FirestoreErrorCode) -> Void = { _ in }
    package private(set) var isStarted = false
    /// Counts starts and stops, so that a failure scheduled for an earlier start is dropped.
    private var generation = 0
    package var isOpen: Bool { false }
    package var handshakeComplete: Bool { false }
    package var lastStreamToken: [UInt8] = []

    package init(queue: AsyncQueue) {
        self.queue = queue
    }

    package func start() {
        isStarted = true
        generation += 1
        let attempt = generation
        queue.enqueueFromQueue { [self] in
            guard isStarted, generation == attempt else { return }
            isStarted = false
            interrupt(UnreachableDatastore.unreachableError)
        }
    }

    package func stop() {
        isStarted = false
        generation += 1
    }

    package func watch(_ targetData: TargetData) {}
    package func unwatch(targetID: Int32) {}
    package func writeHandshake() {}
    package func write(mutations: [Mutation]) {}
}
