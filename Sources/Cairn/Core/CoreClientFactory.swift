import CairnModel
import Dispatch
import Foundation
import LocalStore
import SegmentLog
import Synchronization

/// Starts the real core for a ``Firestore`` instance: the default of ``ClientBridgeFactory``. It maps the cache
/// settings to a ``FirestoreClient/Persistence`` (persistent cache → `.disk`, memory cache → `.memory` with eager
/// GC or `.memoryLRU`), asks ``DatastoreFactory`` for the network, and keeps a registry of the cache directories
/// in use so that a directory has one owner and `clearPersistence()` deletes a cache only once its instance has
/// terminated (Firebase's rule).
///
/// ```swift
/// let bridge = try CoreClientFactory.makeClient(configuration)   // what Firestore.firestore() runs on first use
/// ```
enum CoreClientFactory {
    /// How long a new client or a `clearPersistence()` waits for a terminating client to close the same cache.
    static let closeWaitSeconds = 30

    /// The cache directories of the running clients of this process, with a signal fired when each closes.
    private static let openDirectories = Mutex<[String: OpenCache]>([:])

    private final class OpenCache: Sendable {
        let closed = DispatchSemaphore(value: 0)
        let isTerminating = Atomic<Bool>(false)
    }

    static func makeClient(_ configuration: ClientConfiguration) throws(FirestoreErrorCode) -> any ClientBridge {
        let queue = AsyncQueue(label: "cairn.worker.\(configuration.databaseID.projectID)")
        let datastore = DatastoreFactory.makeDatastore(configuration, queue: queue)
        let persistence: FirestoreClient.Persistence
        let registered: (path: String, entry: OpenCache)?
        switch configuration.cache {
        case .memory(nil):
            persistence = .memory
            registered = nil
        case .memory(let size?):
            persistence = .memoryLRU(cacheSizeBytes: size)
            registered = nil
        case .persistent(let directory, let size, let onDamage):
            let path = directory.standardizedFileURL.path
            registered = (path, try register(path))
            persistence = .disk(
                directory: path, cacheSizeBytes: size < 0 ? LocalStore.cacheSizeUnlimited : size,
                recoversDamage: onDamage == .recover)
        }
        let client: FirestoreClient
        do {
            if let registered {
                // Every missing directory (a missing $XDG_DATA_HOME or ~/.local/share, then
                // cairn/<project>/<database>) is created 0700; an existing one keeps its mode.
                try PosixFileSystem().createDirectory(at: registered.path)
            }
            client = try FirestoreClient(datastore: datastore, persistence: persistence, queue: queue)
        } catch {
            if let registered { release(registered.path, registered.entry) }
            if let error = error as? FirestoreErrorCode { throw error }
            throw FirestoreErrorCode(
                .unavailable, "Failed to create the cache directory \(registered?.path ?? ""): \(error)")
        }
        return ClientBridgeAdapter(client: client) {
            if let registered { release(registered.path, registered.entry) }
        } onTerminating: {
            registered?.entry.isTerminating.store(true, ordering: .sequentiallyConsistent)
        }
    }

    /// Deletes the persistent cache of `configuration`, after its client (if any) in this process has closed.
    /// Fails with `failedPrecondition` while a running instance, here or in another process, uses the cache.
    static func clearPersistence(_ configuration: ClientConfiguration) throws(FirestoreErrorCode) {
        guard case .persistent(let directory, _, _) = configuration.cache else { return }
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

    /// Claims `path` for a new client, waiting for a terminating one to close it first.
    private static func register(_ path: String) throws(FirestoreErrorCode) -> OpenCache {
        try waitUntilClosed(path, purpose: "opened")
        let entry = OpenCache()
        let claimed = openDirectories.withLock { open in
            guard open[path] == nil else { return false }
            open[path] = entry
            return true
        }
        guard claimed else { throw inUseError(path) }
        return entry
    }

    private static func release(_ path: String, _ entry: OpenCache) {
        openDirectories.withLock { open in
            if open[path] === entry { open[path] = nil }
        }
        entry.closed.signal()
    }

    /// Returns when no client of this process holds `path`; throws when a running one does.
    private static func waitUntilClosed(_ path: String, purpose: String) throws(FirestoreErrorCode) {
        guard let entry = openDirectories.withLock({ $0[path] }) else { return }
        guard entry.isTerminating.load(ordering: .sequentiallyConsistent) else { throw inUseError(path) }
        if entry.closed.wait(timeout: .now() + .seconds(closeWaitSeconds)) == .timedOut {
            throw FirestoreErrorCode(
                .deadlineExceeded,
                "The cache at \(path) could not be \(purpose): the terminating instance that used it did not close "
                    + "within \(closeWaitSeconds) seconds.")
        }
        entry.closed.signal()
    }

    private static func inUseError(_ path: String) -> FirestoreErrorCode {
        FirestoreErrorCode(
            .failedPrecondition,
            "The persistent cache at \(path) is already in use by another Firestore instance in this process. One "
                + "instance owns a cache directory at a time: terminate the other instance, or give this one its own "
                + "PersistentCacheSettings(directory:).")
    }
}
