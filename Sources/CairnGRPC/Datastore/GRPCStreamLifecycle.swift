import CairnCore
import CairnModel
import CairnLogging

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
/// lifecycle.start { [weak self] event in self?.handle(event) }
/// lifecycle.stop()?.cancel()
/// ```
final class GRPCStreamLifecycle<Call: GRPCStreamCall>: Sendable {
    private let connection: Result<FirestoreRPC, FirestoreErrorCode>
    private let queue: AsyncQueue
    private let makeCall: @Sendable (FirestoreRPC) -> Call
    /// What changes between starts and stops, confined to the queue (every access checks it).
    private let state: QueueBound<State>

    private struct State {
        /// The running call, nil while stopped.
        var call: Call?
        /// Counts starts and stops, so that events of an earlier call are dropped.
        var generation = 0
        var localFailure: FirestoreErrorCode?
        var isStarted = false
        var isOpen = false
        /// The adapter's event handler of the current life.
        var handle: ((Call.Event) -> Void)?
    }

    init(
        connection: Result<FirestoreRPC, FirestoreErrorCode>, queue: AsyncQueue,
        makeCall: @escaping @Sendable (FirestoreRPC) -> Call
    ) {
        self.connection = connection
        self.queue = queue
        self.makeCall = makeCall
        state = QueueBound(handingOver: State(), to: queue)
    }

    /// The running call, nil while stopped.
    var call: Call? { state.value.call }
    var isStarted: Bool { state.value.isStarted }
    var isOpen: Bool { state.value.isOpen }

    /// Opens a new call (stop the previous one first); `handle` gets its events on the queue until the next stop.
    /// The lifecycle keeps `handle` until then: an adapter passes a closure that holds it weakly.
    func start(_ handle: @escaping (Call.Event) -> Void) {
        state.value.isStarted = true
        state.value.handle = handle
        let attempt = state.value.generation
        let forward: @Sendable (Call.Event) -> Void = { [self, queue] event in
            queue.enqueue { [self] in
                let current = state.value
                if attempt == current.generation && current.isStarted { current.handle?(event) }
            }
        }
        switch connection {
        case .failure(let error):
            CairnLogger.firestoreGRPC.debug("\(Self.streamName) cannot start: \(error.code) \(error.message)")
            forward(.closed(error))
        case .success(let rpc):
            CairnLogger.firestoreGRPC.debug("\(Self.streamName) starting")
            let call = makeCall(rpc)
            state.value.call = call
            // Holds the lifecycle until the call's events end, which a stop (cancel or close) brings about.
            Task {
                for await event in call.events { forward(event) }
            }
            call.start()
        }
    }

    /// Ends the current life: later events are dropped. Returns the running call for the adapter to end (cancel,
    /// or close cleanly), nil when there is none.
    func stop() -> Call? {
        let call = state.value.call
        state.value = State(generation: state.value.generation + 1)
        return call
    }

    /// The call is open and takes requests.
    func didOpen() {
        CairnLogger.firestoreGRPC.debug("\(Self.streamName) open")
        state.value.isOpen = true
    }

    /// The call ended by itself: the stream is stopped, and the error to report is returned (an error found on
    /// this side wins over the call's own, which is then `cancelled`).
    func didClose(_ error: FirestoreErrorCode?) -> FirestoreErrorCode? {
        let cause = state.value.localFailure ?? error
        CairnLogger.firestoreGRPC.debug("\(Self.streamName) closed\(cause.map { ": \($0.code) \($0.message)" } ?? "")")
        _ = stop()
        return cause
    }

    /// The stream's name in log lines: `ListenStream` or `WriteStream`.
    private static var streamName: String { "\(Call.self)" }

    /// Ends the call because of `error`, found on this side; ``didClose(_:)`` reports it.
    func fail(_ error: FirestoreErrorCode) {
        state.value.localFailure = error
        state.value.call?.cancel()
    }
}
