import CairnApp
import CairnLocalStore

/// Opening the persistent cache so that damage never leaves the app stuck (``DamagedCacheRecovery``): by
/// default a damaged cache is moved aside, salvaged into a fresh one (pending writes included) and the
/// recovery reported in one `Cairn: ...` line on standard error, as errors nobody can receive are
/// (``UnhandledErrors``); with `onDamage: .fail` the open fails with `dataLoss` and the directory is left as
/// it was. A cache another process holds stays `failedPrecondition` (``FirestoreErrorCode/fromCache(_:)``).
///
/// ```swift
/// let store = try FirestoreClient.openPersistentCache(at: path, recoversDamage: true)
/// // stderr: Cairn: Data loss: the local cache at /var/lib/app/cache was recovered at ... from damage: ...
/// ```
extension FirestoreClient {
    /// The cache in `directory`, recovered from damage when `recoversDamage`.
    ///
    /// - Throws: `dataLoss` for damage when not recovering; the cache's other errors as ``FirestoreErrorCode/fromCache(_:)``
    ///   maps them.
    package static func openPersistentCache(at directory: String, recoversDamage: Bool) throws -> LocalStore {
        // Group commit: a local write's snapshot never waits for the disk (Docs/LocalStore.md §10).
        let opened = try DamagedCacheRecovery.open(at: directory, recover: recoversDamage, syncing: .behindAppends)
        if let recovery = opened.recovery {
            UnhandledErrors.report(
                FirestoreErrorCode(.dataLoss, "Data loss: the local cache at \(directory) was \(recovery.summary)"))
        }
        return opened.store
    }
}
