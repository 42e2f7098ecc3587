import CairnModel
import Dispatch
import Foundation
import Synchronization

@testable import Cairn

/// A `ClientBridge` for the API's unit tests: it records what the API hands it (mutations, listens, network
/// calls) and lets a test feed listeners `ViewSnapshotData` and answer reads. Completions run synchronously on
/// the caller's thread; the API moves them to the callback queue.
final class FakeBridge: ClientBridge, @unchecked Sendable {
    struct Listen {
        var query: CairnModel.Query
        var options: ClientListenOptions
        var listener: @Sendable (Result<ViewSnapshotData, FirestoreErrorCode>) -> Void
        var removed: Bool
    }

    struct State {
        var writes: [[Mutation]] = []
        var listens: [Listen] = []
        var calls: [String] = []
        var writeResult: FirestoreErrorCode?
        /// Cache contents for `getDocumentFromLocalCache`: absent key = unknown to the cache.
        var cache: [DocumentKey: CairnModel.Document] = [:]
        /// Server contents for transaction lookups; `nil` = offline.
        var server: [DocumentKey: CairnModel.Document]? = [:]
        var transactionWrites: [[Mutation]] = []
        var transactionAttempts = 0
        /// How many transaction commits fail with `aborted` before one succeeds.
        var failingCommits = 0
        var inSyncListeners: [@Sendable () -> Void] = []
        var autoCreation: [Bool] = []
    }

    let configuration: ClientConfiguration
    let state = Mutex(State())

    init(configuration: ClientConfiguration) {
        self.configuration = configuration
    }

    var writes: [[Mutation]] { state.withLock { $0.writes } }
    var calls: [String] { state.withLock { $0.calls } }
    var listens: [Listen] { state.withLock { $0.listens } }

    /// Sends `result` to the listen at `index` (when it is not removed).
    func emit(_ result: Result<ViewSnapshotData, FirestoreErrorCode>, toListen index: Int = 0) {
        let listen = state.withLock { $0.listens[index] }
        if !listen.removed { listen.listener(result) }
    }

    private final class Handle: BridgeRegistration {
        let onRemove: @Sendable () -> Void
        init(_ onRemove: @escaping @Sendable () -> Void) { self.onRemove = onRemove }
        func remove() { onRemove() }
    }

    func listen(
        query: CairnModel.Query, options: ClientListenOptions,
        listener: @escaping @Sendable (Result<ViewSnapshotData, FirestoreErrorCode>) -> Void
    ) -> any BridgeRegistration {
        let index = state.withLock { state in
            state.listens.append(Listen(query: query, options: options, listener: listener, removed: false))
            return state.listens.count - 1
        }
        return Handle { [self] in state.withLock { $0.listens[index].removed = true } }
    }

    func getDocumentFromLocalCache(
        key: DocumentKey, completion: @escaping @Sendable (Result<CairnModel.Document?, FirestoreErrorCode>) -> Void
    ) {
        completion(.success(state.withLock { $0.cache[key] }))
    }

    func getDocumentsFromLocalCache(
        query: CairnModel.Query, completion: @escaping @Sendable (Result<ViewSnapshotData, FirestoreErrorCode>) -> Void
    ) {
        let documents = query.results(from: state.withLock { $0.cache.values.filter(\.exists) })
        completion(.success(.initial(
            query: query, documents: documents, isFromCache: true, mutatedKeys: [], excludesMetadataChanges: true)))
    }

    func write(mutations: [Mutation], completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        let result = state.withLock { state in
            state.writes.append(mutations)
            return state.writeResult
        }
        completion(result)
    }

    private func record(_ call: String, _ completion: @Sendable (FirestoreErrorCode?) -> Void) {
        state.withLock { $0.calls.append(call) }
        completion(nil)
    }

