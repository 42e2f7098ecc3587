import CairnCore
import CairnModel
import CairnLocalStore

/// A network that never answers: its streams never open and its RPCs fail with `unavailable`. With it a client
/// is online-unknown until the network is disabled, which is what the source tests need.
package final class SilentDatastore: Datastore {
    package final class Stream: WatchStream, WriteStream {
        package init() {}
        package var isStarted = false
        package var isOpen: Bool { false }
        package var handshakeComplete: Bool { false }
        package var lastStreamToken: [UInt8] = []
        package func start() { isStarted = true }
        package func stop() { isStarted = false }
        package func watch(_ targetData: TargetData) {}
        package func unwatch(targetID: Int32) {}
        package func writeHandshake() {}
        package func write(mutations: [Mutation]) {}
    }

    package static let unreachable = FirestoreErrorCode(.unavailable, "the test network is unreachable")

    package let databaseID = DatabaseID(projectID: "test-project", databaseID: "(default)")

    package init() {}

    package func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream { Stream() }
    package func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream { Stream() }
    package func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.unreachable))
    }
    package func runQuery(_ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.unreachable))
    }
    package func runAggregateQuery(
        _ query: CairnModel.Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(Self.unreachable))
    }
    package func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(Self.unreachable))
    }
    package func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        completion(.failure(Self.unreachable))
    }
    package func rollback(transactionID: [UInt8]) {}
}
