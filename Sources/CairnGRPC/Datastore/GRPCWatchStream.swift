import CairnCore
import CairnModel
import CairnLocalStore

/// The core's `WatchStream` over a ``ListenStream``: each ``start()`` opens a new gRPC call, whose events are
/// forwarded to the delegate on the core's queue. ``stop()`` cancels the call; its later events are dropped (a
/// stop never notifies the delegate). The lifecycle is ``GRPCStreamLifecycle``'s.
final class GRPCWatchStream: WatchStream {
    private let lifecycle: GRPCStreamLifecycle<ListenStream>
    private weak var delegate: (any WatchStreamDelegate)?

    init(connection: Result<FirestoreRPC, FirestoreErrorCode>, queue: AsyncQueue, delegate: any WatchStreamDelegate) {
        lifecycle = GRPCStreamLifecycle(connection: connection, queue: queue) { $0.makeListenStream() }
        self.delegate = delegate
    }

    var isStarted: Bool { lifecycle.isStarted }
    var isOpen: Bool { lifecycle.isOpen }

    func start() {
        stop()
        lifecycle.start { [weak self] event in self?.handle(event) }
    }

    func stop() {
        lifecycle.stop()?.cancel()
    }

    func watch(_ targetData: TargetData) {
        do {
            try lifecycle.call?.watch(targetData)
        } catch {
            lifecycle.fail(error)
        }
    }

    func unwatch(targetID: Int32) {
        lifecycle.call?.unwatch(targetID: targetID)
    }

    private func handle(_ event: ListenStream.Event) {
        switch event {
        case .opened:
            lifecycle.didOpen()
            delegate?.watchStreamDidOpen()
        case .change(let change, let snapshotVersion):
            delegate?.watchStreamDidChange(change, snapshotVersion: snapshotVersion)
        case .closed(let error):
            delegate?.watchStreamWasInterrupted(error: lifecycle.didClose(error))
        }
    }
}
