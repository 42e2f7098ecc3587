import Dispatch
import Foundation
import Synchronization

/// The core's one serial worker (Firebase's `AsyncQueue`): every core object (SyncEngine, RemoteStore, LocalStore,
/// EventManager) is confined to it, and every timer goes through it.
///
/// Two modes:
/// - **production** (``init(label:)``): a serial `DispatchQueue`; delayed operations fire after their delay.
/// - **manual** (``manual()``): for tests. Nothing runs until the test calls ``drain()``; delayed operations run
///   only through ``runDelayed(until:)`` or ``runAllDelayed()``, in the order of their due time, on a virtual
///   clock. Runs are therefore deterministic.
///
/// ```swift
/// let queue = AsyncQueue.manual()
/// queue.enqueue { remoteStore.enableNetwork() }
/// queue.drain()                                    // runs it, and anything it enqueued
/// queue.runDelayed(until: .onlineStateTimeout)     // fires the 10 s online-state timer now
/// ```
package final class AsyncQueue: @unchecked Sendable {
    private let dispatchQueue: DispatchQueue?
    private let key = DispatchSpecificKey<ObjectIdentifier>()
    /// Manual mode: immediate operations, delayed operations and the virtual clock, behind one lock so that a test
    /// may enqueue from any thread. Unused in production.
    private let manual = Mutex(ManualState())
    /// Manual mode: true while ``drain()`` or a delayed operation is running an operation.
    private let executing = Atomic<Bool>(false)

    package struct ManualState {
        package var operations: [@Sendable () -> Void] = []
        package var delayed: [DelayedOperation] = []
        package var now: TimeInterval = 0
    }

    /// A production queue: a serial `DispatchQueue` with the given label.
    package init(label: String) {
        let queue = DispatchQueue(label: label)
        dispatchQueue = queue
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    private init() {
        dispatchQueue = nil
    }

    /// A deterministic queue for tests: operations run only when the test drains the queue.
    package static func manual() -> AsyncQueue { AsyncQueue() }

    /// True for a queue made by ``manual()``.
    package var isManual: Bool { dispatchQueue == nil }

    /// The queue's clock in seconds, for measuring delays: monotonic uptime in production, the virtual clock in
    /// manual mode (it advances to each delayed operation's due time as the operation runs).
    package var now: TimeInterval {
        if isManual { return manual.withLock { $0.now } }
        return TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1e9
    }

    /// Runs `op` on the queue after the operations already enqueued.
    package func enqueue(_ op: @escaping @Sendable () -> Void) {
        if let dispatchQueue {
            dispatchQueue.async(execute: op)
        } else {
            manual.withLock { $0.operations.append(op) }
        }
    }

    /// Runs `op` on the queue after `delay` seconds, unless canceled first. Only one operation per ``TimerID`` is
    /// expected to be pending at a time (as in Firebase); the returned handle cancels it.
    @discardableResult
    package func enqueueAfter(delay: TimeInterval, timerID: TimerID, _ op: @escaping @Sendable () -> Void) -> DelayedOperation {
        if let dispatchQueue {
            let operation = DelayedOperation(queue: self, timerID: timerID, dueTime: 0, sequence: 0, op: op)
            dispatchQueue.asyncAfter(deadline: .now() + max(0, delay)) { operation.runIfPending() }
            return operation
        }
        return manual.withLock { state in
            let operation = DelayedOperation(
                queue: self, timerID: timerID, dueTime: state.now + max(0, delay), sequence: state.delayed.count, op: op)
            state.delayed.append(operation)
            return operation
        }
    }

    /// Stops the program when called off the queue: core objects must only be touched from their worker.
    package func verifyIsCurrentQueue() {
        if let dispatchQueue {
            dispatchPrecondition(condition: .onQueue(dispatchQueue))
        } else {
            precondition(executing.load(ordering: .relaxed), "A core operation ran outside of the AsyncQueue.")
        }
    }

    /// True when the caller runs on the queue (in manual mode: inside ``drain()`` or a delayed operation).
    package var isCurrentQueue: Bool {
        if dispatchQueue != nil { return DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self) }
        return executing.load(ordering: .relaxed)
    }

    /// Runs `op` on the queue and waits for its result. Must not be called from the queue. In manual mode it
    /// enqueues `op` and drains the queue, so everything enqueued before it runs first.
    package func enqueueAndWait<T>(_ op: @escaping () throws -> T) throws -> T {
        precondition(!isCurrentQueue, "enqueueAndWait called from its own queue would deadlock.")
        let box = ResultBox<T>()
        nonisolated(unsafe) let op = op
        let run: @Sendable () -> Void = { box.result = Result { try op() } }
        if let dispatchQueue {
            dispatchQueue.sync(execute: run)
        } else {
            enqueue(run)
            drain()
        }
        return try box.result!.get()
    }

    // MARK: Manual mode

    /// Runs every enqueued operation, including those enqueued while draining, until none is left.
    package func drain() {
        precondition(isManual, "drain() is for manual (test) queues.")
        while let op = manual.withLock({ state in state.operations.isEmpty ? nil : state.operations.removeFirst() }) {
            runExecuting(op)
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
            runExecuting { next.runIfPending() }
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
            runExecuting { next.runIfPending() }
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

    private func runExecuting(_ op: () -> Void) {
        let wasExecuting = executing.exchange(true, ordering: .relaxed)
        op()
        executing.store(wasExecuting, ordering: .relaxed)
    }

    /// Called by ``DelayedOperation/cancel()``: forgets a pending manual operation.
    fileprivate func removeDelayed(_ operation: DelayedOperation) {
        manual.withLock { state in state.delayed.removeAll { $0 === operation } }
    }
}

/// A delayed operation scheduled with ``AsyncQueue/enqueueAfter(delay:timerID:_:)``; cancel it from the queue.
package final class DelayedOperation: @unchecked Sendable {
    package let timerID: TimerID
    fileprivate let dueTime: TimeInterval
    fileprivate let sequence: Int
    private weak var queue: AsyncQueue?
    /// Touched only on the queue (manual mode: under the queue's execution).
    private var op: (@Sendable () -> Void)?

    fileprivate init(queue: AsyncQueue, timerID: TimerID, dueTime: TimeInterval, sequence: Int, op: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.timerID = timerID
        self.dueTime = dueTime
        self.sequence = sequence
        self.op = op
    }

    /// Prevents the operation from running; does nothing when it already ran or was canceled.
    package func cancel() {
        op = nil
        queue?.removeDelayed(self)
    }

    fileprivate func runIfPending() {
        guard let op else { return }
        self.op = nil
        op()
    }
}

/// Carries a result out of a `@Sendable` closure run synchronously by ``AsyncQueue/enqueueAndWait(_:)``.
private final class ResultBox<T>: @unchecked Sendable {
    package var result: Result<T, any Error>?
}
