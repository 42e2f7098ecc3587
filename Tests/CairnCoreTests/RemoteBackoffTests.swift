import CairnCoreTestSupport
import Foundation
import Testing

@testable import CairnCore

/// Records when attempts ran on the queue's virtual clock.
private final class Attempts: @unchecked Sendable {
    var times: [TimeInterval] = []
}

@Suite("ExponentialBackoff")
struct RemoteBackoffTests {
    @Test("the first attempt runs at once; later ones wait 1 s × 1.5ⁿ capped at 60 s (no jitter)")
    func growthAndCap() {
        let queue = AsyncQueue.manual()
        let backoff = ExponentialBackoff(queue: queue, timerID: .writeStreamConnectionBackoff, jitter: { 0 })
        let attempts = Attempts()
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        #expect(attempts.times == [0])
        var expected: [TimeInterval] = [0]
        var delay = 1.0
        for _ in 0..<12 {
            queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
            #expect(backoff.isWaiting)
            #expect(queue.runDelayed(until: .writeStreamConnectionBackoff))
            expected.append(expected.last! + delay)
            delay = min(60, delay * 1.5)
        }
        #expect(attempts.times.count == expected.count)
        for (got, want) in zip(attempts.times, expected) { #expect(abs(got - want) < 1e-9) }
    }

    @Test("jitter stays within ±50 % of the base delay", arguments: [-0.5, -0.2, 0.3, 0.5, 7.0])
    func jitterBounds(_ fraction: Double) {
        let queue = AsyncQueue.manual()
        let backoff = ExponentialBackoff(queue: queue, timerID: .listenStreamConnectionBackoff, jitter: { fraction })
        let attempts = Attempts()
        queue.sync { backoff.backoffAndRun {} }
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        queue.runAllDelayed()
        #expect(attempts.times == [1 + min(0.5, fraction)])
    }

    @Test("time already passed since the previous attempt counts towards the wait")
    func elapsedTimeCounts() {
        let queue = AsyncQueue.manual()
        let backoff = ExponentialBackoff(queue: queue, timerID: .listenStreamConnectionBackoff, jitter: { 0 })
        let attempts = Attempts()
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        queue.enqueueAfter(delay: 0.4, timerID: .garbageCollection) {}
        queue.runDelayed(until: .garbageCollection)
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        #expect(attempts.times == [0])
        queue.runDelayed(until: .listenStreamConnectionBackoff)
        #expect(attempts.times == [0, 1])  // waited 0.6 s more, not 1 s
        queue.enqueueAfter(delay: 5, timerID: .garbageCollection) {}
        queue.runDelayed(until: .garbageCollection)
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        #expect(attempts.times == [0, 1, 6])  // 1.5 s were due and 5 s have passed: at once
    }

    @Test("reset makes the next attempt immediate; resetToMax makes it wait the maximum; cancel drops it")
    func resetAndCancel() {
        let queue = AsyncQueue.manual()
        let backoff = ExponentialBackoff(queue: queue, timerID: .listenStreamConnectionBackoff, jitter: { 0 })
        let attempts = Attempts()
        queue.sync { backoff.backoffAndRun {} }
        backoff.reset()
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        #expect(attempts.times == [0])
        backoff.resetToMax()
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        backoff.cancel()
        #expect(!backoff.isWaiting)
        queue.runAllDelayed()
        #expect(attempts.times == [0])
        queue.sync { backoff.backoffAndRun { attempts.times.append(queue.now) } }
        queue.runAllDelayed()
        #expect(attempts.times == [0, 60])
    }
}

@Suite("OnlineStateTracker")
struct RemoteOnlineStateTests {
    private final class States: @unchecked Sendable { var list: [OnlineState] = [] }

    @Test("a start without answer goes offline after the 10 s timeout")
    func timeout() {
        let queue = AsyncQueue.manual()
        let states = States()
        let tracker = OnlineStateTracker(queue: queue) { states.list.append($0) }
        queue.sync { tracker.handleWatchStreamStart() }
        #expect(states.list.isEmpty)  // already unknown: no change reported
        #expect(queue.runDelayed(until: .onlineStateTimeout))
        #expect(queue.now == OnlineStateTracker.onlineStateTimeout)
        #expect(states.list == [.offline])
    }

    @Test("one failed connection attempt is enough to go offline, and cancels the timeout")
    func failure() {
        let queue = AsyncQueue.manual()
        let states = States()
        let tracker = OnlineStateTracker(queue: queue) { states.list.append($0) }
        queue.sync { tracker.handleWatchStreamStart() }
        queue.sync { tracker.handleWatchStreamFailure() }
        #expect(states.list == [.offline])
        #expect(!queue.containsDelayedOperation(.onlineStateTimeout))
        // Restarting after a failure does not re-arm the timer nor go back to unknown.
        queue.sync { tracker.handleWatchStreamStart() }
        #expect(tracker.state == .offline && !queue.containsDelayedOperation(.onlineStateTimeout))
    }

    @Test("online then a failure drops to unknown; explicit states reset the heuristics")
    func onlineFailure() {
        let queue = AsyncQueue.manual()
        let states = States()
        let tracker = OnlineStateTracker(queue: queue) { states.list.append($0) }
        queue.sync { tracker.handleWatchStreamStart() }
        queue.sync { tracker.updateState(.online) }
        #expect(!queue.containsDelayedOperation(.onlineStateTimeout))
        queue.sync { tracker.handleWatchStreamFailure() }
        #expect(states.list == [.online, .unknown])
        queue.sync { tracker.handleWatchStreamStart() }
        #expect(queue.containsDelayedOperation(.onlineStateTimeout))  // a failure while online is not counted
        queue.sync { tracker.updateState(.offline) }
        queue.sync { tracker.updateState(.offline) }
        #expect(states.list == [.online, .unknown, .offline])
    }
}
