import CairnCore
import CairnModel
import CairnLocalStore
import Synchronization

/// A scripted backend on the core's queue: it acknowledges each write at a new commit version (or rejects it
/// with ``Script/writeError``) and then echoes the written documents on the watch stream to every watched
/// target (enough for tests that write and listen to one collection); transaction lookups answer from
/// ``Script/server`` (`nil`: offline), and commits fail with `aborted` while ``Script/failingCommits`` > 0;
/// aggregations answer ``Script/aggregation``. Tests read what it received (``writes``, ``commits``,
/// ``aggregations``) from any thread.
///
/// ```swift
/// let server = AcknowledgingDatastore(databaseID: info.databaseID, queue: queue)
/// server.script.withLock { $0.writeError = FirestoreErrorCode(.permissionDenied, "denied") }
/// ```
package final class AcknowledgingDatastore: Datastore, @unchecked Sendable {
    /// What the server answers; change it from the test.
    package struct Script: Sendable {
        /// Rejects every write with this (permanent) error instead of acknowledging it.
        package var writeError: FirestoreErrorCode?
        /// The documents transaction lookups find; a missing key is a missing document. `nil`: offline.
        package var server: [DocumentKey: Document]? = [:]
        /// How many transaction commits fail with `aborted` before one succeeds.
        package var failingCommits = 0
        /// Removes every new watch target with this error instead of answering it.
        package var listenError: FirestoreErrorCode?
        /// The answer to every aggregation: its values by alias, or an error.
        package var aggregation: Result<[String: Value], FirestoreErrorCode> = .failure(SilentDatastore.unreachable)
    }

    package let databaseID: DatabaseID
    private let queue: AsyncQueue
    private weak var watchStream: EchoWatchStream?
    package let script = Mutex(Script())
    private let received = Mutex<
        (writes: [[Mutation]], commits: [[Mutation]], watches: Int, aggregations: [(CairnModel.Query, [AggregateField])])
    >(([], [], 0, []))

    package init(databaseID: DatabaseID, queue: AsyncQueue) {
        self.databaseID = databaseID
        self.queue = queue
    }

    /// A provider that makes one of these per client and hands it to `made` (on the client's start).
    package static func provider(_ made: @escaping @Sendable (AcknowledgingDatastore) -> Void = { _ in }) -> DatastoreProvider {
        { info, queue in
            let datastore = AcknowledgingDatastore(databaseID: info.databaseID, queue: queue)
            made(datastore)
            return datastore
        }
    }

    /// The batches the write stream received, acknowledged or rejected, in order.
    package var writes: [[Mutation]] { received.withLock { $0.writes } }
    /// How many targets the watch stream was asked to watch.
    package var watches: Int { received.withLock { $0.watches } }
    /// The commits of transactions that succeeded, in order.
    package var commits: [[Mutation]] { received.withLock { $0.commits } }
    /// The aggregation requests received: each query and its aggregations, in order.
    package var aggregations: [(query: CairnModel.Query, aggregates: [AggregateField])] {
        received.withLock { $0.aggregations.map { (query: $0.0, aggregates: $0.1) } }
    }

    package func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream {
        let stream = EchoWatchStream(delegate: delegate, queue: queue) { [weak self] in
            guard let self else { return nil }
            received.withLock { $0.watches += 1 }
            return script.withLock { $0.listenError }
        }
        watchStream = stream
        return stream
    }

    package func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream {
        AcknowledgingWriteStream(delegate: delegate, queue: queue) { [weak self] mutations in
            guard let self else { return nil }
            received.withLock { $0.writes.append(mutations) }
            return script.withLock { $0.writeError }
        } acknowledged: { [weak self] mutations, version in
            let documents = mutations.compactMap { mutation -> Document? in
                guard case .set(let value) = mutation.kind else { return nil }
                return Document(key: mutation.key, state: .found, version: version, data: value)
            }
            self?.watchStream?.echo(documents, version: version)
        }
    }

    package func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        guard let server = script.withLock({ $0.server }) else {
            return completion(.failure(SilentDatastore.unreachable))
        }
        completion(.success(keys.map {
            server[$0] ?? Document(key: $0, state: .noDocument, version: Timestamp(seconds: 1, nanoseconds: 0))
        }))
    }

    package func runQuery(_ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(SilentDatastore.unreachable))
    }

    package func runAggregateQuery(
        _ query: CairnModel.Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        received.withLock { $0.aggregations.append((query, aggregates)) }
        completion(script.withLock { $0.aggregation })
    }

    package func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        let aborted = script.withLock { script in
            guard script.failingCommits > 0 else { return false }
            script.failingCommits -= 1
            return true
        }
        if aborted { return completion(.failure(FirestoreErrorCode(.aborted, "the test server aborted the commit"))) }
        received.withLock { $0.commits.append(mutations) }
        let version = Timestamp(seconds: 5_000, nanoseconds: 0)
        completion(.success(CommitResponse(
            commitVersion: version,
            results: mutations.map { MutationResult(version: version, transformResults: $0.fieldTransforms.map { _ in .null }) })))
    }

    package func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        completion(.failure(SilentDatastore.unreachable))
    }

    package func rollback(transactionID: [UInt8]) {}
}

