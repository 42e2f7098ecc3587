import CairnModel
import LocalStore
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
