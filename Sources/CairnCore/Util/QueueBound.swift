/// A value confined to an ``AsyncQueue`` that may be carried across threads but only used on its queue (the
/// idea of swift-nio's `NIOLoopBound`): the box is `Sendable` whatever `Value` is, and every access checks that
/// the caller runs on the queue, reporting a confinement violation (``AsyncQueue/verifyIsCurrentQueue(_:)``)
/// otherwise.
///
/// Two ways in:
/// - ``init(_:on:)`` binds a value made on the queue (it may share state with the queue's other objects), so it
///   must itself be called on the queue.
/// - ``init(handingOver:to:)`` takes a value no one else holds (`sending`, checked by the compiler), so it may be
///   called from any thread: the value moves to the queue.
///
/// ```swift
/// let bound = QueueBound(handingOver: State(), to: queue)   // on any thread
/// queue.enqueue { bound.value.count += 1 }                   // on the queue: fine
/// bound.value.count                                          // off the queue: a confinement violation
/// ```
package final class QueueBound<Value>: Sendable {
    package let queue: AsyncQueue
    /// Touched only on `queue`: every access below checks it first, which is what makes the box `Sendable`.
    nonisolated(unsafe) private var storage: Value

    /// Binds `value`, made on `queue`, to it. Must be called on the queue.
    package init(_ value: Value, on queue: AsyncQueue) {
        queue.verifyIsCurrentQueue("Binding a value to the queue")
        self.queue = queue
        storage = value
    }

    /// Moves `value`, which no one else holds, to `queue`; callable from any thread.
    package init(handingOver value: sending Value, to queue: AsyncQueue) {
        self.queue = queue
        storage = value
    }

    /// The value; reading or changing it off the queue is a confinement violation.
    package var value: Value {
        _read {
            queue.verifyIsCurrentQueue("Reading a queue-bound value")
            yield storage
        }
        _modify {
            queue.verifyIsCurrentQueue("Changing a queue-bound value")
            yield &storage
        }
    }
}
