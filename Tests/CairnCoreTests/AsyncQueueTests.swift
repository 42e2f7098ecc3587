import CairnCoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import CairnCore

/// Records the order in which operations ran.
private final class Trace: @unchecked Sendable {
    var events: [String] = []
}

@Suite("AsyncQueue")
struct AsyncQueueTests {
    @Test("manual mode runs nothing until drained, then everything in order, including work enqueued meanwhile")
    func manualDrainRunsInOrder() {
        let queue = AsyncQueue.manual()
        let trace = Trace()
        queue.enqueue { trace.events.append("a") }
        queue.enqueue {
            trace.events.append("b")
            queue.enqueue { trace.events.append("d") }
        }
        queue.enqueue { trace.events.append("c") }
        #expect(trace.events.isEmpty)
        queue.drain()
        #expect(trace.events == ["a", "b", "c", "d"])
    }

    @Test("delayed operations run only by timer id, in due order, up to and including the one asked for")
    func runDelayedUntilTimer() {
        let queue = AsyncQueue.manual()
        let trace = Trace()
        queue.enqueueAfter(delay: 10, timerID: .onlineStateTimeout) { trace.events.append("timeout") }
        queue.enqueueAfter(delay: 1, timerID: .listenStreamConnectionBackoff) {
            trace.events.append("backoff")
            queue.enqueue { trace.events.append("after backoff") }
        }
        queue.enqueueAfter(delay: 60, timerID: .writeStreamIdle) { trace.events.append("idle") }
        queue.drain()
        #expect(trace.events.isEmpty)
        #expect(queue.runDelayed(until: .onlineStateTimeout))
        #expect(trace.events == ["backoff", "after backoff", "timeout"])
        #expect(queue.containsDelayedOperation(.writeStreamIdle))
        #expect(!queue.runDelayed(until: .listenStreamIdle))
        #expect(queue.now == 10)
        queue.runAllDelayed()
        #expect(trace.events.last == "idle")
        #expect(!queue.containsDelayedOperation(.writeStreamIdle))
    }

    @Test("a canceled delayed operation never runs")
    func cancel() {
        let queue = AsyncQueue.manual()
        let trace = Trace()
        let operation = queue.enqueueAfter(delay: 5, timerID: .listenStreamIdle) { trace.events.append("ran") }
        operation.cancel()
        #expect(!queue.containsDelayedOperation(.listenStreamIdle))
        queue.runAllDelayed()
        #expect(trace.events.isEmpty)
    }

    @Test("enqueueAndWait returns the result after earlier work; operations know they are on the queue")
    func enqueueAndWait() throws {
        for queue in [AsyncQueue.manual(), AsyncQueue(label: "cairn.test")] {
            let trace = Trace()
            queue.enqueue { trace.events.append("first") }
            let onQueue = try queue.enqueueAndWait { () -> Bool in
                queue.verifyIsCurrentQueue()
                trace.events.append("second")
                return queue.isCurrentQueue
            }
            #expect(onQueue)
            #expect(!queue.isCurrentQueue)
            #expect(trace.events == ["first", "second"])
            #expect(throws: FirestoreErrorCode.self) {
                try queue.enqueueAndWait { throw FirestoreErrorCode(.internal, "boom") }
            }
        }
    }

    @Test("production mode fires delayed operations after their delay")
    func productionDelay() throws {
        let queue = AsyncQueue(label: "cairn.test.delay")
        let fired = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        queue.enqueueAfter(delay: 0.01, timerID: .garbageCollection) {
            fired.withLock { $0 = true }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(fired.withLock { $0 })
    }

    @Test("an operation enqueued to run at once is waiting until it starts, in manual and production mode")
    func waitingOperations() {
        let manual = AsyncQueue.manual()
        #expect(!manual.hasWaitingOperations)
        manual.enqueueUncounted {}
        #expect(!manual.hasWaitingOperations, "an uncounted operation does not count")
        manual.enqueue {}
        manual.enqueueUncounted {}
        #expect(manual.hasWaitingOperations)
        let seenWhileDraining = Mutex<[Bool]>([])
        manual.enqueue { seenWhileDraining.withLock { $0.append(manual.hasWaitingOperations) } }
        manual.enqueueUncounted { seenWhileDraining.withLock { $0.append(manual.hasWaitingOperations) } }
        manual.drain()
        #expect(seenWhileDraining.withLock { $0 } == [false, false], "only uncounted operations were left behind each")
        #expect(!manual.hasWaitingOperations)

        let queue = AsyncQueue(label: "cairn.test.waiting")
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let seenByTheRunningOperation = Mutex<Bool?>(nil)
        queue.enqueue {
            started.signal()
            _ = release.wait(timeout: .now() + 60)
            seenByTheRunningOperation.withLock { $0 = queue.hasWaitingOperations }
        }
        #expect(started.wait(timeout: .now() + 60) == .success)
        #expect(!queue.hasWaitingOperations, "the running operation is not waiting")
        queue.enqueueUncounted {}
        #expect(!queue.hasWaitingOperations, "an uncounted operation does not count")
        queue.enqueue { done.signal() }
        #expect(queue.hasWaitingOperations)
        release.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(seenByTheRunningOperation.withLock { $0 } == true)
        #expect(!queue.hasWaitingOperations, "the second operation has started")
    }

    @Test("every timer id has the spec tests' name")
    func timerNames() {
        #expect(TimerID(rawValue: "listen_stream_connection_backoff") == .listenStreamConnectionBackoff)
        #expect(TimerID(rawValue: "online_state_timeout") == .onlineStateTimeout)
        #expect(Set(TimerID.allCases.map(\.rawValue)).count == TimerID.allCases.count)
    }
}
