import CairnCore
import Foundation

/// The `async` forms of ``Firestore``'s calls.
///
/// ```swift
/// try await db.disableNetwork()
/// try await db.waitForPendingWrites()
/// let count = try await db.runTransaction { transaction, errorPointer in ... }
/// let progress = try await db.loadBundle(bundleData)
/// ```
extension Firestore {
    public func enableNetwork() async throws {
        try await awaitCompletion { enableNetwork(completion: $0) }
    }

    public func disableNetwork() async throws {
        try await awaitCompletion { disableNetwork(completion: $0) }
    }

    public func waitForPendingWrites() async throws {
        try await awaitCompletion { waitForPendingWrites(completion: $0) }
    }

    public func terminate() async throws {
        try await awaitCompletion { terminate(completion: $0) }
    }

    public func clearPersistence() async throws {
        try await awaitCompletion { clearPersistence(completion: $0) }
    }

    public func setIndexConfiguration(_ json: String) async throws {
        try await awaitCompletion { setIndexConfiguration(json, completion: $0) }
    }

    /// Loads a bundle into the cache and returns the final progress; throws the load's error.
    public func loadBundle(_ bundleData: Data) async throws -> LoadBundleTaskProgress {
        try await awaitBundle { loadBundle(bundleData, completion: $0) }
    }

    /// Loads a bundle read from `bundleStream` into the cache and returns the final progress.
    public func loadBundle(_ bundleStream: InputStream) async throws -> LoadBundleTaskProgress {
        try await awaitBundle { loadBundle(bundleStream, completion: $0) }
    }

    /// The query a loaded bundle saved under `name`, or nil.
    public func getQuery(named name: String) async -> Query? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Query?, Never>) in
            getQuery(named: name) { continuation.resume(returning: $0) }
        }
    }

    private func awaitBundle(
        _ start: (@escaping (LoadBundleTaskProgress?, Error?) -> Void) -> LoadBundleTask
    ) async throws -> LoadBundleTaskProgress {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<LoadBundleTaskProgress, Error>) in
            _ = start { progress, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let progress {
                    continuation.resume(returning: progress)
                }
            }
        }
    }

    /// Runs `updateBlock` in a transaction and returns its result.
    public func runTransaction(_ updateBlock: @escaping (Transaction, NSErrorPointer) -> Any?) async throws -> Any? {
        try await runTransaction(with: nil, block: updateBlock)
    }

    /// Runs `updateBlock` in a transaction with `options` and returns its result.
    public func runTransaction(
        with options: TransactionOptions?, block updateBlock: @escaping (Transaction, NSErrorPointer) -> Any?
    ) async throws -> Any? {
        let result = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<UncheckedSendable<Any?>, Error>) in
            runTransaction(with: options, block: updateBlock) { value, error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: UncheckedSendable(value))
                }
            }
        }
        return result.value
    }
}
