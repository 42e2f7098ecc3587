import CairnCoreTestSupport
import CairnLocalStore
import CairnModel
import Dispatch
import Synchronization
import Testing

@testable import CairnCore

/// Records the confinement violations a queue reports instead of stopping the test process.
private final class Violations: Sendable {
    private let messages = Mutex<[String]>([])

    var list: [String] { messages.withLock { $0 } }

    /// What each violation names: the message up to " ran outside of its AsyncQueue".
    var names: [String] {
        list.map { message in message.firstRange(of: " ran outside").map { String(message[..<$0.lowerBound]) } ?? message }
    }

    func queue() -> AsyncQueue {
        AsyncQueue.manual { message in self.messages.withLock { $0.append(message) } }
    }
}

/// Runs `body` on a thread of its own and waits for it.
private func onOtherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        body()
        done.signal()
    }
    done.wait()
}

private func rooms() throws -> TargetData {
    TargetData(targetID: 2, query: CairnModel.Query(path: try ResourcePath(parsing: "rooms")))
}

/// The core's objects are confined to their AsyncQueue, and the confinement is checked: a core entry point, a
/// queue-bound value or a core timer used off the queue is reported to the queue's violation handler (which
/// stops the program unless a test records instead).
@Suite("Thread confinement")
struct ConfinementTests {
    @Test("a manual queue is current only on the thread that drains it, not on another thread meanwhile")
    func manualQueueOwner() {
        let queue = AsyncQueue.manual()
        let seen = Mutex<[Bool]>([])
        queue.enqueue {
            seen.withLock { $0.append(queue.isCurrentQueue) }
            onOtherThread { seen.withLock { $0.append(queue.isCurrentQueue) } }
        }
        queue.drain()
        #expect(seen.withLock { $0 } == [true, false])
        #expect(!queue.isCurrentQueue)
    }

