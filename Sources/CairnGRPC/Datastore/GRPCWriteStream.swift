import Cairn
import CairnModel

/// The core's `WriteStream` over the gRPC ``WriteStream``: each ``start()`` opens a new call whose events reach
/// the delegate on the core's queue. ``stop()`` ends the call without notifying the delegate: after a completed
/// handshake it first sends the empty final write with the last stream token, as Firebase does.
final class GRPCWriteStream: Cairn.WriteStream, @unchecked Sendable {
    private let connection: Result<FirestoreRPC, FirestoreErrorCode>
    private let queue: AsyncQueue
    private weak var delegate: (any WriteStreamDelegate)?
    /// Every property below is read and written on the queue only.
    private var call: CairnGRPC.WriteStream?
    /// Counts starts and stops, so that events of an earlier call are dropped.
    private var generation = 0
    /// An error found on this side (a mutation that cannot be encoded) that ends the call instead of `cancelled`.
    private var localFailure: FirestoreErrorCode?
    private(set) var isStarted = false
    private(set) var isOpen = false
    private(set) var handshakeComplete = false
    var lastStreamToken: [UInt8] = []

    init(connection: Result<FirestoreRPC, FirestoreErrorCode>, queue: AsyncQueue, delegate: any WriteStreamDelegate) {
        self.connection = connection
        self.queue = queue
        self.delegate = delegate
    }

    func start() {
        stopCall()
        isStarted = true
        handshakeComplete = false
        let attempt = generation
        switch connection {
        case .failure(let error):
            queue.enqueue { [self] in handle(.closed(error), attempt: attempt) }
        case .success(let rpc):
            let call = rpc.makeWriteStream()
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

    func writeHandshake() {
        call?.writeHandshake()
    }

    func write(mutations: [Mutation]) {
        do {
            try call?.write(mutations)
        } catch {
            localFailure = error
            call?.cancel()
        }
    }

    private func stopCall() {
        generation += 1
        isStarted = false
        isOpen = false
        localFailure = nil
        if let call {
            if handshakeComplete { call.close() } else { call.cancel() }
        }
        call = nil
    }

    private func handle(_ event: CairnGRPC.WriteStream.Event, attempt: Int) {
        guard attempt == generation, isStarted else { return }
        switch event {
        case .opened:
            isOpen = true
            delegate?.writeStreamDidOpen()
        case .handshakeComplete(let token):
            handshakeComplete = true
            lastStreamToken = token
            delegate?.writeStreamDidCompleteHandshake()
        case .response(let token, let ack):
            lastStreamToken = token
            delegate?.writeStreamDidReceiveResponse(commitVersion: ack.commitVersion, results: ack.results)
        case .closed(let error):
            let cause = localFailure ?? error
            // The handshake flag keeps its value so that the delegate can tell a failed handshake from a failed
            // write; stopCall() must not send a final write on a call that already ended.
            call = nil
            stopCall()
            delegate?.writeStreamWasInterrupted(error: cause)
        }
    }
}
