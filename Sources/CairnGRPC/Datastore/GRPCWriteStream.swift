import CairnCore
import CairnModel

/// The core's `WriteStream` over the gRPC ``WriteStream``: each ``start()`` opens a new call whose events reach
/// the delegate on the core's queue. ``stop()`` ends the call without notifying the delegate: after a completed
/// handshake it first sends the empty final write with the last stream token, as Firebase does. The lifecycle is
/// ``GRPCStreamLifecycle``'s.
final class GRPCWriteStream: CairnCore.WriteStream {
    private let lifecycle: GRPCStreamLifecycle<CairnGRPC.WriteStream>
    private weak var delegate: (any WriteStreamDelegate)?
    /// Read and written on the queue only (the adapter is not `Sendable`: it never leaves the queue).
    private(set) var handshakeComplete = false
    var lastStreamToken: [UInt8] = []

    init(connection: Result<FirestoreRPC, FirestoreErrorCode>, queue: AsyncQueue, delegate: any WriteStreamDelegate) {
        lifecycle = GRPCStreamLifecycle(connection: connection, queue: queue) { $0.makeWriteStream() }
        self.delegate = delegate
    }

    var isStarted: Bool { lifecycle.isStarted }
    var isOpen: Bool { lifecycle.isOpen }

    func start() {
        stop()
        handshakeComplete = false
        lifecycle.start { [weak self] event in self?.handle(event) }
    }

    func stop() {
        guard let call = lifecycle.stop() else { return }
        if handshakeComplete { call.close() } else { call.cancel() }
    }

    func writeHandshake() {
        lifecycle.call?.writeHandshake()
    }

    func write(mutations: [Mutation]) {
        do {
            try lifecycle.call?.write(mutations)
        } catch {
            lifecycle.fail(error)
        }
    }

    private func handle(_ event: CairnGRPC.WriteStream.Event) {
        switch event {
        case .opened:
            lifecycle.didOpen()
            delegate?.writeStreamDidOpen()
        case .handshakeComplete(let token):
            handshakeComplete = true
            lastStreamToken = token
            delegate?.writeStreamDidCompleteHandshake()
        case .response(let token, let ack):
            lastStreamToken = token
            delegate?.writeStreamDidReceiveResponse(commitVersion: ack.commitVersion, results: ack.results)
        case .closed(let error):
            // The handshake flag keeps its value so that the delegate can tell a failed handshake from a failed
            // write; the call that ended gets no final write.
            delegate?.writeStreamWasInterrupted(error: lifecycle.didClose(error))
        }
    }
}
