import CairnModel
import Foundation
import LocalStore
import Synchronization
import Testing

@testable import Cairn

/// The public API on the real core over a scripted backend that acknowledges every write and echoes it on the
/// watch stream: as in Firebase, a document keeps `hasPendingWrites` until the watch stream confirms the
/// acknowledged write, and that change of metadata only reaches listeners that asked for metadata changes.
@Suite("End to end: acknowledged writes")
struct EndToEndAcknowledgedWritesTests {
    /// Routes projects `e2e-ack-*` to an ``AcknowledgingDatastore``; every other project keeps the default.
    private static let installDatastore: Void = DatastoreFactory.install { configuration, queue in
        if configuration.databaseID.projectID.hasPrefix("e2e-ack-") {
            let datastore = AcknowledgingDatastore(databaseID: configuration.databaseID, queue: queue)
            AcknowledgingDatastore.made.withLock { $0[configuration.databaseID.projectID] = datastore }
            return datastore
        }
        return UnreachableDatastore(databaseID: configuration.databaseID, queue: queue)
    }

    @Test("An acknowledgement raises a metadata-only event only with includeMetadataChanges")
    func metadataOnlyEvents() async throws {
        Self.installDatastore
        let env = EndToEndEnvironment(prefix: "e2e-ack")
        let withMetadata = Inbox<QuerySnapshot>()
        let withoutMetadata = Inbox<QuerySnapshot>()
        let cities = env.db.collection("cities")
        let first = cities.addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
            if let snapshot { withMetadata.put(snapshot) }
        }
        let second = cities.addSnapshotListener { snapshot, _ in
            if let snapshot { withoutMetadata.put(snapshot) }
        }
        let synced = try #require(await withMetadata.next())
        #expect(synced.isEmpty && !synced.metadata.isFromCache, "the watch stream made the query current")
        #expect(await withoutMetadata.next()?.metadata.isFromCache == false)

        cities.document("SF").setData(["name": "San Francisco"], completion: nil)
        let local = try #require(await withMetadata.next())
        #expect(local.metadata.hasPendingWrites && local.documents.map(\.documentID) == ["SF"])
        #expect(await withoutMetadata.next()?.metadata.hasPendingWrites == true)

        try await env.db.waitForPendingWrites()
        let acknowledged = try #require(await withMetadata.next())
        #expect(acknowledged.documents.map(\.documentID) == ["SF"])
        #expect(!acknowledged.metadata.hasPendingWrites)
        #expect(acknowledged.documents.first?.metadata.hasPendingWrites == false)
        #expect(acknowledged.documentChanges.isEmpty, "without metadata changes the event has no change")
        let metadataChanges = acknowledged.documentChanges(includeMetadataChanges: true)
        #expect(metadataChanges.map(\.type) == [.modified])
        #expect(metadataChanges.map(\.oldIndex) == [0] && metadataChanges.map(\.newIndex) == [0])

