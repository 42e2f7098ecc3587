import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
import Testing
@testable import CairnCore

/// A sync engine over an in-memory cache and the unreachable network (or `datastore`), driven directly through
/// its `RemoteSyncer` side (remote events, write results) on a manual queue; it records what one listener sees.
final class SyncEngineHarness: @unchecked Sendable {
    let queue = AsyncQueue.manual()
    let localStore = LocalStore.inMemory()
    let remoteStore: RemoteStore
    let syncEngine: SyncEngine
    let eventManager: EventManager
    var snapshots: [ViewSnapshot] = []
    var writeResults: [(key: DocumentKey, error: FirestoreErrorCode?)] = []

    init(maxConcurrentLimboResolutions: Int = 100, datastore: any Datastore = SilentDatastore()) {
        remoteStore = RemoteStore(localStore: localStore, datastore: datastore, queue: queue)
        syncEngine = SyncEngine(
            localStore: localStore, remoteStore: remoteStore, user: .unauthenticated,
            maxConcurrentLimboResolutions: maxConcurrentLimboResolutions)
        eventManager = EventManager(source: syncEngine)
        syncEngine.callback = eventManager
        remoteStore.syncer = syncEngine
        run { self.remoteStore.start() }
    }

    func run(_ body: @escaping () -> Void) {
        nonisolated(unsafe) let body = body
        queue.enqueue { body() }
        queue.drain()
    }

    @discardableResult
    func listen(_ query: CairnModel.Query) throws -> Int32 {
        let listener = QueryListener(query: query, options: .includingMetadataChanges(true)) { [unowned self] result in
            if case .success(let snapshot) = result { snapshots.append(snapshot) }
        }
        var targetID: Int32 = 0
        var failure: (any Error)?
        run { [self] in
            do { targetID = try eventManager.addQueryListener(listener) } catch { failure = error }
        }
        if let failure { throw failure }
        return targetID
    }

    func write(_ mutation: Mutation) {
        run { [self] in
            syncEngine.writeMutations([mutation]) { [unowned self] error in writeResults.append((mutation.key, error)) }
        }
    }

    /// A remote event at `version` that marks `targetID` current with `documents` added to it.
    func serverSends(_ documents: [Document], to targetID: Int32, version: Int64, removed: Set<DocumentKey> = []) {
        var updates: [DocumentKey: Document] = [:]
        for document in documents { updates[document.key] = document }
        let change = TargetChange(
            resumeToken: Array("token-\(version)".utf8), current: true, added: Set(documents.map(\.key)), removed: removed)
        let event = RemoteEvent(
            snapshotVersion: CairnModel.Timestamp(seconds: version, nanoseconds: 0), targetChanges: [targetID: change],
            documentUpdates: updates)
        run { [self] in syncEngine.applyRemoteEvent(event) }
    }

    /// Acknowledges the oldest pending batch at `version`.
    func acknowledgeNextBatch(version: Int64) throws {
        let batch = try #require(try localStore.nextMutationBatch(after: nil))
        let commit = CairnModel.Timestamp(seconds: version, nanoseconds: 0)
        let result = try MutationBatchResult(
            batch: batch, commitVersion: commit, mutationResults: batch.mutations.map { _ in MutationResult(version: commit) })
        run { [self] in syncEngine.applySuccessfulWrite(result) }
    }
}