/// Opens on the queue, answers each new target with `added`, `current` and a global snapshot, and sends the
/// documents the write stream acknowledged.
private final class EchoWatchStream: WatchStream, @unchecked Sendable {
    private weak var delegate: (any WatchStreamDelegate)?
    private let queue: AsyncQueue
    private(set) var isStarted = false
    private(set) var isOpen = false
    private var targets = Set<Int32>()
    /// The latest snapshot version sent or acknowledged: snapshot versions never go back.
    private var latestVersion = CairnModel.Timestamp(seconds: 100, nanoseconds: 0)

    /// Records a watch request; returns the error that removes the target, or nil to answer it.
    private let watched: () -> FirestoreErrorCode?

    init(delegate: any WatchStreamDelegate, queue: AsyncQueue, watched: @escaping () -> FirestoreErrorCode?) {
        self.delegate = delegate
        self.queue = queue
        self.watched = watched
    }

    func start() {
        isStarted = true
        queue.enqueue { [self] in
            guard isStarted else { return }
            isOpen = true
            delegate?.watchStreamDidOpen()
        }
    }

    func stop() {
        isStarted = false
        isOpen = false
        targets = []
    }

    func watch(_ targetData: TargetData) {
        let id = targetData.targetID
        if let error = watched() {
            queue.enqueue { [self] in
                guard isOpen else { return }
                send(.targetChange(state: .removed, targetIDs: [id], resumeToken: [], cause: error))
            }
            return
        }
        targets.insert(id)
        queue.enqueue { [self] in
            guard isOpen else { return }
            send(.targetChange(state: .added, targetIDs: [id], resumeToken: [], cause: nil))
            send(.targetChange(state: .current, targetIDs: [id], resumeToken: [1], cause: nil))
            send(.targetChange(state: .noChange, targetIDs: [], resumeToken: [1], cause: nil), at: latestVersion)
        }
    }

    func unwatch(targetID: Int32) {
        targets.remove(targetID)
    }

    func echo(_ documents: [CairnModel.Document], version: CairnModel.Timestamp) {
        queue.enqueue { [self] in
            latestVersion = max(latestVersion, version)
            guard isOpen, !targets.isEmpty else { return }
            for document in documents {
                send(.documentChange(
                    updatedTargetIDs: targets.sorted(), removedTargetIDs: [], key: document.key, document: document))
            }
            send(.targetChange(state: .noChange, targetIDs: [], resumeToken: [2], cause: nil), at: version)
        }
    }

    private func send(_ change: WatchChange, at version: CairnModel.Timestamp = TargetData.noSnapshotVersion) {
        delegate?.watchStreamDidChange(change, snapshotVersion: version)
    }
}

/// Opens and completes its handshake on the queue, then answers each write with a commit and hands the
/// acknowledged mutations to `acknowledged`, or fails the stream with the error `received` returns.
private final class AcknowledgingWriteStream: WriteStream, @unchecked Sendable {
    private weak var delegate: (any WriteStreamDelegate)?
    private let queue: AsyncQueue
    /// Records a batch; returns the error that rejects it, or nil to acknowledge it.
    private let received: ([Mutation]) -> FirestoreErrorCode?
    private let acknowledged: ([Mutation], CairnModel.Timestamp) -> Void
    private(set) var isStarted = false
    private(set) var isOpen = false
    private(set) var handshakeComplete = false
    var lastStreamToken: [UInt8] = []
    private var commitSeconds: Int64 = 1_000

    init(
        delegate: any WriteStreamDelegate, queue: AsyncQueue,
        received: @escaping ([Mutation]) -> FirestoreErrorCode?,
        acknowledged: @escaping ([Mutation], CairnModel.Timestamp) -> Void
    ) {
        self.delegate = delegate
        self.queue = queue
        self.received = received
        self.acknowledged = acknowledged
    }

    func start() {
        isStarted = true
        handshakeComplete = false
        queue.enqueue { [self] in
            guard isStarted else { return }
            isOpen = true
            delegate?.writeStreamDidOpen()
        }
    }

    func stop() {
        isStarted = false
        isOpen = false
        handshakeComplete = false
    }

    func writeHandshake() {
        queue.enqueue { [self] in
            guard isOpen else { return }
            handshakeComplete = true
            lastStreamToken = [1]
            delegate?.writeStreamDidCompleteHandshake()
        }
    }

    func write(mutations: [Mutation]) {
        queue.enqueue { [self] in
            guard isOpen else { return }
            if let error = received(mutations) {
                isStarted = false
                isOpen = false
                delegate?.writeStreamWasInterrupted(error: error)
                return
            }
            commitSeconds += 1
            let version = CairnModel.Timestamp(seconds: commitSeconds, nanoseconds: 0)
            // One (null) result per field transform, as the server sends one value for each.
            delegate?.writeStreamDidReceiveResponse(
                commitVersion: version,
                results: mutations.map { MutationResult(version: version, transformResults: $0.fieldTransforms.map { _ in .null }) })
            acknowledged(mutations, version)
        }
    }
}