        cities.document("LA").setData(["name": "Los Angeles"], completion: nil)
        let next = try #require(await withoutMetadata.next())
        #expect(next.documentChanges.map(\.document.documentID) == ["LA"], "the acknowledgement raised nothing here")
        #expect(await withMetadata.next()?.documents.map(\.documentID) == ["LA", "SF"])
        first.remove()
        second.remove()
        await env.tearDown()
    }

    @Test("MemoryCacheSettings() keeps an acknowledged document for getDocument(source: .cache), as Firebase's LRU default; eager GC drops it")
    func memoryCacheDefaultKeepsAcknowledgedDocuments() async throws {
        for (cache, keeps) in [(EndToEndEnvironment.Cache.memoryDefault, true), (.memoryEager, false)] {
            let env = EndToEndEnvironment(cache: cache, prefix: "e2e-memory")
            DatastoreFactory.install(forProject: env.app.name) { configuration, queue in
                AcknowledgingDatastore(databaseID: configuration.databaseID, queue: queue)
            }
            defer { DatastoreFactory.uninstall(forProject: env.app.name) }
            let ref = env.db.collection("cities").document("SF")
            try await ref.setData(["name": "San Francisco"])
            do {
                let cached = try await ref.getDocument(source: .cache)
                #expect(keeps, "eager GC kept a document nothing needs")
                #expect(cached.data()?["name"] as? String == "San Francisco")
                #expect(!cached.metadata.hasPendingWrites)
            } catch {
                #expect(!keeps, "MemoryCacheSettings() dropped the acknowledged document: \(error)")
                #expect(firestoreCode(error) == .unavailable)
            }
            await env.tearDown()
        }
    }

    @Test("A transaction reads through the core's lookup and commits its write with the read's precondition")
    func transactionCommits() async throws {
        Self.installDatastore
        let env = EndToEndEnvironment(prefix: "e2e-ack")
        let reference = env.db.collection("counters").document("c")
        let result = try await env.db.runTransaction { transaction, errorPointer in
            do {
                let snapshot = try transaction.getDocument(reference)
                transaction.setData(["n": snapshot.exists ? 2 : 1], forDocument: reference)
                return snapshot.exists ? "found" : "created"
            } catch {
                errorPointer?.pointee = error as NSError
                return nil
            }
        }
        #expect(result as? String == "created")
        let datastore = try #require(AcknowledgingDatastore.made.withLock { $0[env.app.options.projectID ?? ""] })
        let committed = try #require(datastore.commits.first)
        #expect(datastore.commits.count == 1 && committed.count == 1)
        #expect(committed.first?.key == (try DocumentKey(parsing: "counters/c")))
        #expect(committed.first?.precondition == .exists(false), "the document was read as missing")
        await env.tearDown()
    }
}

/// A backend that acknowledges each write at a new commit version and then echoes the written documents on
/// the watch stream to every watched target (enough for tests that write and listen to one collection).
final class AcknowledgingDatastore: Datastore, @unchecked Sendable {
    let databaseID: DatabaseID
    private let queue: AsyncQueue
    private weak var watchStream: EchoWatchStream?

    init(databaseID: DatabaseID, queue: AsyncQueue) {
        self.databaseID = databaseID
        self.queue = queue
    }

    func makeWatchStream(delegate: any WatchStreamDelegate) -> any WatchStream {
        let stream = EchoWatchStream(delegate: delegate, queue: queue)
        watchStream = stream
        return stream
    }

    func makeWriteStream(delegate: any WriteStreamDelegate) -> any WriteStream {
        AcknowledgingWriteStream(delegate: delegate, queue: queue) { [weak self] mutations, version in
            let documents = mutations.compactMap { mutation -> CairnModel.Document? in
                guard case .set(let value) = mutation.kind else { return nil }
                return CairnModel.Document(key: mutation.key, state: .found, version: version, data: value)
            }
            self?.watchStream?.echo(documents, version: version)
        }
    }

    /// The datastores made, by project.
    static let made = Mutex<[String: AcknowledgingDatastore]>([:])
    /// The commits of transactions, in order.
    private(set) var commits: [[Mutation]] = []

    /// Every document is missing on this server.
    func lookup(keys: [DocumentKey], completion: @escaping (Result<[CairnModel.Document], FirestoreErrorCode>) -> Void) {
        completion(.success(keys.map {
            CairnModel.Document(key: $0, state: .noDocument, version: CairnModel.Timestamp(seconds: 1, nanoseconds: 0))
        }))
    }

    func runQuery(
        _ query: CairnModel.Query, completion: @escaping (Result<[CairnModel.Document], FirestoreErrorCode>) -> Void
    ) {
        completion(.failure(SilentDatastore.unreachable))
    }

    func commit(
        mutations: [Mutation], transactionID: [UInt8]?,
        completion: @escaping (Result<CommitResponse, FirestoreErrorCode>) -> Void
    ) {
        commits.append(mutations)
        let version = CairnModel.Timestamp(seconds: 5_000, nanoseconds: 0)
        completion(.success(CommitResponse(
            commitVersion: version, results: mutations.map { _ in MutationResult(version: version) })))
    }

    func beginTransaction(completion: @escaping (Result<[UInt8], FirestoreErrorCode>) -> Void) {
        completion(.failure(SilentDatastore.unreachable))
    }