    func enableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) { record("enableNetwork", completion) }
    func disableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) { record("disableNetwork", completion) }
    func waitForPendingWrites(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        record("waitForPendingWrites", completion)
    }
    func terminate(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) { record("terminate", completion) }
    func setIndexConfiguration(json: String, completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        record("setIndexConfiguration", completion)
    }
    func setIndexAutoCreationEnabled(_ enabled: Bool) { state.withLock { $0.autoCreation.append(enabled) } }
    func deleteAllFieldIndexes() { state.withLock { $0.calls.append("deleteAllFieldIndexes") } }

    func addSnapshotsInSyncListener(_ listener: @escaping @Sendable () -> Void) -> any BridgeRegistration {
        state.withLock { $0.inSyncListeners.append(listener) }
        listener()
        return Handle {}
    }

    /// Fires every snapshots-in-sync listener.
    func raiseInSync() {
        for listener in state.withLock({ $0.inSyncListeners }) { listener() }
    }

    final class Context: TransactionContext, @unchecked Sendable {
        let bridge: FakeBridge
        let writes = Mutex<[Mutation]>([])
        init(bridge: FakeBridge) { self.bridge = bridge }

        func lookup(
            _ keys: [DocumentKey],
            completion: @escaping @Sendable (Result<[CairnModel.Document], FirestoreErrorCode>) -> Void
        ) {
            guard let server = bridge.state.withLock({ $0.server }) else {
                return completion(.failure(FirestoreErrorCode(.unavailable, "The client is offline.")))
            }
            completion(.success(keys.map {
                server[$0] ?? CairnModel.Document(key: $0, state: .noDocument, version: CairnModel.Timestamp(seconds: 1, nanoseconds: 0))
            }))
        }

        func write(_ mutation: Mutation) { writes.withLock { $0.append(mutation) } }
    }

    /// Runs attempts until one commits (a commit fails while `failingCommits` > 0) or `maxAttempts` is reached.
    func runTransaction(
        maxAttempts: Int,
        update: @escaping @Sendable (any TransactionContext, @escaping @Sendable (FirestoreErrorCode?) -> Void) -> Void,
        completion: @escaping @Sendable (FirestoreErrorCode?) -> Void
    ) {
        attempt(remaining: maxAttempts, update: update, completion: completion)
    }

    private func attempt(
        remaining: Int,
        update: @escaping @Sendable (any TransactionContext, @escaping @Sendable (FirestoreErrorCode?) -> Void) -> Void,
        completion: @escaping @Sendable (FirestoreErrorCode?) -> Void
    ) {
        let context = Context(bridge: self)
        state.withLock { $0.transactionAttempts += 1 }
        update(context) { [self] error in
            if let error { return completion(error) }
            let aborted = state.withLock { state in
                if state.failingCommits > 0 {
                    state.failingCommits -= 1
                    return true
                }
                state.transactionWrites.append(context.writes.withLock { $0 })
                return false
            }
            guard aborted else { return completion(nil) }
            if remaining > 1 {
                attempt(remaining: remaining - 1, update: update, completion: completion)
            } else {
                completion(FirestoreErrorCode(.aborted, "Transaction failed all retries."))
            }
        }
    }
}

/// One test's Firestore over a fresh fake bridge: a uniquely named app and project, and a serial callback queue
/// whose `flush()` waits for every callback already dispatched.
struct APITestEnvironment {
    let db: Firestore
    let queue: DispatchQueue
    let projectID: String
    private static let queueKey = DispatchSpecificKey<String>()

    init(configure: (FirestoreSettings) -> Void = { _ in }) {
        Self.installFactory
        projectID = "test-\(UUID().uuidString.lowercased())"
        FirebaseApp.configure(name: projectID, options: FirebaseOptions(projectID: projectID))
        db = Firestore.firestore(app: FirebaseApp.app(name: projectID)!)
        queue = DispatchQueue(label: projectID)
        queue.setSpecific(key: Self.queueKey, value: projectID)
        let settings = db.settings
        settings.dispatchQueue = queue
        settings.cacheSettings = MemoryCacheSettings()
        configure(settings)
        db.settings = settings
    }

    /// The fake behind `db` (starts the instance).
    var bridge: FakeBridge {
        _ = db.client()
        return FakeRegistry.bridges.withLock { $0[projectID]! }
    }

    /// Waits until every callback dispatched so far has run.
    func flush() { queue.sync {} }

    /// True when called on this environment's callback queue.
    var isOnCallbackQueue: Bool { DispatchQueue.getSpecific(key: Self.queueKey) == projectID }

    private static let installFactory: Void = {
        ClientBridgeFactory.install { configuration throws(FirestoreErrorCode) in
            // Other suites (the end-to-end tests) run the real core in the same process.
            guard configuration.databaseID.projectID.hasPrefix("test-") else {
                return try CoreClientFactory.makeClient(configuration)
            }
            let bridge = FakeBridge(configuration: configuration)
            FakeRegistry.bridges.withLock { $0[configuration.databaseID.projectID] = bridge }
            return bridge
        }
    }()
}

enum FakeRegistry {
    static let bridges = Mutex<[String: FakeBridge]>([:])
}

/// Collects callback results for assertions.
final class Recorder<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.lock()
        storage.append(element)
        lock.unlock()
    }

    var values: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// A found document for fake snapshots.
func fakeDocument(_ path: String, _ fields: [String: Value], local: Bool = false) -> CairnModel.Document {
    CairnModel.Document(
        key: try! DocumentKey(parsing: path), state: .found, version: CairnModel.Timestamp(seconds: 1, nanoseconds: 0),
        data: ObjectValue(fields), hasLocalMutations: local)
}
