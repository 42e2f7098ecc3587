import Foundation

/// Time for the persistent connection: the current time, and timers that run a block on the connection's queue
/// (reconnect delays, the connect timeout, the keepalive). ``SystemConnectionClock`` uses the wall clock and
/// `DispatchQueue.asyncAfter`; tests drive a manual clock.
///
/// ```swift
/// let timer = clock.schedule(after: 45, on: queue) { sendKeepalive() }
/// timer.cancel()
/// ```
protocol ConnectionClock: Sendable {
    func now() -> Date
    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) -> any ConnectionTimer
}

/// A scheduled block; cancelling it before it runs keeps it from running.
protocol ConnectionTimer: Sendable {
    func cancel()
}

struct SystemConnectionClock: ConnectionClock {
    func now() -> Date { Date() }

    func schedule(after delay: TimeInterval, on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) -> any ConnectionTimer {
        let item = DispatchWorkItem(block: body)
        queue.asyncAfter(deadline: .now() + max(0, delay), execute: item)
        return DispatchTimer(item: item)
    }

    private struct DispatchTimer: ConnectionTimer, @unchecked Sendable {
        // DispatchWorkItem is thread-safe; it is not marked Sendable on Linux.
        let item: DispatchWorkItem
        func cancel() { item.cancel() }
    }
}
