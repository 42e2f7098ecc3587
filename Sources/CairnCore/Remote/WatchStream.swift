import CairnModel
import CairnLocalStore

/// The watch (Listen) stream (Firebase's `WatchStream`): the client adds and removes targets, the server answers
/// with ``WatchChange``s. Opened by ``start()``; its delegate hears about it on the ``AsyncQueue``.
package protocol WatchStream: AnyObject {
    /// Opens the stream; ``WatchStreamDelegate/watchStreamDidOpen()`` follows once it is open.
    func start()
    /// Closes the stream without telling the delegate.
    func stop()
    /// True from ``start()`` until the stream is stopped or fails.
    var isStarted: Bool { get }
    /// True once the stream is open and can take requests.
    var isOpen: Bool { get }
    /// Asks the server to listen to a target, resuming from its resume token (or its snapshot version).
    func watch(_ targetData: TargetData)
    /// Asks the server to stop listening to a target.
    func unwatch(targetID: Int32)
}

/// Receives the watch stream's events, on the ``AsyncQueue``.
package protocol WatchStreamDelegate: AnyObject {
    func watchStreamDidOpen()
    /// A change from the server; `snapshotVersion` is the global version for a no-change target change with no
    /// target ids (a consistent snapshot), `TargetData.noSnapshotVersion` otherwise.
    func watchStreamDidChange(_ change: WatchChange, snapshotVersion: Timestamp)
    /// The stream closed: `nil` for a clean close, otherwise the error that ended it.
    func watchStreamWasInterrupted(error: FirestoreErrorCode?)
}
