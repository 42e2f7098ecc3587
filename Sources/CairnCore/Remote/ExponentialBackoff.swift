import Foundation

/// Delays retries of a failing operation exponentially, with jitter (Firebase's `ExponentialBackoff`).
///
/// The first attempt after a ``reset()`` runs at once; each later one waits the current base delay ±50 %, and
/// the base grows by ``backoffFactor`` from ``initialDelay`` up to ``maxDelay``. Time already spent since the
/// previous attempt ran counts towards the wait. Delayed attempts are ``AsyncQueue`` timers with the given
/// ``TimerID``, so tests run them with `queue.runDelayed(until:)`. Confined to its queue, like the RemoteStore
/// that owns it: ``backoffAndRun(_:)`` checks it is called there.
///
/// ```swift
/// let backoff = ExponentialBackoff(queue: queue, timerID: .listenStreamConnectionBackoff)
/// backoff.backoffAndRun { stream.start() }   // now (first attempt)
/// backoff.backoffAndRun { stream.start() }   // after 0.5…1.5 s
/// backoff.reset()                            // the server answered: next attempt is immediate again
/// ```
package final class ExponentialBackoff {
    package static let defaultInitialDelay: TimeInterval = 1
    package static let defaultBackoffFactor = 1.5
    package static let defaultMaxDelay: TimeInterval = 60

    private let queue: AsyncQueue
    package let timerID: TimerID
    package let initialDelay: TimeInterval
    package let backoffFactor: Double
    package let maxDelay: TimeInterval
    /// A number in -0.5...0.5 for each attempt: the jitter as a fraction of the base delay.
    private let jitter: () -> Double
    package private(set) var currentBase: TimeInterval = 0
    private var lastAttemptTime: TimeInterval
    private var pending: DelayedOperation?

    /// - Parameter jitter: the random fraction (in -0.5...0.5) of the base delay added to each wait; tests pass a
    ///   fixed or seeded one.
    package init(
        queue: AsyncQueue, timerID: TimerID, initialDelay: TimeInterval = ExponentialBackoff.defaultInitialDelay,
        backoffFactor: Double = ExponentialBackoff.defaultBackoffFactor,
        maxDelay: TimeInterval = ExponentialBackoff.defaultMaxDelay,
        jitter: @escaping () -> Double = { Double.random(in: -0.5...0.5) }
    ) {
        self.queue = queue
        self.timerID = timerID
        self.initialDelay = initialDelay
        self.backoffFactor = backoffFactor
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.lastAttemptTime = queue.now
    }

    /// True while a delayed attempt waits to run.
    package var isWaiting: Bool { pending != nil }

    /// Runs `operation` once the backoff delay has passed: at once (synchronously, on the queue) when no wait is
    /// due, otherwise as a delayed operation. Cancels an attempt still waiting.
    package func backoffAndRun(_ operation: @escaping () -> Void) {
        queue.verifyIsCurrentQueue("ExponentialBackoff.backoffAndRun")
        cancel()
        let desired = currentBase + currentBase * min(0.5, max(-0.5, jitter()))
        let remaining = max(0, desired - (queue.now - lastAttemptTime))
        currentBase = min(maxDelay, max(initialDelay, currentBase * backoffFactor))
        if remaining == 0 {
            lastAttemptTime = queue.now
            operation()
        } else {
            pending = queue.enqueueAfterFromQueue(delay: remaining, timerID: timerID) { [self] in
                pending = nil
                lastAttemptTime = queue.now
                operation()
            }
        }
    }

    /// The next attempt runs at once (after a success, or an intentional stop).
    package func reset() { currentBase = 0 }

    /// The next attempt waits the maximum delay (the server said it is overloaded).
    package func resetToMax() { currentBase = maxDelay }

    /// Cancels the attempt waiting to run, if any.
    package func cancel() {
        pending?.cancel()
        pending = nil
    }
}
