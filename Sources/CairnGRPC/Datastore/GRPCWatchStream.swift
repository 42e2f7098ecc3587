import Cairn
import CairnModel
import LocalStore

/// The core's `WatchStream` over a ``ListenStream``: each ``start()`` opens a new gRPC call, whose events are
/// forwarded to the delegate on the core's queue, converted to `WatchChange`s with their snapshot version.
/// ``stop()`` cancels the call; its later events are dropped (a stop never notifies the delegate).
final class GRPCWatchStream: WatchStream, @unchecked Sendable {
    private let connection: Result<FirestoreRPC, FirestoreErrorCode>
    private let queue: AsyncQueue
    private weak var delegate: (any WatchStreamDelegate)?
    /// Every property below is read and written on the queue only.
    private var call: ListenStream?
    /// Counts starts and stops, so that events of an earlier call are dropped.
    private var generation = 0
    /// An error found on this side (a target that cannot be encoded) that ends the call instead of `cancelled`.
    private var localFailure: FirestoreErrorCode?
    private(set) var isStarted = false
    private(set) var isOpen = false

    init(connection: Result<FirestoreRPC, FirestoreErrorCode>, queue: AsyncQueue, delegate: any WatchStreamDelegate) {
        self.connection = connection
        self.queue = queue
        self.delegate = delegate
    }

    func start() {
        stopCall()
        isStarted = true
        let attempt = generation
        switch connection {
        case .failure(let error):
            queue.enqueue { [self] in handle(.closed(error), attempt: attempt) }
        case .success(let rpc):
            let call = rpc.makeListenStream()
            self.call = call
            let queue = self.queue
            // Holds the stream until the call's events end, which a stop (cancel or close) brings about.
            Task { [self] in
                for await event in call.events {
                    queue.enqueue { self.handle(event, attempt: attempt) }
                }
            }
            call.start()
        }
    }

    func stop() {
        stopCall()
    }

    func watch(_ targetData: TargetData) {
        do {
            try call?.watch(targetData)
        } catch {
            fail(error)
        }
    }

    func unwatch(targetID: Int32) {
        call?.unwatch(targetID: targetID)
    }

    private func stopCall() {
        generation += 1
        isStarted = false
        isOpen = false
        localFailure = nil
        call?.cancel()
        call = nil
    }

    private func fail(_ error: FirestoreErrorCode) {
        localFailure = error
        call?.cancel()
    }

    private func handle(_ event: ListenStream.Event, attempt: Int) {
        guard attempt == generation, isStarted else { return }
        switch event {
        case .opened:
            isOpen = true
            delegate?.watchStreamDidOpen()
        case .change(let change):
            delegate?.watchStreamDidChange(
                Self.watchChange(change), snapshotVersion: change.snapshotVersion ?? TargetData.noSnapshotVersion)
        case .closed(let error):
            let cause = localFailure ?? error
            stopCall()
            delegate?.watchStreamWasInterrupted(error: cause)
        }
    }

    /// The core's shape of a decoded Listen message (the cases correspond one to one).
    static func watchChange(_ change: ListenChange) -> WatchChange {
        switch change {
        case .documentChange(let updated, let removed, let key, let document):
            return .documentChange(updatedTargetIDs: updated, removedTargetIDs: removed, key: key, document: document)
        case .targetChange(let state, let targetIDs, let resumeToken, _, let cause):
            return .targetChange(state: watchState(state), targetIDs: targetIDs, resumeToken: resumeToken, cause: cause)
        case .existenceFilter(let targetID, let count, let bloomFilter):
            return .existenceFilter(
                targetID: targetID, count: count,
                bloomFilter: bloomFilter.map {
                    BloomFilterParameters(bitmap: $0.bitmap, padding: $0.padding, hashCount: $0.hashCount)
                })
        }
    }

    private static func watchState(_ state: ListenTargetChangeState) -> WatchTargetChangeState {
        switch state {
        case .noChange: .noChange
        case .added: .added
        case .removed: .removed
        case .current: .current
        case .reset: .reset
        }
    }
}
