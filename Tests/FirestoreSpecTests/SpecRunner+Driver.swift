import CairnModel
import Foundation
import CairnLocalStore
import SegmentLog

@testable import CairnCore

/// The components of one spec test (Firebase's `FSTSyncEngineTestDriver`): the real LocalStore, RemoteStore,
/// SyncEngine and EventManager over a scripted `MockDatastore`, on a manual AsyncQueue the runner drains after
/// each step. It records what the steps' expectations check: snapshot events, write callbacks, counters.
final class SpecDriver: @unchecked Sendable {
    let config: SpecConfig
    let variant: SpecVariant
    /// The persistent variant's cache folder, removed by `tearDown`.
    let directory: URL?
    private(set) var queue = AsyncQueue.manual()
    private(set) var localStore: LocalStore
    private(set) var datastore = MockDatastore()
    private(set) var remoteStore: RemoteStore
    private(set) var syncEngine: SyncEngine
    private(set) var eventManager: EventManager

    var events: [(query: CairnModel.Query, result: Result<ViewSnapshot, FirestoreErrorCode>)] = []
    var listeners: [CairnModel.Query: QueryListener] = [:]
    var acknowledgedDocs: [DocumentKey] = []
    var rejectedDocs: [DocumentKey] = []
    /// The writes not yet acknowledged or failed, per user, as the harness expects them on the write stream.
    var outstandingWrites: [User: [[Mutation]]] = [:]
    var currentUser = User.unauthenticated
    var networkEnabled = true
    var snapshotsInSyncEvents = 0
    var waitForPendingWritesEvents = 0
    var snapshotsInSyncListenerIDs: [Int] = []
    /// Errors the sync engine could not hand to a caller; any fails the test.
    var internalErrors: [String] = []

    init(config: SpecConfig, variant: SpecVariant) throws {
        self.config = config
        self.variant = variant
        switch variant {
        case .memory:
            directory = nil
        case .persistent:
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-spec-\(UUID().uuidString)")
        }
        let components = try Self.makeComponents(
            config: config, directory: directory, user: .unauthenticated, queue: queue, datastore: datastore)
        (localStore, remoteStore, syncEngine, eventManager) = components
        wire()
    }

    private static func makeStore(config: SpecConfig, directory: URL?) throws -> LocalStore {
        guard let directory else {
            return LocalStore.inMemory(garbageCollector: config.useEagerGCForMemory ? .eager : .lru(thresholdBytes: 100 << 20))
        }
        // The test's cache is thrown away: no sync on commit, little preallocation, so the variant runs fast.
        var configuration = SegmentLog.Configuration()
        configuration.durability = .none
        configuration.preallocationSize = 64 << 10
        return try LocalStore.open(at: directory.path, configuration: configuration)
    }

    private static func makeComponents(
        config: SpecConfig, directory: URL?, user: User, queue: AsyncQueue, datastore: MockDatastore
    ) throws -> (LocalStore, RemoteStore, SyncEngine, EventManager) {
        let store = try makeStore(config: config, directory: directory)
        if user != .unauthenticated { try store.switchUser(to: user.localStoreID) }
        let remote = RemoteStore(localStore: store, datastore: datastore, queue: queue)
        let engine = SyncEngine(
            localStore: store, remoteStore: remote, user: user,
            maxConcurrentLimboResolutions: config.maxConcurrentLimboResolutions ?? Int.max)
        let events = EventManager(source: engine)
        return (store, remote, engine, events)
    }

    private func wire() {
        syncEngine.callback = eventManager
        remoteStore.syncer = syncEngine
        syncEngine.onInternalError = { [unowned self] error in internalErrors.append("\(error)") }
        run { [self] in remoteStore.start() }
    }

    /// Runs `body` on the worker queue and drains the queue, so every consequence has happened on return.
    func run(_ body: @escaping () -> Void) {
        nonisolated(unsafe) let body = body
        queue.enqueue { body() }
        queue.drain()
    }

    /// Shuts the components down and builds new ones over the same cache (a persistent cache survives; a
    /// memory one starts empty), with the same user and outstanding writes.
    func restart() throws {
        run { [self] in remoteStore.shutdown() }
        try localStore.close()
        queue = AsyncQueue.manual()
        datastore = MockDatastore()
        listeners = [:]
        (localStore, remoteStore, syncEngine, eventManager) = try Self.makeComponents(
            config: config, directory: directory, user: currentUser, queue: queue, datastore: datastore)
        wire()
    }

    func tearDown() {
        run { [self] in remoteStore.shutdown() }
        try? localStore.close()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}
