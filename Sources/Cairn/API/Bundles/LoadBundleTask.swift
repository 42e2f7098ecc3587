import CairnCore
import Synchronization

/// A handle that removes an observer from a ``LoadBundleTask``.
public typealias LoadBundleObserverHandle = Int

/// The task of loading a Firestore bundle (`Firestore.loadBundle`): observers get the initial
/// progress, an update after each document, and the final `success` or `error`, on the callback queue
/// (`settings.dispatchQueue`).
///
/// An update goes to the observers registered when the callback queue runs it: an observer added on that queue
/// in the same turn as `loadBundle` (or on any thread before the first update) sees every update.
///
/// ```swift
/// let task = db.loadBundle(bundleData)
/// let handle = task.addObserver { progress in
///     if progress.state == .success { print("loaded \(progress.documentsLoaded) documents") }
/// }
/// task.removeObserverWith(handle: handle)
/// ```
public final class LoadBundleTask: Sendable {
    private typealias Observer = UncheckedSendable<(LoadBundleTaskProgress) -> Void>

    private struct State {
        var observers: [(handle: LoadBundleObserverHandle, observer: Observer)] = []
        /// The completion of `loadBundle(_:completion:)`: called after the observers (Firebase's last observer).
        var completion: UncheckedSendable<(LoadBundleTaskProgress, FirestoreErrorCode?) -> Void>?
        var nextHandle: LoadBundleObserverHandle = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Registers `observer` for the progress updates, the completion and the error; returns the handle that
    /// removes it.
    @discardableResult
    public func addObserver(_ observer: @escaping (LoadBundleTaskProgress) -> Void) -> LoadBundleObserverHandle {
        state.withLock { state in
            let handle = state.nextHandle
            state.nextHandle += 1
            state.observers.append((handle, UncheckedSendable(observer)))
            return handle
        }
    }

    /// Removes the observer registered with `handle`; does nothing when there is none.
    public func removeObserverWith(handle: LoadBundleObserverHandle) {
        state.withLock { state in state.observers.removeAll { $0.handle == handle } }
    }

    /// Removes every observer registered on this task.
    public func removeAllObservers() {
        state.withLock { state in
            state.observers.removeAll()
            state.completion = nil
        }
    }

    /// Sets the observer that runs after the others, with the error of a failed load (the completion of
    /// `loadBundle(_:completion:)`). `removeAllObservers()` removes it too, as in Firebase.
    func setCompletion(_ completion: @escaping (LoadBundleTaskProgress, FirestoreErrorCode?) -> Void) {
        state.withLock { state in state.completion = UncheckedSendable(completion) }
    }

    /// Hands an update to the observers registered now, then to the completion with the error of a failed
    /// load. Runs on the callback queue.
    func report(_ progress: LoadBundleTaskProgress, error: FirestoreErrorCode?) {
        let (observers, completion) = state.withLock { state in (state.observers.map(\.observer), state.completion) }
        for observer in observers { observer.value(progress) }
        completion?.value(progress, error)
    }
}
