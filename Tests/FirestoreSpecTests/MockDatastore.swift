import CairnModel
import CairnLocalStore

@testable import CairnCore

/// A scripted network for the spec tests and RemoteStore tests, as Firebase's harnesses have it
/// (`spec-tests.md` §7.3): streams open synchronously, the test injects watch changes and write responses, and
/// counters record the requests.
///
/// Call everything on the core's ``AsyncQueue`` (inside `enqueueAndWait`), like the RemoteStore it talks to.
///
/// ```swift
/// let datastore = MockDatastore()
/// let remoteStore = RemoteStore(localStore: store, datastore: datastore, queue: queue)
/// remoteStore.listen(targetData)                         // the watch stream opens; target 2 becomes active
/// try datastore.deliverWatchChange(.targetChange(state: .added, targetIDs: [2], resumeToken: [], cause: nil))
/// datastore.nextSentWrite()                              // the oldest batch sent and not yet acknowledged
/// datastore.ackWrite(commitVersion: v, results: [MutationResult(version: v)])
/// ```
final class MockDatastore: Datastore {
    let databaseID: DatabaseID
    private(set) var watchStream: MockWatchStream?
    private(set) var writeStream: MockWriteStream?

    /// Watch requests sent: every `watch` (adds only, as iOS and Android count).
    fileprivate(set) var watchStreamRequestCount = 0
    /// Write requests sent: handshakes, writes, and the empty flush a stream sends when stopped after its
    /// handshake.
    fileprivate(set) var writeStreamRequestCount = 0

    /// When set, the next handshake fails with this error instead of completing (the stream closes).
    var failNextHandshake: FirestoreErrorCode?

    init(databaseID: DatabaseID = DatabaseID(projectID: "test-project")) {
        self.databaseID = databaseID
    }

    func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream {
        let stream = MockWatchStream(datastore: self, delegate: delegate)
        watchStream = stream
        return stream
    }

    func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream {
        let stream = MockWriteStream(datastore: self, delegate: delegate)
        writeStream = stream
        return stream
    }

    // MARK: Watch

    /// The targets the watch stream listens to, each as sent but with its snapshot version cleared (the resume
    /// token and expected count stay).
    var activeTargets: [Int32: TargetData] { watchStream?.activeTargets ?? [:] }

    var isWatchStreamOpen: Bool { watchStream?.isOpen ?? false }

    /// Delivers a change as the server would. An errored removal first removes its targets from
    /// ``activeTargets`` (each must be active). A target change naming targets carries no snapshot version; only
    /// a no-change for all targets carries `snapshotVersion`.
    ///
    /// - Throws: ``MockDatastoreError`` when the stream is not open or an errored removal names an inactive target.
    func deliverWatchChange(_ change: WatchChange, snapshotVersion: CairnModel.Timestamp = TargetData.noSnapshotVersion) throws {
        guard let stream = watchStream, stream.isOpen else {
            throw MockDatastoreError("A watch change arrived while the watch stream is not open.")
        }
        var version = snapshotVersion
        if case let .targetChange(state, targetIDs, _, cause) = change {
            if state == .removed, let cause, cause.code != .ok {
                for id in targetIDs {
                    guard stream.activeTargets.removeValue(forKey: id) != nil else {
                        throw MockDatastoreError("The server removed target \(id) with an error, but it is not active on the watch stream.")
                    }
                }
            }
            if !targetIDs.isEmpty { version = TargetData.noSnapshotVersion }
        }
        stream.delegate?.watchStreamDidChange(change, snapshotVersion: version)
    }

    /// Fails the watch stream with `error`: it closes, forgets its targets and tells the RemoteStore.
    func failWatchStream(error: FirestoreErrorCode) {
        guard let stream = watchStream else { return }
        stream.close()
        stream.delegate?.watchStreamWasInterrupted(error: error)
    }

    // MARK: Write

    var isWriteStreamOpen: Bool { writeStream?.isOpen ?? false }

    /// The batches written on the current write stream and not yet acknowledged or failed, oldest first.
    var sentWrites: [[Mutation]] { writeStream?.sentWrites ?? [] }

    /// Takes the oldest sent batch off the queue (the one the next ``ackWrite(commitVersion:results:)`` answers).
    @discardableResult
    func nextSentWrite() -> [Mutation]? {
        guard let stream = writeStream, !stream.sentWrites.isEmpty else { return nil }
        return stream.sentWrites.removeFirst()
    }

