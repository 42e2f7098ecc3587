import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnCore

/// A sync engine over a persistent cache with group commit (Docs/LocalStore.md §10) on a simulated disk, wired
/// as `FirestoreClient` wires it: the cache's sync reports go to `handleLocalDurability` on the queue.
private final class GroupCommitHarness: @unchecked Sendable {
    let queue = AsyncQueue.manual()
    let localStore: LocalStore
    let datastore: AcknowledgingDatastore
    let remoteStore: RemoteStore
    let syncEngine: SyncEngine
    let eventManager: EventManager
    /// Each snapshot the listener got, with how many file syncs had ended when it arrived.
    var snapshots: [(snapshot: ViewSnapshot, syncsEnded: Int)] = []
    var writeResults: [FirestoreErrorCode?] = []
    private let syncsEnded: () -> Int

    init(fileSystem: any FileSystem, syncing: CacheSyncing, syncsEnded: @escaping () -> Int = { 0 }) throws {
        var configuration = LocalStore.defaultLogConfiguration
        configuration.fileSystem = fileSystem
        configuration.preallocationSize = 0
        localStore = try LocalStore.open(at: "/cache", configuration: configuration, syncing: syncing)
        self.syncsEnded = syncsEnded
        datastore = AcknowledgingDatastore(databaseID: DatabaseID(projectID: "group-commit"), queue: queue)
        remoteStore = RemoteStore(localStore: localStore, datastore: datastore, queue: queue)
        syncEngine = SyncEngine(localStore: localStore, remoteStore: remoteStore, user: .unauthenticated)
        eventManager = EventManager(source: syncEngine)
        syncEngine.callback = eventManager
        remoteStore.syncer = syncEngine
        localStore.onDurabilityChange { [weak self] result in
            self?.queue.enqueue { [weak self] in self?.syncEngine.handleLocalDurability(result) }
        }
        run { self.remoteStore.start() }
    }

    func run(_ body: @escaping () -> Void) {
        nonisolated(unsafe) let body = body
        queue.enqueue { body() }
        queue.drain()
    }

    func listen(_ query: CairnModel.Query) throws {
        let listener = QueryListener(query: query, options: .includingMetadataChanges(true)) { [unowned self] result in
            if case .success(let snapshot) = result { snapshots.append((snapshot, syncsEnded())) }
        }
        var failure: (any Error)?
        run { [self] in
            do { _ = try eventManager.addQueryListener(listener) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    func write(_ mutation: Mutation) {
        run { [self] in
            syncEngine.writeMutations([mutation]) { [unowned self] error in writeResults.append(error) }
        }
    }

    /// Drains the queue until `condition` holds (the cache's sync reports arrive from its own thread); 60 s at most.
    func drain(until condition: () -> Bool) async throws -> Bool {
        for _ in 0..<6000 {
            queue.drain()
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}

@Suite("SyncEngine: a local write never waits for the disk (group commit)")
struct SyncEngineGroupCommitTests {
    let rooms = CairnModel.Query(path: try! ResourcePath(parsing: "rooms"))
    let roomA = try! DocumentKey(parsing: "rooms/a")

    @Test("The snapshot of a local write arrives while the cache's sync is held; the write is sent only after the sync")
    func snapshotBeforeTheSyncAndSendAfterIt() async throws {
        let fs = SyncGateFileSystem(SimulatedFileSystem())
        let harness = try GroupCommitHarness(fileSystem: fs, syncing: .behindAppends, syncsEnded: { fs.syncsCompleted })
        try harness.listen(rooms)
        fs.hold()
        let syncsBefore = fs.syncsCompleted
        harness.write(.set(roomA, value: ObjectValue(["n": .integer(1)])))

        let shown = try #require(harness.snapshots.last { $0.snapshot.mutatedKeys.contains(roomA) })
        #expect(shown.syncsEnded == syncsBefore, "the snapshot came before any sync ended")
        #expect(fs.heldTooLong == 0, "nothing waited for the held sync")
        #expect(fs.awaitWaitingSync(), "the sync behind the write waits at the gate")
        harness.queue.drain()
        #expect(harness.datastore.writes.isEmpty, "not durable yet, so not sent")
        #expect(harness.writeResults.isEmpty)

        fs.release()
        #expect(try await harness.drain { harness.writeResults.count == 1 })
        #expect(harness.datastore.writes.count == 1, "sent once durable")
        #expect(harness.writeResults.first.map { $0 == nil } == true, "and acknowledged")
        harness.run { try? harness.localStore.close() }
    }

    @Test("A failed sync fails the write's completion with dataLoss; the write is never sent and later writes fail")
    func failedSyncFailsTheWrite() async throws {
        let fs = SimulatedFileSystem()
        let harness = try GroupCommitHarness(fileSystem: fs, syncing: .onRequest)
        try harness.listen(rooms)
        harness.write(.set(roomA, value: ObjectValue(["n": .integer(1)])))
        #expect(harness.snapshots.last?.snapshot.mutatedKeys.contains(roomA) == true, "shown at once")
        var waited: FirestoreErrorCode?? = nil
        harness.run { harness.syncEngine.registerPendingWritesCallback { waited = .some($0) } }

        fs.injectFault(.failSyncs(count: 1))
        harness.run { #expect(throws: LocalStoreError.self) { try harness.localStore.syncAppends() } }
        #expect(try await harness.drain { harness.writeResults.count == 1 })
        #expect(harness.writeResults.first??.code == .dataLoss)
        #expect(waited??.code == .dataLoss, "waitForPendingWrites hears it too")
        #expect(harness.datastore.writes.isEmpty, "never sent")
        var waitedAfter: FirestoreErrorCode?? = nil
        harness.run { harness.syncEngine.registerPendingWritesCallback { waitedAfter = .some($0) } }
        #expect(waitedAfter??.code == .dataLoss, "a waitForPendingWrites after the failure fails at once, never hangs")

        harness.write(.set(try DocumentKey(parsing: "rooms/b"), value: ObjectValue([:])))
        #expect(harness.writeResults.count == 2)
        #expect(harness.writeResults.last??.code != nil, "the poisoned cache takes no more writes")
        harness.run { try? harness.localStore.close() }
    }
}
