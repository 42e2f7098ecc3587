import CairnLogging
import CairnModel
import Dispatch
import Foundation
import CairnLocalStore
import Synchronization

/// The client core behind the public API (Firebase's `core::FirestoreClient`): it owns the worker queue, the
/// cache, the remote store, the sync engine and the event manager, and runs every operation on the queue.
/// Callbacks run on `callbackQueue` when one is given, else on the worker queue.
///
/// The client is the boundary between the threads of the API and the core's one worker: its methods may be called
/// from any thread and only enqueue work, while the core's objects and the client's own state sit in one
/// ``QueueBound`` box that checks, on every access, that it happens on the queue.
///
/// ```swift
/// let client = try FirestoreClient(datastore: datastore, persistence: .memory)
/// let handle = client.listen(query: query, options: ListenOptions()) { result in ... }
/// client.write(mutations: [.delete(key)]) { error in ... }
/// handle.remove()
/// client.terminate { _ in }
/// ```
package final class FirestoreClient: Sendable {
    /// Where the cache lives.
    package enum Persistence: Sendable {
        /// In memory only, lost when the client stops; a document leaves as soon as nothing uses it.
        case memory
        /// In memory only, with least-recently-used garbage collection keeping it under `cacheSizeBytes`.
        case memoryLRU(cacheSizeBytes: Int64)
        /// A persistent cache in `directory`; garbage collection keeps it under `cacheSizeBytes`
        /// (`LocalStore.cacheSizeUnlimited` turns collection off). A cache found damaged is recovered
        /// (`recoversDamage`) or reported as `dataLoss` (FirestoreClient+DamagedCache.swift).
        case disk(directory: String, cacheSizeBytes: Int64, recoversDamage: Bool = true)
    }

    /// What the client owns on its worker queue.
    private struct Core {
        let localStore: LocalStore
        let remoteStore: RemoteStore
        let syncEngine: SyncEngine
        let eventManager: EventManager
        /// The registered query listeners by the number their handles remove them with.
        var queryListeners: [Int: QueryListener] = [:]
        var garbageCollection: DelayedOperation?
        var indexBackfill: DelayedOperation?
        var isTerminated = false
    }

    /// Firebase's `kInitialGCDelay` and `kRegularGCDelay`.
    package static let initialGarbageCollectionDelay: TimeInterval = 60
    package static let regularGarbageCollectionDelay: TimeInterval = 5 * 60

    package let queue: AsyncQueue
    private let callbackQueue: DispatchQueue?
    private let persistence: Persistence
    private let databaseID: DatabaseID
    private let core: QueueBound<Core>
    private let nextListenerID = Atomic<Int>(0)

    /// The cache; on the queue only, like the three below.
    package var localStore: LocalStore { core.value.localStore }
    package var remoteStore: RemoteStore { core.value.remoteStore }
    package var syncEngine: SyncEngine { core.value.syncEngine }
    package var eventManager: EventManager { core.value.eventManager }
    /// True once ``terminate(completion:)`` ran; on the queue only.
    package var isTerminated: Bool { core.value.isTerminated }

    /// Opens the cache and starts the remote store, on `queue` (a new serial queue by default). The core's
    /// objects are made on the calling thread and handed over to the queue (`datastore` with them).
    ///
    /// - Throws: the cache's error as a ``FirestoreErrorCode`` when the persistent cache cannot be opened.
    package init(
        datastore: sending any Datastore, persistence: Persistence, user: User = .unauthenticated,
        queue: AsyncQueue = AsyncQueue(label: "cairn.worker"), callbackQueue: DispatchQueue? = nil
    ) throws {
        self.queue = queue
        self.callbackQueue = callbackQueue
        self.persistence = persistence
        databaseID = datastore.databaseID
        let localStore: LocalStore
        do {
            switch persistence {
            case .memory: localStore = LocalStore.inMemory()
            case .memoryLRU(let size): localStore = LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: size))
            case .disk(let directory, _, let recoversDamage):
                localStore = try Self.openPersistentCache(at: directory, recoversDamage: recoversDamage)
            }
            if user != .unauthenticated { try localStore.switchUser(to: user.localStoreID) }
        } catch {
            throw FirestoreErrorCode.fromCache(error)
        }
        let remoteStore = RemoteStore(localStore: localStore, datastore: datastore, queue: queue)
        let syncEngine = SyncEngine(localStore: localStore, remoteStore: remoteStore, user: user)
        let eventManager = EventManager(source: syncEngine)
        syncEngine.callback = eventManager
        remoteStore.syncer = syncEngine
        core = QueueBound(
            handingOver: Core(
                localStore: localStore, remoteStore: remoteStore, syncEngine: syncEngine, eventManager: eventManager),
            to: queue)
        queue.enqueue { [self] in
            // The syncs behind a persistent cache's appends (group commit) report here: a durable batch may go
            // to the server, a failed sync fails the writes it did not cover. Uncounted: a collection round
            // or a backfill slice does not stop for them (they follow the round's own appends).
            self.localStore.onDurabilityChange { [weak self] result in
                self?.queue.enqueueUncounted { [weak self] in
                    guard let self, !self.isTerminated else { return }
                    self.syncEngine.handleLocalDurability(result)
                }
            }
            self.remoteStore.start()
            scheduleGarbageCollection(after: Self.initialGarbageCollectionDelay)
            scheduleIndexBackfill(after: Self.initialBackfillDelay)
        }
    }

    // MARK: Listening

    /// Listens to `query`; `listener` receives each snapshot (or the error that ends the listen) until the handle
    /// is removed.
    @discardableResult
    package func listen(
        query: Query, options: ListenOptions,
        listener: @escaping @Sendable (Result<ViewSnapshot, FirestoreErrorCode>) -> Void
    ) -> ListenerHandle {
        let id = nextListenerID.wrappingAdd(1, ordering: .relaxed).newValue
        queue.enqueue { [self] in
            guard !isTerminated else { return }
            let queryListener = QueryListener(query: query, options: options) { [weak self] result in
                self?.deliver { listener(result) }
            }
            do {
                try eventManager.addQueryListener(queryListener)
                core.value.queryListeners[id] = queryListener
            } catch {
                queryListener.onError(FirestoreErrorCode.fromCache(error))
            }
        }
        return ListenerHandle { [weak self] in
            guard let self else { return }
            queue.enqueue { [self] in
                guard !isTerminated, let queryListener = core.value.queryListeners.removeValue(forKey: id) else { return }
                try? eventManager.removeQueryListener(queryListener)
            }
        }
    }

    /// Calls `listener` now and after every set of snapshot events one change caused.
    @discardableResult
    package func addSnapshotsInSyncListener(_ listener: @escaping @Sendable () -> Void) -> ListenerHandle {
        let id = Mutex<Int?>(nil)
        queue.enqueue { [self] in
            guard !isTerminated else { return }
            let registered = eventManager.addSnapshotsInSyncListener { [weak self] in self?.deliver(listener) }
            id.withLock { $0 = registered }
        }
        return ListenerHandle { [weak self] in
            guard let self else { return }
            queue.enqueue { [self] in
                if let registered = id.withLock({ $0 }) { eventManager.removeSnapshotsInSyncListener(registered) }
            }
        }
    }

    // MARK: Writes and network

    /// Writes `mutations` as one atomic batch. The views show it at once; `completion` runs when the server
    /// acknowledges (nil) or rejects (the error) it — not while offline.
    package func write(mutations: [Mutation], completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { completion(Self.terminatedError) } }
            syncEngine.writeMutations(mutations) { [weak self] error in self?.deliver { completion(error) } }
        }
    }

    /// Calls `completion` once every write pending now is acknowledged or rejected; fails with `cancelled` when
    /// the user changes first.
    package func waitForPendingWrites(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { completion(Self.terminatedError) } }
            syncEngine.registerPendingWritesCallback { [weak self] error in self?.deliver { completion(error) } }
        }
    }

    /// Reconnects: the streams restart, queued writes flow, listeners settle on the server's state.
    package func enableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { completion(Self.terminatedError) } }
            remoteStore.enableNetwork()
            deliver { completion(nil) }
        }
    }

    /// Goes offline: listeners and gets answer from the cache (`isFromCache` true), writes queue.
    package func disableNetwork(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { completion(Self.terminatedError) } }
            remoteStore.disableNetwork()
            deliver { completion(nil) }
        }
    }

    /// Switches the signed-in user: the views show that user's pending writes and the write stream sends them.
    package func changeUser(_ user: User) {
        queue.enqueue { [self] in
            guard !isTerminated else { return }
            syncEngine.handleCredentialChange(user)
        }
    }

    /// Loads a data bundle (built by a server SDK) read from `stream`: its documents enter the cache and the
    /// listeners' views, and its named queries become available to ``namedQuery(_:completion:)``. `progress`
    /// gets the initial progress, one update per document, and last the success or the error (`invalidArgument`
    /// for a malformed bundle) with the progress reached; a bundle loaded before succeeds at once.
    ///
    /// The caller hands `stream` over: from now on only the worker queue reads it (Firebase reads it there too).
    package func loadBundle(
        _ stream: InputStream, progress: @escaping @Sendable (BundleLoadProgress, FirestoreErrorCode?) -> Void
    ) {
        nonisolated(unsafe) let stream = stream
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { progress(BundleLoadProgress.unknown.failed, Self.terminatedError) } }
            let reader = BundleReader(stream, databaseID: databaseID)
            var last = BundleLoadProgress.unknown
            do throws(FirestoreErrorCode) {
                let success = try syncEngine.loadBundle(from: reader) { update in
                    last = update
                    deliver { progress(update, nil) }
                }
                deliver { progress(success, nil) }
            } catch {
                let reached = last.failed
                CairnLogger.firestoreSync.debug("loading a bundle failed: \(error.message)")
                deliver { progress(reached, error) }
            }
        }
    }

    /// The query a loaded bundle saved under `name` (in this run or a previous one on the same cache), or nil.
    package func namedQuery(_ name: String, completion: @escaping @Sendable (Query?) -> Void) {
        queue.enqueue { [self] in
            let query = isTerminated ? nil : syncEngine.namedQuery(name)?.query
            deliver { completion(query) }
        }
    }

    /// Stops the client: timers, streams and the cache. Pending writes stay in a persistent cache's outbox and
    /// are sent by the next client.
    package func terminate(completion: @escaping @Sendable (FirestoreErrorCode?) -> Void) {
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { completion(nil) } }
            core.value.isTerminated = true
            core.value.queryListeners.removeAll()
            core.value.garbageCollection?.cancel()
            core.value.indexBackfill?.cancel()
            remoteStore.shutdown()
            do {
                try localStore.close()
                deliver { completion(nil) }
            } catch {
                deliver { completion(FirestoreErrorCode.fromCache(error)) }
            }
        }
    }

    package static let terminatedError = FirestoreErrorCode(
        .failedPrecondition, "The client has already been terminated. Create a new Firestore instance to continue.")

    /// Runs `body` on the worker queue and hands its result to `completion` (for reads of the cache).
    package func run<T: Sendable>(
        _ body: @escaping @Sendable () throws -> T, completion: @escaping @Sendable (Result<T, FirestoreErrorCode>) -> Void
    ) {
        queue.enqueue { [self] in
            guard !isTerminated else { return deliver { completion(.failure(Self.terminatedError)) } }
            let result: Result<T, FirestoreErrorCode>
            do {
                result = .success(try body())
            } catch {
                result = .failure(FirestoreErrorCode.fromCache(error))
            }
            deliver { completion(result) }
        }
    }

    package func deliver(_ callback: @escaping @Sendable () -> Void) {
        if let callbackQueue { callbackQueue.async(execute: callback) } else { callback() }
    }

    /// Runs the index backfill: again after ``busyBackfillDelay`` while a slice found work, else every
    /// ``regularBackfillDelay``; a failed run is retried at the regular time.
    private func scheduleIndexBackfill(after delay: TimeInterval) {
        core.value.indexBackfill = queue.enqueueAfter(delay: delay, timerID: .indexBackfill) { [weak self] in
            guard let self, !isTerminated else { return }
            let busy = ((try? backfillIndexes()) ?? 0) > 0
            scheduleIndexBackfill(after: busy ? Self.busyBackfillDelay : Self.regularBackfillDelay)
        }
    }

    private func scheduleGarbageCollection(after delay: TimeInterval) {
        let cacheSizeBytes: Int64
        switch persistence {
        case .memory: return
        case .memoryLRU(let size), .disk(_, let size, _): cacheSizeBytes = size
        }
        guard cacheSizeBytes != LocalStore.cacheSizeUnlimited else { return }
        core.value.garbageCollection = queue.enqueueAfter(delay: delay, timerID: .garbageCollection) { [weak self] in
            guard let self, !isTerminated else { return }
            // One round per queue operation, within LocalStore's time budget, ended early (after one slice and
            // one step) when another operation waits: listeners queued meanwhile run between rounds, and the
            // next round follows at once while the cache is still over the threshold.
            let round = try? localStore.collectGarbage(
                threshold: cacheSizeBytes, maxRounds: 1, roundBudget: LocalStore.defaultRoundBudget
            ) { [queue] in queue.hasWaitingOperations }
            let progressing = round.map {
                $0.bytesAfter > UInt64(max(cacheSizeBytes, 0)) && ($0.rounds > 0 || $0.bytesAfter < $0.bytesBefore)
            } ?? false
            scheduleGarbageCollection(after: progressing ? 0 : Self.regularGarbageCollectionDelay)
        }
    }
}

/// Removes a listener registered with the client (Firebase's `ListenerRegistration`). Removing twice is harmless.
package final class ListenerHandle: Sendable {
    private let removal: Mutex<(@Sendable () -> Void)?>

    package init(_ remove: @escaping @Sendable () -> Void) {
        removal = Mutex(remove)
    }

    package func remove() {
        let remove = removal.withLock { current in
            defer { current = nil }
            return current
        }
        remove?()
    }
}
