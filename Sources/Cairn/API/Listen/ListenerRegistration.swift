import CairnCore
import Synchronization

/// The handle of a snapshot listener: ``remove()`` stops it. After `remove()` returns, the listener is not
/// called again, even for events already on their way to the callback queue.
///
/// ```swift
/// let registration = db.collection("cities").addSnapshotListener { snapshot, error in ... }
/// registration.remove()
/// ```
public protocol ListenerRegistration: AnyObject, Sendable {
    /// Stops the listener. Calling it again does nothing.
    func remove()
}

/// A registration over a core listen, whose events pass through ``deliver(_:)`` onto the callback queue.
final class SnapshotListenerRegistration: ListenerRegistration {
    private struct State {
        /// The user removed the registration: nothing more is delivered.
        var removed = false
        /// The listen ended with an error: nothing after that error is delivered.
        var finished = false
        var handle: ListenerHandle?
    }

    private let state = Mutex(State())
    private let firestore: Firestore

    init(firestore: Firestore) {
        self.firestore = firestore
    }

    /// Attaches the core's handle; removes it at once if the registration was removed meanwhile.
    func attach(_ handle: ListenerHandle) {
        let removeNow = state.withLock { state in
            if state.removed || state.finished { return true }
            state.handle = handle
            return false
        }
        if removeNow { handle.remove() }
    }

    var isRemoved: Bool { state.withLock { $0.removed } }

    func remove() {
        let handle = state.withLock { state in
            state.removed = true
            defer { state.handle = nil }
            return state.handle
        }
        handle?.remove()
    }

    /// Runs `event` on the callback queue unless the registration has been removed by then. A `final` event
    /// (an error) ends the listen: the core's listen is stopped and later events are dropped.
    func deliver(final: Bool = false, _ event: @escaping () -> Void) {
        let (accepted, handle) = state.withLock { state -> (Bool, ListenerHandle?) in
            if state.finished || state.removed { return (false, nil) }
            guard final else { return (true, nil) }
            state.finished = true
            defer { state.handle = nil }
            return (true, state.handle)
        }
        handle?.remove()
        guard accepted else { return }
        let box = UncheckedSendable(event)
        firestore.callbackQueue.async { [self] in
            if !isRemoved { box.value() }
        }
    }
}
