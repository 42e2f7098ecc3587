import SegmentLog

extension LocalStore {
    /// Opens the persistent cache in `directory` for reading only: the log is opened without its lock and
    /// without recovery writes, and replay only reads, so not a byte of the directory changes. Every write
    /// through the returned store fails with a `storage` error ("opened read-only").
    ///
    /// A directory that a running app holds (its `LOCK`) is refused: reading a log while it is written could
    /// show a state that never existed for that app's views. Close the app, or copy the directory and open the
    /// copy.
    ///
    /// ```swift
    /// let store = try LocalStore.openReadOnly(at: "/var/lib/app/cache")
    /// print(store.documentCount, store.pendingBatchIDs)
    /// try store.close()
    /// ```
    ///
    /// - Throws: ``LocalStoreError`` `storage` with the ``StorageError`` beneath: `.locked` when an app holds
    ///   the directory, `.notALog` when it holds no cache, `.corruption` for damage replay meets; `dataLoss`
    ///   when an event cannot be decoded.
    package static func openReadOnly(at directory: String) throws -> LocalStore {
        if let holder = SegmentLog.lockHolder(at: directory) {
            let storage = StorageError(
                .locked, "the cache is in use by \(holder); close that app first, or copy the directory and open the copy",
                path: directory)
            throw LocalStoreError(.storage, storage.message, storage: storage)
        }
        var configuration = defaultLogConfiguration
        configuration.readOnly = true
        return try open(at: directory, configuration: configuration)
    }

    /// The log under a persistent store (nil in memory mode).
    var persistentLog: SegmentLog? { events.log }
}
