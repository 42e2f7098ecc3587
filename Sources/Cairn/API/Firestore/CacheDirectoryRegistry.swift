import CairnCore
import Dispatch
import Foundation
import SegmentLog
import Synchronization

/// The persistent cache directories the ``Firestore`` instances of this process use: a directory has one owner,
/// a new instance on a directory whose instance is terminating waits for it to close, and `clearPersistence()`
/// deletes a cache only once its instance has terminated (Firebase's rule).
///
/// ```swift
/// let claim = try CacheDirectoryRegistry.claim(path)   // when an instance starts on `path`
/// claim.markTerminating()                              // terminate() called
/// claim.release()                                      // the client has closed the cache
/// ```
enum CacheDirectoryRegistry {
    /// How long a new client or a `clearPersistence()` waits for a terminating client to close the same cache.
    static let closeWaitSeconds = 30

    /// An instance's hold on its cache directory, with a signal fired when it is released.
    final class Claim: Sendable {
        let path: String
        fileprivate let closed = DispatchSemaphore(value: 0)
        fileprivate let isTerminating = Atomic<Bool>(false)

        fileprivate init(path: String) { self.path = path }

        /// The instance is terminating: a new claim on the directory waits for ``release()`` instead of failing.
        func markTerminating() {
            isTerminating.store(true, ordering: .sequentiallyConsistent)
        }

        /// The instance has closed its cache; the directory is free.
        func release() {
            CacheDirectoryRegistry.openDirectories.withLock { open in
                if open[path] === self { open[path] = nil }
            }
            closed.signal()
        }
    }

    /// The claimed directories by standardized path.
    private static let openDirectories = Mutex<[String: Claim]>([:])

    /// Claims `path` for a new instance, waiting for a terminating one to close it first.
    static func claim(_ path: String) throws(FirestoreErrorCode) -> Claim {
        try waitUntilClosed(path, purpose: "opened")
        let claim = Claim(path: path)
        let claimed = openDirectories.withLock { open in
            guard open[path] == nil else { return false }
            open[path] = claim
            return true
        }
        guard claimed else { throw inUseError(path) }
        return claim
    }

    /// Deletes the persistent cache at `directory`, after its instance (if any) in this process has closed.
    /// Fails with `failedPrecondition` while a running instance, here or in another process, uses the cache.
    static func clearPersistence(at directory: URL) throws(FirestoreErrorCode) {
        let path = directory.standardizedFileURL.path
        try waitUntilClosed(path, purpose: "cleared")
        if let holder = SegmentLog.lockHolder(at: path) {
            throw FirestoreErrorCode(
                .failedPrecondition,
                "Persistence cannot be cleared: the cache at \(path) is in use by \(holder). Terminate that instance first.")
        }
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw FirestoreErrorCode(.unknown, "Failed to clear persistence at \(path): \(error.localizedDescription)")
        }
    }

    /// Returns when no instance of this process holds `path`; throws when a running one does.
    private static func waitUntilClosed(_ path: String, purpose: String) throws(FirestoreErrorCode) {
        guard let claim = openDirectories.withLock({ $0[path] }) else { return }
        guard claim.isTerminating.load(ordering: .sequentiallyConsistent) else { throw inUseError(path) }
        if claim.closed.wait(timeout: .now() + .seconds(closeWaitSeconds)) == .timedOut {
            throw FirestoreErrorCode(
                .deadlineExceeded,
                "The cache at \(path) could not be \(purpose): the terminating instance that used it did not close "
                    + "within \(closeWaitSeconds) seconds.")
        }
        claim.closed.signal()
    }

    private static func inUseError(_ path: String) -> FirestoreErrorCode {
        FirestoreErrorCode(
            .failedPrecondition,
            "The persistent cache at \(path) is already in use by another Firestore instance in this process. One "
                + "instance owns a cache directory at a time: terminate the other instance, or give this one its own "
                + "PersistentCacheSettings(directory:).")
    }
}