    /// The server acknowledges the oldest batch in flight.
    func ackWrite(commitVersion: CairnModel.Timestamp, results: [MutationResult]) {
        writeStream?.delegate?.writeStreamDidReceiveResponse(commitVersion: commitVersion, results: results)
    }

    /// Fails the write stream with `error`: it closes, forgets what it sent and tells the RemoteStore, which
    /// rejects the batch for a permanent error or sends it again for a transient one.
    func failWriteStream(error: FirestoreErrorCode) {
        guard let stream = writeStream else { return }
        stream.close()
        stream.delegate?.writeStreamWasInterrupted(error: error)
    }

    // MARK: One-shot RPCs (unused by the spec tests)

    func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.noScript("lookup")))
    }

    func runQuery(_ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.noScript("runQuery")))
    }

    func runAggregateQuery(
        _ query: CairnModel.Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(Self.noScript("runAggregateQuery")))
    }

    func commit(
        mutations: [Mutation], transactionID: [UInt8]?, completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(Self.noScript("commit")))
    }

    func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.noScript("beginTransaction")))
    }

    func rollback(transactionID: [UInt8]) {}

    private static func noScript(_ call: String) -> FirestoreErrorCode {
        FirestoreErrorCode(.unavailable, "MockDatastore has no scripted answer for \(call); the spec tests use the streams only.")
    }
}

/// A misuse of the mock by a test script (e.g. a change for a stream that is not open).
struct MockDatastoreError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The mock watch stream: opens synchronously on ``start()``.
final class MockWatchStream: WatchStream {
    private unowned let datastore: MockDatastore
    fileprivate(set) weak var delegate: (any WatchStreamDelegate)?
    fileprivate var activeTargets: [Int32: TargetData] = [:]
    private(set) var isStarted = false
    private(set) var isOpen = false

    fileprivate init(datastore: MockDatastore, delegate: any WatchStreamDelegate) {
        self.datastore = datastore
        self.delegate = delegate
    }

    func start() {
        precondition(!isStarted, "The watch stream was started twice.")
        isStarted = true
        isOpen = true
        delegate?.watchStreamDidOpen()
    }

    func stop() { close() }

    func watch(_ targetData: TargetData) {
        precondition(isOpen, "watch on a closed watch stream.")
        var stored = targetData
        stored.snapshotVersion = TargetData.noSnapshotVersion
        activeTargets[targetData.targetID] = stored
        datastore.watchStreamRequestCount += 1
    }

    func unwatch(targetID: Int32) {
        precondition(isOpen, "unwatch on a closed watch stream.")
        activeTargets[targetID] = nil
    }

    fileprivate func close() {
        isStarted = false
        isOpen = false
        activeTargets.removeAll()
    }
}

/// The mock write stream: opens synchronously; the handshake completes at once.
final class MockWriteStream: WriteStream {
    private unowned let datastore: MockDatastore
    fileprivate(set) weak var delegate: (any WriteStreamDelegate)?
    fileprivate var sentWrites: [[Mutation]] = []
    private(set) var isStarted = false
    private(set) var isOpen = false
    private(set) var handshakeComplete = false
    var lastStreamToken: [UInt8] = []

    fileprivate init(datastore: MockDatastore, delegate: any WriteStreamDelegate) {
        self.datastore = datastore
        self.delegate = delegate
    }

    func start() {
        precondition(!isStarted, "The write stream was started twice.")
        isStarted = true
        isOpen = true
        handshakeComplete = false
        delegate?.writeStreamDidOpen()
    }

    func stop() {
        // A stream past its handshake sends an empty flush write before closing.
        if isOpen && handshakeComplete { datastore.writeStreamRequestCount += 1 }
        close()
    }

    func writeHandshake() {
        precondition(isOpen && !handshakeComplete, "The handshake must be the first request on an open write stream.")
        datastore.writeStreamRequestCount += 1
        if let error = datastore.failNextHandshake {
            datastore.failNextHandshake = nil
            close()
            delegate?.writeStreamWasInterrupted(error: error)
            return
        }
        handshakeComplete = true
        delegate?.writeStreamDidCompleteHandshake()
    }

    func write(mutations: [Mutation]) {
        precondition(isOpen && handshakeComplete, "A write before the write stream's handshake completed.")
        datastore.writeStreamRequestCount += 1
        sentWrites.append(mutations)
    }

    fileprivate func close() {
        isStarted = false
        isOpen = false
        sentWrites.removeAll()
    }
}
