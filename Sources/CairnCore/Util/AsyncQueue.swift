import Dispatch
import Foundation
import Synchronization

/// The core's one serial worker (Firebase's `AsyncQueue`): every core object (SyncEngine, RemoteStore, LocalStore,
/// EventManager) is confined to it, and every timer goes through it.
///
/// Two modes:
/// - **production** (``init(label:onConfinementViolation:)``): a serial `DispatchQueue`; delayed operations fire
///   after their delay.
/// - **manual** (``manual(onConfinementViolation:)``): for tests. Nothing runs until the test calls ``drain()``;
///   delayed operations run only through ``runDelayed(until:)`` or ``runAllDelayed()``, in the order of their due
///   time, on a virtual clock. Runs are therefore deterministic.
///
/// The queue knows which thread runs it: in both modes every operation runs with the queue's owner set to the
/// current thread, so ``isCurrentQueue`` is exact (a thread that is not running one of the queue's operations is
/// never "on" it, even while another thread drains a manual queue). ``verifyIsCurrentQueue(_:)`` turns a call
/// from elsewhere into a confinement violation, which stops the program unless a test installed another handler.
///
/// ```swift
/// let queue = AsyncQueue.manual()
/// queue.enqueue { remoteStore.enableNetwork() }
/// queue.drain()                                    // runs it, and anything it enqueued
/// queue.runDelayed(until: .onlineStateTimeout)     // fires the 10 s online-state timer now
/// ```
package final class AsyncQueue: Sendable {
    /// Hears a confinement violation (a core object used off its queue): a programming error in the library.
    package typealias ViolationHandler = @Sendable (String) -> Void

    /// The default ``ViolationHandler``: stops the program with the message.
    package static let stopOnViolation: ViolationHandler = { message in preconditionFailure(message) }

    private let dispatchQueue: DispatchQueue?
    private let onViolation: ViolationHandler
    /// Manual mode: immediate operations, delayed operations and the virtual clock, behind one lock so that a test
    /// may enqueue from any thread. Unused in production.
    private let manual = Mutex(ManualState())
    /// The thread running one of the queue's operations right now, 0 when none is.
    private let owner = Atomic<UInt>(0)
    /// Production: operations enqueued (``enqueue(_:)``, ``enqueueAndWait(_:)``) that have not started yet.
    private let waiting = Atomic<Int>(0)

    package struct ManualState {
        /// Each with whether ``hasWaitingOperations`` counts it (all but those of ``enqueueUncounted(_:)``).
        package var operations: [(run: @Sendable () -> Void, counted: Bool)] = []
        /// How many of `operations` are counted.
        package var counted = 0
        package var delayed: [DelayedOperation] = []
        package var now: TimeInterval = 0
    }

    /// A production queue: a serial `DispatchQueue` with the given label.
    package init(label: String, onConfinementViolation: @escaping ViolationHandler = AsyncQueue.stopOnViolation) {
        dispatchQueue = DispatchQueue(label: label)
        onViolation = onConfinementViolation
    }

    private init(onViolation: @escaping ViolationHandler) {
        dispatchQueue = nil
        self.onViolation = onViolation
    }

    /// A deterministic queue for tests: operations run only when the test drains the queue. A test that wants to
    /// observe confinement violations instead of stopping passes a recording handler.
    package static func manual(onConfinementViolation: @escaping ViolationHandler = AsyncQueue.stopOnViolation) -> AsyncQueue {
        AsyncQueue(onViolation: onConfinementViolation)
    }

    /// True for a queue made by ``manual(onConfinementViolation:)``.
    package var isManual: Bool { dispatchQueue == nil }

    /// The queue's clock in seconds, for measuring delays: monotonic uptime in production, the virtual clock in
    /// manual mode (it advances to each delayed operation's due time as the operation runs).
    package var now: TimeInterval {
        if isManual { return manual.withLock { $0.now } }
        return TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Runs `op` on the queue after the operations already enqueued. Callable from any thread.
    package func enqueue(_ op: @escaping @Sendable () -> Void) {
        if let dispatchQueue {
            waiting.add(1, ordering: .relaxed)
            dispatchQueue.async { [self] in
                waiting.subtract(1, ordering: .relaxed)
                runOwned(op)
            }
        } else {
            manual.withLock { state in
                state.operations.append((op, true))
                state.counted += 1
            }
        }
    }

    /// ``enqueue(_:)`` for a report that long work on the queue need not make way for: ``hasWaitingOperations``
    /// does not count it (the cache's durability reports, which follow the syncs behind a collection round's own
    /// appends and would otherwise end every round after its first slice). Callable from any thread.
    package func enqueueUncounted(_ op: @escaping @Sendable () -> Void) {
        if let dispatchQueue {
            dispatchQueue.async { [self] in runOwned(op) }
        } else {
            manual.withLock { $0.operations.append((op, false)) }
        }
    }

    /// ``enqueue(_:)`` for an operation made on the queue: `op` need not be `Sendable`, because it is bound to the
    /// queue (``QueueBound``) where it was made and runs there.
    package func enqueueFromQueue(_ op: @escaping () -> Void) {
        let bound = QueueBound(op, on: self)
        enqueue { bound.value() }
    }

    /// Runs `op` on the queue after `delay` seconds, unless canceled first. Only one operation per ``TimerID`` is
    /// expected to be pending at a time (as in Firebase); the returned handle cancels it. Callable from any thread.
    @discardableResult
    package func enqueueAfter(delay: TimeInterval, timerID: TimerID, _ op: @escaping @Sendable () -> Void) -> DelayedOperation {
        if let dispatchQueue {
            let operation = DelayedOperation(queue: self, timerID: timerID, dueTime: 0, sequence: 0, op: op)
            dispatchQueue.asyncAfter(deadline: .now() + max(0, delay)) { [self] in runOwned { operation.runIfPending() } }
            return operation
        }
        return manual.withLock { state in
            let operation = DelayedOperation(
                queue: self, timerID: timerID, dueTime: state.now + max(0, delay), sequence: state.delayed.count, op: op)
            state.delayed.append(operation)
            return operation
        }
    }

    /// ``enqueueAfter(delay:timerID:_:)`` for an operation made on the queue (the core's timers): `op` need not be
    /// `Sendable`, because it is bound to the queue where it was made and runs there.
    @discardableResult
    package func enqueueAfterFromQueue(delay: TimeInterval, timerID: TimerID, _ op: @escaping () -> Void) -> DelayedOperation {
        let bound = QueueBound(op, on: self)
        return enqueueAfter(delay: delay, timerID: timerID) { bound.value() }
    }

    /// True when an operation enqueued to run at once (``enqueue(_:)``, ``enqueueAndWait(_:)``; in manual mode, one
    /// not drained yet) waits for the queue: long work on the queue (the index backfill) checks it to stop early,
    /// so that a write or a snapshot waits for one small step rather than the whole slice. Delayed operations
    /// and those of ``enqueueUncounted(_:)`` never count. Callable from any thread; a hint, read without a lock.
    package var hasWaitingOperations: Bool {
        if isManual { return manual.withLock { $0.counted > 0 } }
        return waiting.load(ordering: .relaxed) > 0
    }

    /// True when the caller runs on the queue: inside one of its operations (in manual mode: inside ``drain()``
    /// or a delayed operation, on the thread that drains).
    package var isCurrentQueue: Bool { owner.load(ordering: .relaxed) == Self.currentThread }

    /// Reports a confinement violation when called off the queue: core objects must only be touched from their
    /// worker. `what` names the entry point in the message.
    package func verifyIsCurrentQueue(_ what: @autoclosure () -> String = "A core operation") {
        guard !isCurrentQueue else { return }
        onViolation("\(what()) ran outside of its AsyncQueue (thread confinement violated).")
    }

    /// Runs `op` on the queue and waits for its result. Must not be called from the queue. In manual mode it
    /// enqueues `op` and drains the queue, so everything enqueued before it runs first.
    package func enqueueAndWait<T>(_ op: @escaping () throws -> T) throws -> T {
        precondition(!isCurrentQueue, "enqueueAndWait called from its own queue would deadlock.")
        // The caller blocks until `op` has run (dispatch `sync`, or a drain on this very thread), so `op` and its
        // result are never used by two threads at once.
        nonisolated(unsafe) let op = op
        nonisolated(unsafe) var result: Result<T, any Error>?
        let run: @Sendable () -> Void = { result = Result { try op() } }
        if let dispatchQueue {
            waiting.add(1, ordering: .relaxed)
            dispatchQueue.sync {
                waiting.subtract(1, ordering: .relaxed)
                runOwned(run)
            }
        } else {
            enqueue(run)
            drain()
        }
        guard let result else { preconditionFailure("enqueueAndWait: the queue did not run the operation") }
        return try result.get()
    }

    // MARK: Manual mode

    /// Runs every enqueued operation, including those enqueued while draining, until none is left.
    package func drain() {
        precondition(isManual, "drain() is for manual (test) queues.")
        while let op = manual.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.operations.isEmpty else { return nil }
            let next = state.operations.removeFirst()
            if next.counted { state.counted -= 1 }
            return next.run
        }) {
            runOwned(op)
        }
    }

    /// True when a delayed operation with `timerID` is pending.
    package func containsDelayedOperation(_ timerID: TimerID) -> Bool {
        manual.withLock { state in state.delayed.contains { $0.timerID == timerID } }
    }

    /// Runs the pending delayed operations in due order, draining after each, up to and including the first one
    /// with `timerID` (Firebase's `RunScheduledOperationsUntil`). Returns false, running nothing, when no operation
    /// with that id is pending.
    @discardableResult
    package func runDelayed(until timerID: TimerID) -> Bool {
        precondition(isManual, "runDelayed(until:) is for manual (test) queues.")
        drain()
        guard containsDelayedOperation(timerID) else { return false }
        while let next = popNextDelayed() {
            runOwned { next.runIfPending() }
            drain()
            if next.timerID == timerID { break }
        }
        return true
    }

    /// Runs every pending delayed operation in due order, draining after each, including operations they schedule
    /// (Firebase's `RunScheduledOperationsUntil(kAll)`). Stops after `limit` operations so that a timer that always
    /// re-arms itself cannot hang a test.
    package func runAllDelayed(limit: Int = 10_000) {
        precondition(isManual, "runAllDelayed() is for manual (test) queues.")
        drain()
        var count = 0
        while count < limit, let next = popNextDelayed() {
            runOwned { next.runIfPending() }
            drain()
            count += 1
        }
    }

    private func popNextDelayed() -> DelayedOperation? {
        manual.withLock { state in
            guard let index = state.delayed.indices.min(by: { a, b in
                let x = state.delayed[a], y = state.delayed[b]
                return (x.dueTime, x.sequence) < (y.dueTime, y.sequence)
            }) else { return nil }
            let operation = state.delayed.remove(at: index)
            state.now = max(state.now, operation.dueTime)
            return operation
        }
    }

    /// Runs `op` as the queue's owner: ``isCurrentQueue`` is true on this thread, and only on it, until it returns.
    private func runOwned(_ op: () -> Void) {
        let previous = owner.exchange(Self.currentThread, ordering: .relaxed)
        op()
        owner.store(previous, ordering: .relaxed)
    }

    /// Called by ``DelayedOperation/cancel()``: forgets a pending manual operation.
    fileprivate func removeDelayed(_ operation: DelayedOperation) {
        manual.withLock { state in state.delayed.removeAll { $0 === operation } }
    }

    /// An identifier of the calling thread, unique among running threads.
    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}

/// A delayed operation scheduled with ``AsyncQueue/enqueueAfter(delay:timerID:_:)``; cancel it from the queue.
package final class DelayedOperation: Sendable {
    package let timerID: TimerID
    fileprivate let dueTime: TimeInterval
    fileprivate let sequence: Int
    private weak let queue: AsyncQueue?
    /// The operation until it runs or is canceled.
    private let op: Mutex<(@Sendable () -> Void)?>

    fileprivate init(queue: AsyncQueue, timerID: TimerID, dueTime: TimeInterval, sequence: Int, op: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.timerID = timerID
        self.dueTime = dueTime
        self.sequence = sequence
        self.op = Mutex(op)
    }

    /// Prevents the operation from running; does nothing when it already ran or was canceled.
    package func cancel() {
        op.withLock { $0 = nil }
        queue?.removeDelayed(self)
    }

    fileprivate func runIfPending() {
        let pending = op.withLock { current in
            defer { current = nil }
            return current
        }
        pending?()
    }
}
