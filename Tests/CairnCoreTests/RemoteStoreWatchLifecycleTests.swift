import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
import Testing

@testable import CairnCore

/// The watch stream's life cycle while the backend keeps failing and listeners come and go: the stream runs
/// only while a target is wanted, a new listen after every listener left sends its target when the stream
/// (re)opens, and the listener sees the cache (`isFromCache`) as soon as the client is known to be offline —
/// after a failed attempt, or when an attempt has not connected within the 10 s online-state timeout.
@Suite("RemoteStore: watch stream life cycle under failures")
struct RemoteStoreWatchLifecycleTests {
    /// A sync engine on the scripted network, with helpers to add and remove listeners.
    private final class Fixture {
        let datastore = ScriptedWatchDatastore()
        let h: SyncEngineHarness
        var stream: ScriptedWatchDatastore.WatchStream { datastore.watch }

        init() { h = SyncEngineHarness(datastore: datastore) }

        /// What one listener saw.
        final class Listener {
            var targetID: Int32 = 0
            var snapshots: [ViewSnapshot] = []
        }

        private var listeners: [ObjectIdentifier: QueryListener] = [:]

        func listen(_ path: String) throws -> Listener {
            let query = CairnModel.Query(path: try ResourcePath(parsing: path))
            let entry = Listener()
            let listener = QueryListener(query: query, options: .includingMetadataChanges(true)) { [entry] result in
                if case .success(let snapshot) = result { entry.snapshots.append(snapshot) }
            }
            var failure: (any Error)?
            h.run { [self] in
                do { entry.targetID = try h.eventManager.addQueryListener(listener) } catch { failure = error }
            }
            if let failure { throw failure }
            listeners[ObjectIdentifier(entry)] = listener
            return entry
        }

        func unlisten(_ entry: Listener) throws {
            let listener = try #require(listeners[ObjectIdentifier(entry)])
            var failure: (any Error)?
            h.run { [self] in
                do { try h.eventManager.removeQueryListener(listener) } catch { failure = error }
            }
            if let failure { throw failure }
        }

        func fail() { h.run { [self] in stream.fail() } }
        func open() { h.run { [self] in stream.open() } }
        var onlineState: OnlineState { h.remoteStore.onlineState }
        /// Runs the pending watch backoff timer, if any; true when one ran.
        @discardableResult
        func runBackoff() -> Bool { h.queue.runDelayed(until: .listenStreamConnectionBackoff) }
    }

    @Test("listen, fail repeatedly, unlisten all, fail again, listen again: the stream restarts with the new target and the listener sees the cache once offline")
    func relistenAfterRepeatedFailures() throws {
        let f = Fixture()
        let rooms = try f.listen("rooms")
        #expect(f.stream.starts == 1 && f.onlineState == .unknown)
        #expect(rooms.snapshots.isEmpty, "an empty cache is not shown while the server may still answer")
        f.fail()
        #expect(f.onlineState == .offline)
        #expect(rooms.snapshots.count == 1 && rooms.snapshots.last?.isFromCache == true)
        #expect(f.runBackoff() && f.stream.starts == 2)
        f.fail()
        #expect(f.runBackoff() && f.stream.starts == 3)
        // Every listener leaves while the third attempt connects; then that attempt fails too.
        try f.unlisten(rooms)
        #expect(f.onlineState == .unknown)
        f.fail()
        #expect(f.onlineState == .unknown)
        #expect(!f.h.queue.containsDelayedOperation(.listenStreamConnectionBackoff), "no target: no reconnection")
        #expect(f.stream.starts == 3)

        let halls = try f.listen("halls")
        #expect(halls.snapshots.isEmpty)
        f.runBackoff()
        #expect(f.stream.starts == 4 && f.stream.isStarted)
        // The attempt neither connects nor fails: after 10 s the client is offline and the listener sees the cache.
        #expect(f.h.queue.runDelayed(until: .onlineStateTimeout))
        #expect(f.onlineState == .offline)
        #expect(halls.snapshots.count == 1 && halls.snapshots.last?.isFromCache == true)
        f.open()
        #expect(f.stream.requests == [halls.targetID])
        #expect(f.stream.watched == [halls.targetID])
    }

