import Foundation

/// Decides the client's ``OnlineState`` from the watch stream's health (Firebase's `OnlineStateTracker`).
///
/// - A watch-stream start with no failures so far sets `unknown` and arms a 10 s timer that sets `offline` if the
///   stream has not answered by then.
/// - ``maxWatchStreamFailures`` (1) failed connection attempts in a row set `offline`.
/// - A failure while `online` drops back to `unknown` (the stream reconnects before we give up).
/// - ``updateState(_:)`` (a message arrived, or the network was disabled) sets the state and resets the heuristics.
///
/// The handler hears each change once, on the ``AsyncQueue``; the tracker is confined to that queue (its timer is
/// bound to it).
package final class OnlineStateTracker {
    package static let maxWatchStreamFailures = 1
    package static let onlineStateTimeout: TimeInterval = 10

    private let queue: AsyncQueue
    private let handler: (OnlineState) -> Void
    package private(set) var state: OnlineState = .unknown
    private var watchStreamFailures = 0
    private var timer: DelayedOperation?

    package init(queue: AsyncQueue, handler: @escaping (OnlineState) -> Void) {
        self.queue = queue
        self.handler = handler
    }

    /// The watch stream is (re)starting.
    package func handleWatchStreamStart() {
        guard watchStreamFailures == 0 else { return }
        setAndBroadcast(.unknown)
        clearTimer()
        timer = queue.enqueueAfterFromQueue(delay: Self.onlineStateTimeout, timerID: .onlineStateTimeout) { [self] in
            timer = nil
            // The backend did not answer within 10 s.
            setAndBroadcast(.offline)
        }
    }

    /// The watch stream failed (to connect, or while connected).
    package func handleWatchStreamFailure() {
        if state == .online {
            setAndBroadcast(.unknown)
            return
        }
        watchStreamFailures += 1
        if watchStreamFailures >= Self.maxWatchStreamFailures {
            clearTimer()
            setAndBroadcast(.offline)
        }
    }

    /// Sets the state explicitly: `online` when the stream delivered a message, `offline` when the network was
    /// disabled, `unknown` when there is nothing to connect for.
    package func updateState(_ newState: OnlineState) {
        clearTimer()
        watchStreamFailures = 0
        setAndBroadcast(newState)
    }

    private func setAndBroadcast(_ newState: OnlineState) {
        guard newState != state else { return }
        state = newState
        handler(newState)
    }

    private func clearTimer() {
        timer?.cancel()
        timer = nil
    }
}
