import CairnCore
import CairnModel

/// A bidirectional call (``ListenStream`` or ``WriteStream``) as ``GRPCStreamLifecycle`` drives it.
protocol GRPCStreamCall: AnyObject, Sendable {
    associatedtype Event: GRPCStreamEvent
    /// Everything the call reports, in order; finishes after `.closed`.
    var events: AsyncStream<Event> { get }
    func start()
    func cancel()
}

/// The events of a ``GRPCStreamCall``: the lifecycle makes the `.closed` event of a call that never opened.
protocol GRPCStreamEvent: Sendable {
    static func closed(_ error: FirestoreErrorCode?) -> Self
}

extension ListenStream: GRPCStreamCall {}
extension ListenStream.Event: GRPCStreamEvent {}
extension WriteStream: GRPCStreamCall {}
extension WriteStream.Event: GRPCStreamEvent {}

/// The state machine the core's two stream adapters share (``GRPCWatchStream`` and ``GRPCWriteStream``): each
/// ``start(_:)`` opens a new call whose events reach the handler on the core's queue; ``stop()`` ends that life,
/// and every later event of the call is dropped, so a stop never notifies the core; a connection that could not
/// be made fails every start with its error, as a call that closed at once.
///
/// The adapter tells it what the events mean: ``didOpen()`` for `.opened`, ``didClose(_:)`` for `.closed` (it
/// returns the error to report), and ``fail(_:)`` for an error found on this side (a request that cannot be
/// encoded), which ends the call and is reported instead of `cancelled`.
///
/// ```swift
/// let lifecycle = GRPCStreamLifecycle(connection: connection, queue: queue) { $0.makeListenStream() }
/// lifecycle.start { [self] event in handle(event) }
/// lifecycle.stop()?.cancel()
/// ```
final class GRPCStreamLifecycle<Call: GRPCStreamCall>: @unchecked Sendable {
    private let connection: Result<FirestoreRPC, FirestoreErrorCode>
    private let queue: AsyncQueue
    private let makeCall: @Sendable (FirestoreRPC) -> Call
    // Every property below is read and written on the queue only.
    /// The running call, nil while stopped.
    private(set) var call: Call?
    /// Counts starts and stops, so that events of an earlier call are dropped.
    private var generation = 0
    private var localFailure: FirestoreErrorCode?
    private(set) var isStarted = false
    private(set) var isOpen = false

    init(
        connection: Result<FirestoreRPC, FirestoreErrorCode>, queue: AsyncQueue,
        makeCall: @escaping @Sendable (FirestoreRPC) -> Call
    ) {
        self.connection = connection
        self.queue = queue
        self.makeCall = makeCall
    }

    /// Opens a new call (stop the previous one first); `handle` gets its events on the queue until the next stop.
    func start(_ handle: @escaping @Sendable (Call.Event) -> Void) {
        isStarted = true
        let attempt = generation
        let forward: @Sendable (Call.Event) -> Void = { [self, queue] event in
            queue.enqueue { [self] in
                if attempt == generation && isStarted { handle(event) }
            }
        }
        switch connection {
        case .failure(let error):
            forward(.closed(error))
        case .success(let rpc):
            let call = makeCall(rpc)
            self.call = call
            // Holds the adapter until the call's events end, which a stop (cancel or close) brings about.
            Task {
                for await event in call.events { forward(event) }
            }
            call.start()
        }
    }

    /// Ends the current life: later events are dropped. Returns the running call for the adapter to end (cancel,
    /// or close cleanly), nil when there is none.
    func stop() -> Call? {
        generation += 1
        isStarted = false
        isOpen = false
        localFailure = nil
        defer { call = nil }
        return call
    }

    /// The call is open and takes requests.
    func didOpen() {
        isOpen = true
    }

    /// The call ended by itself: the stream is stopped, and the error to report is returned (an error found on
    /// this side wins over the call's own, which is then `cancelled`).
    func didClose(_ error: FirestoreErrorCode?) -> FirestoreErrorCode? {
        let cause = localFailure ?? error
        call = nil
        _ = stop()
        return cause
    }

    /// Ends the call because of `error`, found on this side; ``didClose(_:)`` reports it.
    func fail(_ error: FirestoreErrorCode) {
        localFailure = error
        call?.cancel()
    }
}
