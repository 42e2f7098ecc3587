import CairnModel
import LocalStore
import Synchronization
@testable import Cairn

/// A network that never answers: its streams never open and its RPCs fail with `unavailable`. With it a client
/// is online-unknown until the network is disabled, which is what the source tests need.
final class SilentDatastore: Datastore {
    final class Stream: WatchStream, WriteStream {
        var isStarted = false
        var isOpen: Bool { false }
        var handshakeComplete: Bool { false }
        var lastStreamToken: [UInt8] = []
        func start() { isStarted = true }
        func stop() { isStarted = false }
        func watch(_ targetData: TargetData) {}
        func unwatch(targetID: Int32) {}
        func writeHandshake() {}
        func write(mutations: [Mutation]) {}
    }

    static let unreachable = FirestoreErrorCode(.unavailable, "the test network is unreachable")

    let databaseID = DatabaseID(projectID: "test-project", databaseID: "(default)")

    func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream { Stream() }
    func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream { Stream() }
    func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.unreachable))
    }
    func runQuery(_ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.unreachable))
    }
    func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(Self.unreachable))
    }
    func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.unreachable))
    }
    func rollback(transactionID: [UInt8]) {}
}

/// A client on a manual queue over the unreachable network, with helpers that run a call and return its result.
final class SourceTestClient {
    let queue = AsyncQueue.manual()
    let client: FirestoreClient

    init() throws {
        client = try FirestoreClient(datastore: SilentDatastore(), persistence: .memory, queue: queue)
        queue.drain()
    }

    /// Runs `call`, drains the queue, and returns what the completion received (nil when it was not called).
    func result<T: Sendable>(_ call: (@escaping @Sendable (T) -> Void) -> Void) -> T? {
        let box = Mutex<T?>(nil)
        call { value in box.withLock { $0 = value } }
        queue.drain()
        return box.withLock { $0 }
    }
}
