import CairnCore
import CairnModel
import CairnLocalStore

/// The core's `Datastore` over Firestore v1 gRPC: the watch and write streams wrap ``ListenStream`` and
/// ``WriteStream``, the one-shot RPCs wrap ``FirestoreRPC``'s calls, and every callback runs on the core's
/// `AsyncQueue`.
///
/// A connection that cannot be set up (a malformed host) does not crash the client: every stream start and RPC
/// then fails with that error, and the client keeps working offline.
///
/// ```swift
/// let datastore = GRPCDatastore(
///     configuration: .success(.emulator(databaseID: database, host: "127.0.0.1", port: 8080)),
///     databaseID: database, queue: queue)
/// ```
package final class GRPCDatastore: Datastore {
    package let databaseID: DatabaseID
    private let connection: Result<FirestoreRPC, FirestoreErrorCode>
    private let queue: AsyncQueue

    /// A datastore on a new connection for `configuration`, reporting on `queue`.
    package init(configuration: Result<FirestoreRPCConfiguration, FirestoreErrorCode>, databaseID: DatabaseID, queue: AsyncQueue) {
        self.databaseID = databaseID
        self.queue = queue
        connection = configuration.flatMap { configuration in
            Result { () throws(FirestoreErrorCode) in try FirestoreRPC(configuration: configuration) }
        }
    }

    deinit {
        if case .success(let rpc) = connection { rpc.shutdown() }
    }

    package func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream {
        GRPCWatchStream(connection: connection, queue: queue, delegate: delegate)
    }

    package func makeWriteStream(delegate: any WriteStreamDelegate) -> any CairnCore.WriteStream {
        GRPCWriteStream(connection: connection, queue: queue, delegate: delegate)
    }

    package func lookup(keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        run(completion) { rpc throws(FirestoreErrorCode) in try await rpc.lookup(keys) }
    }

    package func runQuery(
        _ query: CairnModel.Query, completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void
    ) {
        run(completion) { rpc throws(FirestoreErrorCode) in try await rpc.runQuery(query) }
    }

    package func runAggregateQuery(
        _ query: CairnModel.Query, aggregates: [AggregateField],
        completion: @escaping (Result<[String: Value], FirestoreErrorCode>) -> Void
    ) {
        run(completion) { rpc throws(FirestoreErrorCode) in try await rpc.runAggregationQuery(query, aggregates: aggregates) }
    }

    package func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        run(completion) { rpc throws(FirestoreErrorCode) in
            let ack = try await rpc.commit(mutations, transactionID: transactionID)
            return CommitResponse(commitVersion: ack.commitVersion, results: ack.results)
        }
    }

    package func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        run(completion) { rpc throws(FirestoreErrorCode) in try await rpc.beginTransaction() }
    }

    package func rollback(transactionID: [UInt8]) {
        guard case .success(let rpc) = connection else { return }
        Task { try? await rpc.rollback(transactionID) }
    }

    /// Runs `call` off the queue and hands its result to `completion` on the queue (called on the queue: the
    /// completion is bound to it while the call runs).
    private func run<T: Sendable>(
        _ completion: @escaping (Result<T, FirestoreErrorCode>) -> Void,
        _ call: @escaping @Sendable (FirestoreRPC) async throws(FirestoreErrorCode) -> T
    ) {
        let callback = QueueBound(completion, on: queue)
        let queue = self.queue
        switch connection {
        case .failure(let error):
            queue.enqueue { callback.value(.failure(error)) }
        case .success(let rpc):
            Task {
                let result: Result<T, FirestoreErrorCode>
                do throws(FirestoreErrorCode) {
                    result = .success(try await call(rpc))
                } catch {
                    result = .failure(error)
                }
                queue.enqueue { callback.value(result) }
            }
        }
    }
}