    @Test("a production queue is current inside its operations and delayed operations only")
    func productionQueueOwner() {
        let queue = AsyncQueue(label: "cairn.test.owner")
        let seen = Mutex<[Bool]>([])
        let done = DispatchSemaphore(value: 0)
        queue.enqueue {
            seen.withLock { $0.append(queue.isCurrentQueue) }
            onOtherThread { seen.withLock { $0.append(queue.isCurrentQueue) } }
        }
        queue.enqueueAfter(delay: 0.01, timerID: .garbageCollection) {
            seen.withLock { $0.append(queue.isCurrentQueue) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == [true, false, true])
        #expect(!queue.isCurrentQueue)
    }

    @Test("a queue-bound value reports every read and change off its queue, and none on it")
    func queueBoundChecksAccess() {
        let violations = Violations()
        let queue = violations.queue()
        let bound = QueueBound(handingOver: [1], to: queue)
        #expect(violations.list.isEmpty, "handing a value over is allowed from any thread")
        _ = bound.value
        bound.value.append(2)
        #expect(violations.list == [
            "Reading a queue-bound value ran outside of its AsyncQueue (thread confinement violated).",
            "Changing a queue-bound value ran outside of its AsyncQueue (thread confinement violated).",
        ])
        queue.sync { bound.value.append(3) }
        #expect(queue.sync { bound.value } == [1, 2, 3])
        #expect(violations.list.count == 2)
        _ = QueueBound(NotSendable(), on: queue)
        #expect(violations.list.last?.hasPrefix("Binding a value to the queue ran outside") == true)
    }

    @Test("a core timer scheduled off the queue is reported; scheduled on it, it is not")
    func timersAreBound() {
        let violations = Violations()
        let queue = violations.queue()
        queue.enqueueAfterFromQueue(delay: 1, timerID: .listenStreamIdle) {}
        #expect(violations.list.count == 1)
        queue.sync { queue.enqueueAfterFromQueue(delay: 1, timerID: .writeStreamIdle) {} }
        queue.runAllDelayed()
        #expect(violations.list.count == 1)
    }

    @Test("RemoteStore entry points and stream callbacks called off the queue are reported by name")
    func remoteStoreEntryPoints() throws {
        let violations = Violations()
        let queue = violations.queue()
        let remoteStore = RemoteStore(localStore: LocalStore.inMemory(), datastore: SilentDatastore(), queue: queue)
        remoteStore.start()
        remoteStore.listen(try rooms())
        remoteStore.watchStreamWasInterrupted(error: nil)
        remoteStore.writeStreamDidOpen()
        let reported = violations.names
        #expect(reported.first == "RemoteStore.start()")
        for name in ["RemoteStore.listen(_:)", "RemoteStore.watchStreamWasInterrupted(error:)", "RemoteStore.writeStreamDidOpen()"] {
            #expect(reported.contains(name))
        }
        let count = violations.list.count
        let target = try rooms()
        queue.sync {
            remoteStore.stopListening(targetID: target.targetID)
            remoteStore.disableNetwork()
        }
        #expect(violations.list.count == count)
    }

    @Test("SyncEngine entry points called off the queue are reported by name")
    func syncEngineEntryPoints() throws {
        let violations = Violations()
        let queue = violations.queue()
        let localStore = LocalStore.inMemory()
        let remoteStore = RemoteStore(localStore: localStore, datastore: SilentDatastore(), queue: queue)
        let syncEngine = SyncEngine(localStore: localStore, remoteStore: remoteStore, user: .unauthenticated)
        remoteStore.syncer = syncEngine
        let query = CairnModel.Query(path: try ResourcePath(parsing: "rooms"))
        _ = try syncEngine.listen(query, shouldListenToRemote: false)
        syncEngine.handleOnlineStateChange(.offline)
        syncEngine.writeMutations([.delete(try DocumentKey(parsing: "rooms/a"))]) { _ in }
        let reported = violations.names
        #expect(reported.first == "SyncEngine.listen(_:shouldListenToRemote:)")
        #expect(reported.contains("SyncEngine.handleOnlineStateChange(_:)"))
        #expect(reported.contains("SyncEngine.writeMutations(_:completion:)"))
    }

    @Test("by default a violation stops the program: a RemoteStore called off its production queue")
    func defaultHandlerStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = AsyncQueue(label: "cairn.test.violation")
            let remoteStore = RemoteStore(localStore: LocalStore.inMemory(), datastore: SilentDatastore(), queue: queue)
            remoteStore.disableNetwork()
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(standardError.contains(
            "RemoteStore.disableNetwork() ran outside of its AsyncQueue (thread confinement violated)."))
    }

    @Test("by default nothing stops a program whose core objects stay on their production queue")
    func defaultHandlerOnQueue() async {
        await #expect(processExitsWith: .success) {
            let queue = AsyncQueue(label: "cairn.test.violation")
            let remoteStore = QueueBound(
                handingOver: RemoteStore(localStore: LocalStore.inMemory(), datastore: SilentDatastore(), queue: queue),
                to: queue)
            _ = try? queue.enqueueAndWait { remoteStore.value.disableNetwork() }
        }
    }

    @Test("a client's core objects are reachable on its queue only")
    func clientCoreIsBound() throws {
        let violations = Violations()
        let queue = violations.queue()
        let client = try FirestoreClient(
            datastore: UnreachableDatastore(databaseID: DatabaseID(projectID: "confined"), queue: queue),
            persistence: .memory, queue: queue)
        _ = client.localStore
        #expect(violations.list == ["Reading a queue-bound value ran outside of its AsyncQueue (thread confinement violated)."])
        #expect(queue.sync { client.syncEngine.currentUser } == .unauthenticated)
        #expect(violations.list.count == 1)
    }

    @Test("a client used through its methods from the test thread reports no violation: listen, write, timers, terminate")
    func clientRunIsClean() throws {
        let violations = Violations()
        let queue = violations.queue()
        let client = try FirestoreClient(
            datastore: UnreachableDatastore(databaseID: DatabaseID(projectID: "confined"), queue: queue),
            persistence: .memoryLRU(cacheSizeBytes: 1 << 20), queue: queue)
        let snapshots = Mutex(0)
        let handle = client.listen(query: CairnModel.Query(path: try ResourcePath(parsing: "rooms")), options: ListenOptions()) {
            result in if case .success = result { snapshots.withLock { $0 += 1 } }
        }
        client.write(mutations: [.set(try DocumentKey(parsing: "rooms/a"), value: ObjectValue(["n": .integer(1)]))]) { _ in }
        client.transaction(maxAttempts: 2, updateFunction: { (attempt: TransactionAttempt, done: @escaping (Result<Int, FirestoreErrorCode>) -> Void) in
            attempt.lookup([]) { _ in done(.success(1)) }
        }, completion: { _ in })
        queue.runAllDelayed(limit: 50)
        handle.remove()
        client.terminate { _ in }
        queue.drain()
        #expect(snapshots.withLock { $0 } >= 1)
        #expect(violations.list.isEmpty)
    }
}

/// A class that is not `Sendable`, for binding.
private final class NotSendable {}
