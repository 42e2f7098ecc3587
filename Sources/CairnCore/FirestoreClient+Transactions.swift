import CairnModel
import Foundation
import CairnLocalStore

/// Read-write transactions with retries (Firebase's `TransactionRunner`): the update function runs against a
/// fresh ``Transaction``; a commit that fails with a retryable error (`aborted`, `alreadyExists`,
/// `failedPrecondition`, or a transient error) runs it again after a backoff, up to `maxAttempts` times.
///
/// ```swift
/// client.transaction(updateFunction: { transaction, done in
///     transaction.lookup([key]) { result in
///         transaction.write(.set(key, value: ObjectValue(["n": .integer(1)])))
///         done(.success(1))
///     }
/// }, completion: { result in ... })
/// ```
extension FirestoreClient {
    /// Firebase's `kDefaultTransactionMaxAttempts`.
    package static let defaultTransactionMaxAttempts = 5

    /// Runs `updateFunction` in a transaction on the worker queue; it calls `done` with its result, or an
    /// error to abort without committing. `completion` gets the result of the attempt that committed, or the
    /// last error. With the network disabled the transaction fails at once with `unavailable`, without running
    /// `updateFunction`; when the server cannot be reached, the reads fail with `unavailable` and so does it.
    package func transaction<T: Sendable>(
        maxAttempts: Int = FirestoreClient.defaultTransactionMaxAttempts,
        updateFunction: @escaping @Sendable (TransactionAttempt, @escaping (Result<T, FirestoreErrorCode>) -> Void) -> Void,
        completion: @escaping @Sendable (Result<T, FirestoreErrorCode>) -> Void
    ) {
        guard maxAttempts >= 1 else {
            return deliver {
                completion(.failure(FirestoreErrorCode(.invalidArgument, "maxAttempts must be at least 1, not \(maxAttempts).")))
            }
        }
        queue.enqueue { [self] in
            let backoff = ExponentialBackoff(queue: queue, timerID: .retryTransaction)
            runAttempt(maxAttempts, backoff: backoff, updateFunction: updateFunction, completion: completion)
        }
    }

    private func runAttempt<T: Sendable>(
        _ attemptsLeft: Int, backoff: ExponentialBackoff,
        updateFunction: @escaping @Sendable (TransactionAttempt, @escaping (Result<T, FirestoreErrorCode>) -> Void) -> Void,
        completion: @escaping @Sendable (Result<T, FirestoreErrorCode>) -> Void
    ) {
        guard !isTerminated else { return deliver { completion(.failure(Self.terminatedError)) } }
        // A deliberate offline state is not retried: no attempt could reach the server until enableNetwork().
        guard remoteStore.canUseNetwork else { return deliver { completion(.failure(Self.transactionOfflineError)) } }
        let transaction = TransactionAttempt(datastore: remoteStore.datastore)
        updateFunction(transaction) { [self] outcome in
            switch outcome {
            case .failure(let error):
                deliver { completion(.failure(error)) }
            case .success(let value):
                transaction.commit { [self] error in
                    guard let error else { return deliver { completion(.success(value)) } }
                    guard attemptsLeft > 1, Self.isRetryableTransactionError(error.code) else {
                        return deliver { completion(.failure(error)) }
                    }
                    backoff.backoffAndRun { [self] in
                        runAttempt(attemptsLeft - 1, backoff: backoff, updateFunction: updateFunction, completion: completion)
                    }
                }
            }
        }
    }

    package static let transactionOfflineError = FirestoreErrorCode(
        .unavailable,
        "Failed to run the transaction because the client is offline (the network is disabled). Transactions read "
            + "and commit on the server: call enableNetwork() and run the transaction again.")

    /// Firebase's `IsRetryableTransactionError`: contention and precondition failures, and transient errors.
    package static func isRetryableTransactionError(_ code: FirestoreErrorCode.Code) -> Bool {
        switch code {
        case .aborted, .alreadyExists, .failedPrecondition: true
        default: !RemoteStore.isPermanentError(code)
        }
    }
}

/// A ``TransactionAttempt`` for an update function that runs off the worker queue (the public API's block runs
/// on a thread of its own and blocks on its reads): each call hops onto the queue the attempt belongs to, so
/// the writes keep the order the function made them in. The attempt itself stays bound to the queue.
package final class OffQueueTransaction: Sendable {
    private let attempt: QueueBound<TransactionAttempt>
    private let queue: AsyncQueue

    /// Made on the queue, where `attempt` lives.
    init(attempt: TransactionAttempt, queue: AsyncQueue) {
        self.attempt = QueueBound(attempt, on: queue)
        self.queue = queue
    }

    /// Reads `keys` from the server; `completion` runs on the worker queue.
    package func lookup(
        _ keys: [DocumentKey], completion: @escaping @Sendable (Result<[Document], FirestoreErrorCode>) -> Void
    ) {
        queue.enqueue { [attempt] in attempt.value.lookup(keys, completion: completion) }
    }

    /// Buffers a write; the attempt adds the read-version precondition.
    package func write(_ mutation: Mutation) {
        queue.enqueue { [attempt] in attempt.value.write(mutation) }
    }
}

extension FirestoreClient {
    /// ``transaction(maxAttempts:updateFunction:completion:)`` for an update function that runs off the worker
    /// queue: for each attempt `update` gets an ``OffQueueTransaction`` and calls its `done` callback with `nil`
    /// (commit) or the error that aborts the transaction.
    package func runTransaction(
        maxAttempts: Int,
        update: @escaping @Sendable (OffQueueTransaction, @escaping @Sendable (FirestoreErrorCode?) -> Void) -> Void,
        completion: @escaping @Sendable (FirestoreErrorCode?) -> Void
    ) {
        let queue = self.queue
        transaction(
            maxAttempts: maxAttempts,
            updateFunction: { (attempt: TransactionAttempt, done: @escaping (Result<Void, FirestoreErrorCode>) -> Void) in
                let finish = QueueBound(done, on: queue)
                update(OffQueueTransaction(attempt: attempt, queue: queue)) { error in
                    // After the writes the update function made: the queue keeps their order.
                    queue.enqueue { finish.value(error.map { .failure($0) } ?? .success(())) }
                }
            },
            completion: { result in
                if case .failure(let error) = result { completion(error) } else { completion(nil) }
            })
    }
}