    @Test("with every listener gone, a reconnection waiting for its backoff is dropped and the stream stays down")
    func noRestartWithoutTarget() throws {
        let f = Fixture()
        let rooms = try f.listen("rooms")
        f.fail()
        #expect(f.h.queue.containsDelayedOperation(.listenStreamConnectionBackoff))
        try f.unlisten(rooms)
        #expect(!f.h.queue.containsDelayedOperation(.listenStreamConnectionBackoff))
        f.h.queue.runAllDelayed()
        #expect(f.stream.starts == 1 && !f.stream.isStarted)
        #expect(f.onlineState == .unknown)
    }

    @Test("an attempt that connects after every listener left goes idle and closes after 60 s")
    func emptyStreamGoesIdle() throws {
        let f = Fixture()
        let rooms = try f.listen("rooms")
        try f.unlisten(rooms)
        #expect(f.stream.isStarted && !f.stream.isOpen)
        f.open()
        #expect(f.stream.requests.isEmpty)
        #expect(f.h.queue.runDelayed(until: .listenStreamIdle))
        #expect(!f.stream.isStarted)
        f.h.queue.runAllDelayed()
        #expect(f.stream.starts == 1, "nothing wanted: no restart")
    }

    @Test("listen and unlisten during the backoff: only the targets still wanted are sent when the stream reopens")
    func listenUnlistenDuringBackoff() throws {
        let f = Fixture()
        let rooms = try f.listen("rooms")
        f.fail()
        f.runBackoff()
        f.fail()
        #expect(f.h.queue.containsDelayedOperation(.listenStreamConnectionBackoff))
        // During the backoff: a second listen, the first one leaves, a third comes, the second leaves.
        let halls = try f.listen("halls")
        try f.unlisten(rooms)
        let yards = try f.listen("yards")
        try f.unlisten(halls)
        #expect(f.stream.starts == 2, "nothing starts before the backoff ran out")
        #expect(f.onlineState == .offline)
        #expect(yards.snapshots.count == 1 && yards.snapshots.last?.isFromCache == true, "offline: the cache at once")
        #expect(f.runBackoff() && f.stream.starts == 3)
        f.open()
        #expect(f.stream.requests == [yards.targetID])
    }

    @Test("every listener leaves during the backoff, then one listens again: it waits out the backoff, and goes offline after 10 s")
    func relistenDuringBackoff() throws {
        let f = Fixture()
        let rooms = try f.listen("rooms")
        f.fail()
        f.runBackoff()
        f.fail()
        try f.unlisten(rooms)
        #expect(f.onlineState == .unknown)
        let halls = try f.listen("halls")
        #expect(f.runBackoff(), "the owed backoff delay is waited before the next attempt")
        #expect(f.stream.starts == 3)
        #expect(f.h.queue.runDelayed(until: .onlineStateTimeout), "the new listen has its 10 s clock")
        #expect(halls.snapshots.count == 1 && halls.snapshots.last?.isFromCache == true)
        f.open()
        #expect(f.stream.requests == [halls.targetID])
    }

    @Test("every listener leaves while an attempt connects and one listens again before it ends: offline after 10 s")
    func relistenWhileConnecting() throws {
        let f = Fixture()
        let rooms = try f.listen("rooms")
        try f.unlisten(rooms)
        #expect(f.stream.isStarted && f.onlineState == .unknown)
        let halls = try f.listen("halls")
        #expect(f.stream.starts == 1, "the attempt under way serves the new listen")
        #expect(f.h.queue.runDelayed(until: .onlineStateTimeout))
        #expect(f.onlineState == .offline)
        #expect(halls.snapshots.count == 1 && halls.snapshots.last?.isFromCache == true)
        f.open()
        #expect(f.stream.requests == [halls.targetID])
    }
}