    func rollback(transactionID: [UInt8]) {}
}

/// Opens on the queue, answers each new target with `added`, `current` and a global snapshot, and sends the
/// documents the write stream acknowledged.
private final class EchoWatchStream: WatchStream, @unchecked Sendable {
    private weak var delegate: (any WatchStreamDelegate)?
    private let queue: AsyncQueue
    private(set) var isStarted = false
    private(set) var isOpen = false
    private var targets = Set<Int32>()
    private static let initialVersion = CairnModel.Timestamp(seconds: 100, nanoseconds: 0)

    init(delegate: any WatchStreamDelegate, queue: AsyncQueue) {
        self.delegate = delegate
        self.queue = queue
    }

    func start() {
        isStarted = true
        queue.enqueue { [self] in
            guard isStarted else { return }
            isOpen = true
            delegate?.watchStreamDidOpen()
        }
    }

    func stop() {
        isStarted = false
        isOpen = false
        targets = []
    }

    func watch(_ targetData: TargetData) {
        let id = targetData.targetID
        targets.insert(id)
        queue.enqueue { [self] in
            guard isOpen else { return }
            send(.targetChange(state: .added, targetIDs: [id], resumeToken: [], cause: nil))
            send(.targetChange(state: .current, targetIDs: [id], resumeToken: [1], cause: nil))
            send(.targetChange(state: .noChange, targetIDs: [], resumeToken: [1], cause: nil), at: Self.initialVersion)
        }
    }

    func unwatch(targetID: Int32) {
        targets.remove(targetID)
    }

    func echo(_ documents: [CairnModel.Document], version: CairnModel.Timestamp) {
        queue.enqueue { [self] in
            guard isOpen, !targets.isEmpty else { return }
            for document in documents {
                send(.documentChange(
                    updatedTargetIDs: targets.sorted(), removedTargetIDs: [], key: document.key, document: document))
            }
            send(.targetChange(state: .noChange, targetIDs: [], resumeToken: [2], cause: nil), at: version)
        }
    }

    private func send(_ change: WatchChange, at version: CairnModel.Timestamp = TargetData.noSnapshotVersion) {
        delegate?.watchStreamDidChange(change, snapshotVersion: version)
    }
}

/// Opens and completes its handshake on the queue, then answers each write with a commit and hands the
/// acknowledged mutations to `acknowledged`.
private final class AcknowledgingWriteStream: WriteStream, @unchecked Sendable {
    private weak var delegate: (any WriteStreamDelegate)?
    private let queue: AsyncQueue
    private let acknowledged: ([Mutation], CairnModel.Timestamp) -> Void
    private(set) var isStarted = false
    private(set) var isOpen = false
    private(set) var handshakeComplete = false
    var lastStreamToken: [UInt8] = []
    private var commitSeconds: Int64 = 1_000

    init(
        delegate: any WriteStreamDelegate, queue: AsyncQueue,
        acknowledged: @escaping ([Mutation], CairnModel.Timestamp) -> Void
    ) {
        self.delegate = delegate
        self.queue = queue
        self.acknowledged = acknowledged
    }

    func start() {
        isStarted = true
        queue.enqueue { [self] in
            guard isStarted else { return }
            isOpen = true
            delegate?.writeStreamDidOpen()
        }
    }

    func stop() {
        isStarted = false
        isOpen = false
        handshakeComplete = false
    }

    func writeHandshake() {
        queue.enqueue { [self] in
            guard isOpen else { return }
            handshakeComplete = true
            lastStreamToken = [1]
            delegate?.writeStreamDidCompleteHandshake()
        }
    }

    func write(mutations: [Mutation]) {
        queue.enqueue { [self] in
            guard isOpen else { return }
            commitSeconds += 1
            let version = CairnModel.Timestamp(seconds: commitSeconds, nanoseconds: 0)
            delegate?.writeStreamDidReceiveResponse(
                commitVersion: version, results: mutations.map { _ in MutationResult(version: version) })
            acknowledged(mutations, version)
        }
    }
}
