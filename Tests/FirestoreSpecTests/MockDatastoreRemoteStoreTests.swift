import CairnModel
import CairnLocalStore
import Testing

@testable import CairnCore

/// Stands in for the SyncEngine: records what the RemoteStore reports and acknowledges batches in the store.
private final class RecordingSyncer: RemoteSyncer {
    let store: LocalStore
    var events: [RemoteEvent] = []
    var rejectedListens: [(Int32, FirestoreErrorCode.Code)] = []
    var acknowledged: [Int] = []
    var rejectedWrites: [(Int, FirestoreErrorCode.Code)] = []
    var onlineStates: [OnlineState] = []
    var remoteKeys: [Int32: Set<DocumentKey>] = [:]

    init(store: LocalStore) { self.store = store }

    func applyRemoteEvent(_ event: RemoteEvent) { events.append(event) }
    func rejectListen(targetID: Int32, error: FirestoreErrorCode) { rejectedListens.append((targetID, error.code)) }
    func applySuccessfulWrite(_ result: MutationBatchResult) {
        acknowledged.append(result.batch.batchID)
        _ = try? store.acknowledgeBatch(result)
    }
    func rejectFailedWrite(batchID: Int, error: FirestoreErrorCode) {
        rejectedWrites.append((batchID, error.code))
        _ = try? store.rejectBatch(batchID)
    }
    func remoteKeys(forTarget targetID: Int32) -> Set<DocumentKey> { remoteKeys[targetID] ?? [] }
    func handleOnlineStateChange(_ state: OnlineState) { onlineStates.append(state) }
}

private func version(_ micros: Int64) -> CairnModel.Timestamp {
    CairnModel.Timestamp(seconds: micros / 1_000_000, nanoseconds: Int32(micros % 1_000_000) * 1000)
}

/// A RemoteStore over the mock, on a manual queue, with a recording syncer. The RemoteStore and the mock are
/// called on the queue only (``run(_:)``), as the RemoteStore's confinement checks require.
private struct Harness {
    let queue = AsyncQueue.manual()
    let store = LocalStore.inMemory()
    let datastore = MockDatastore()
    let remoteStore: RemoteStore
    let syncer: RecordingSyncer

    init() {
        remoteStore = RemoteStore(localStore: store, datastore: datastore, queue: queue)
        syncer = RecordingSyncer(store: store)
        remoteStore.syncer = syncer
    }

    /// Runs `body` on the queue now, after what is enqueued (a drain on this thread).
    func run(_ body: @escaping () throws -> Void) throws {
        try queue.enqueueAndWait(body)
    }

    func target(_ id: Int32, _ path: String, token: String = "") throws -> TargetData {
        TargetData(
            targetID: id, query: CairnModel.Query(path: try ResourcePath(parsing: path)),
            snapshotVersion: token.isEmpty ? TargetData.noSnapshotVersion : version(1000), resumeToken: Array(token.utf8))
    }

    func deliver(_ state: WatchTargetChangeState, _ ids: [Int32], token: String = "", cause: FirestoreErrorCode? = nil) throws {
        try run { [datastore] in
            try datastore.deliverWatchChange(.targetChange(state: state, targetIDs: ids, resumeToken: Array(token.utf8), cause: cause))
        }
    }

    func snapshot(_ micros: Int64, token: String = "") throws {
        try run { [datastore] in
            try datastore.deliverWatchChange(
                .targetChange(state: .noChange, targetIDs: [], resumeToken: Array(token.utf8), cause: nil),
                snapshotVersion: version(micros))
        }
    }

    @discardableResult
    func write(_ path: String) throws -> Int {
        let key = try DocumentKey(parsing: path)
        return try store.writeLocally([Mutation.set(key, value: ObjectValue(["v": .integer(1)]))], localWriteTime: version(1)).batchID
    }

    func ackNextWrite(_ micros: Int64) throws {
        try run { [datastore] in
            datastore.nextSentWrite()
            datastore.ackWrite(commitVersion: version(micros), results: [MutationResult(version: version(micros))])
        }
    }
}

@Suite("RemoteStore over the MockDatastore: watch")
struct RemoteStoreWatchTests {
    @Test("a listen starts the watch stream and sends the target; the last unlisten lets the stream go idle")
    func listenAndIdle() throws {
        let h = Harness()
        try h.run { h.remoteStore.start() }
        #expect(!h.datastore.isWatchStreamOpen)
        try h.run { h.remoteStore.listen(try h.target(2, "rooms")) }
        #expect(h.datastore.isWatchStreamOpen)
        #expect(h.datastore.activeTargets.keys.sorted() == [2])
        #expect(h.datastore.watchStreamRequestCount == 1)
        try h.run { h.remoteStore.stopListening(targetID: 2) }
        #expect(h.datastore.activeTargets.isEmpty && h.datastore.isWatchStreamOpen)
        #expect(h.queue.runDelayed(until: .listenStreamIdle))
        #expect(!h.datastore.isWatchStreamOpen)
        #expect(h.remoteStore.onlineState == .unknown)
    }

    @Test("a consistent snapshot raises one event; reopening resends targets with the resume token and expected count")
    func snapshotAndResume() throws {
        let h = Harness()
        try h.run { h.remoteStore.start() }
        try h.run { h.remoteStore.listen(try h.target(2, "rooms")) }
        try h.deliver(.added, [2])
        let key = try DocumentKey(parsing: "rooms/a")
        let document = Document(key: key, state: .found, version: version(1000), data: ObjectValue(["v": .integer(1)]))
        try h.run { try h.datastore.deliverWatchChange(.documentChange(updatedTargetIDs: [2], removedTargetIDs: [], key: key, document: document)) }
        try h.deliver(.current, [2], token: "resume-token-1000")
        #expect(h.syncer.events.isEmpty)
        try h.snapshot(1000)
        let event = try #require(h.syncer.events.first)
        #expect(h.syncer.events.count == 1)
        #expect(event.targetChanges[2] == TargetChange(resumeToken: Array("resume-token-1000".utf8), current: true, added: [key]))
        #expect(event.documentUpdates[key]?.version == version(1000))
        #expect(h.remoteStore.onlineState == .online)

        h.syncer.remoteKeys[2] = [key]
        try h.run { h.datastore.failWatchStream(error: FirestoreErrorCode(.unavailable, "dropped")) }
        let resent = try #require(h.datastore.activeTargets[2])
        #expect(h.datastore.isWatchStreamOpen)
        #expect(resent.resumeToken == Array("resume-token-1000".utf8))
        #expect(resent.expectedCount == 1)
        #expect(resent.snapshotVersion == TargetData.noSnapshotVersion)
        #expect(h.datastore.watchStreamRequestCount == 2)
    }

    @Test("an existence-filter mismatch re-listens without resume token, with the mismatch purpose on that request only")
    func existenceFilterMismatch() throws {
        let h = Harness()
        try h.run { h.remoteStore.start() }
        try h.run { h.remoteStore.listen(try h.target(2, "rooms", token: "resume-token-500")) }
        #expect(h.datastore.activeTargets[2]?.expectedCount == 0)
        try h.deliver(.added, [2])
        h.syncer.remoteKeys[2] = [try DocumentKey(parsing: "rooms/a"), try DocumentKey(parsing: "rooms/b")]
        try h.run { try h.datastore.deliverWatchChange(.existenceFilter(targetID: 2, count: 1, bloomFilter: nil)) }
        try h.snapshot(2000)
        #expect(h.syncer.events.last?.targetMismatches == [2: .existenceFilterMismatch])
        let request = try #require(h.datastore.activeTargets[2])
        #expect(request.purpose == .existenceFilterMismatch)
        #expect(request.resumeToken.isEmpty && request.expectedCount == nil)
        #expect(h.remoteStore.listenTargets[2]?.purpose == .listen)
        #expect(h.remoteStore.listenTargets[2]?.resumeToken.isEmpty == true)
    }

    @Test("a removal with a cause rejects the listen at once and forgets the target")
    func removedWithCause() throws {
        let h = Harness()
        try h.run { h.remoteStore.start() }
        try h.run { h.remoteStore.listen(try h.target(2, "rooms")) }
        try h.run { h.remoteStore.listen(try h.target(4, "halls")) }
        try h.deliver(.added, [2, 4])
        try h.deliver(.removed, [2], cause: FirestoreErrorCode(.permissionDenied, "no"))
        #expect(h.syncer.rejectedListens.map(\.0) == [2])
        #expect(h.syncer.rejectedListens.first?.1 == .permissionDenied)
        #expect(h.remoteStore.listenTargets.keys.sorted() == [4])
        #expect(h.datastore.activeTargets.keys.sorted() == [4])
        #expect(h.syncer.events.isEmpty)
    }

    @Test("the mock refuses changes on a closed stream and errored removals of targets it does not watch")
    func mockMisuse() throws {
        let h = Harness()
        #expect(throws: MockDatastoreError.self) { try h.deliver(.added, [2]) }
        try h.run { h.remoteStore.start() }
        try h.run { h.remoteStore.listen(try h.target(2, "rooms")) }
        #expect(throws: MockDatastoreError.self) {
            try h.deliver(.removed, [4], cause: FirestoreErrorCode(.permissionDenied, "no"))
        }
        #expect(h.syncer.rejectedListens.isEmpty)
    }

    @Test("online state: unknown while connecting, offline after one failed connect or after 10 s, online on a message")
    func onlineState() throws {
        let h = Harness()
        try h.run { h.remoteStore.start() }
        try h.run { h.remoteStore.listen(try h.target(2, "rooms")) }
        #expect(h.remoteStore.onlineState == .unknown)
        #expect(h.queue.runDelayed(until: .onlineStateTimeout))
        #expect(h.syncer.onlineStates == [.offline])
        try h.deliver(.added, [2])
        #expect(h.syncer.onlineStates == [.offline, .online])
        // Failing while online: back to unknown and an immediate reconnect.
        try h.run { h.datastore.failWatchStream(error: FirestoreErrorCode(.unavailable, "dropped")) }
        #expect(h.syncer.onlineStates == [.offline, .online, .unknown])
        #expect(h.datastore.isWatchStreamOpen)
        // Failing again before any message: offline; the next attempt waits for the backoff timer.
        try h.run { h.datastore.failWatchStream(error: FirestoreErrorCode(.unavailable, "dropped again")) }
        #expect(h.syncer.onlineStates.last == .offline)
        #expect(!h.datastore.isWatchStreamOpen)
        #expect(h.queue.runDelayed(until: .listenStreamConnectionBackoff))
        #expect(h.datastore.isWatchStreamOpen && h.datastore.activeTargets.keys.sorted() == [2])
        try h.run { h.remoteStore.disableNetwork() }
        #expect(h.syncer.onlineStates.last == .offline && !h.datastore.isWatchStreamOpen)
        #expect(!h.remoteStore.canUseNetwork)
    }
}

@Suite("RemoteStore over the MockDatastore: writes")
struct RemoteStoreWriteTests {
    @Test("at most 10 batches in flight after the handshake; each acknowledgement lets the next one go")
    func pipeline() throws {
        let h = Harness()
        let ids = try (0..<12).map { try h.write("rooms/r\($0)") }
        try h.run { h.remoteStore.start() }
        #expect(h.datastore.isWriteStreamOpen)
        #expect(h.datastore.sentWrites.count == RemoteStore.maxPendingWrites)
        #expect(h.datastore.writeStreamRequestCount == 1 + 10)
        h.datastore.writeStream?.lastStreamToken = Array("token-1".utf8)
        try h.ackNextWrite(2000)
        #expect(h.syncer.acknowledged == [ids[0]])
        #expect(h.datastore.sentWrites.count == 10)
        #expect(h.datastore.sentWrites.last?.first?.key == (try DocumentKey(parsing: "rooms/r10")))
        #expect(h.store.writeStreamToken(forUser: h.store.currentUser) == Array("token-1".utf8))
    }

    @Test("an empty pipeline lets the write stream go idle: after 60 s it closes with its flush write")
    func writeIdle() throws {
        let h = Harness()
        try h.write("rooms/a")
        try h.run { h.remoteStore.start() }
        try h.ackNextWrite(2000)
        #expect(h.datastore.isWriteStreamOpen && h.datastore.writeStreamRequestCount == 2)
        #expect(h.queue.runDelayed(until: .writeStreamIdle))
        #expect(!h.datastore.isWriteStreamOpen)
        #expect(h.datastore.writeStreamRequestCount == 3)
        try h.write("rooms/b")
        try h.run { h.remoteStore.fillWritePipeline() }
        #expect(h.datastore.isWriteStreamOpen && h.datastore.sentWrites.count == 1)
    }

    @Test("disabling the network sends the flush and forgets the pipeline; enabling resends (3 then 5 requests)")
    func resentAfterDisconnect() throws {
        let h = Harness()
        try h.write("rooms/a")
        try h.run { h.remoteStore.start() }
        #expect(h.datastore.writeStreamRequestCount == 2)
        try h.run { h.remoteStore.disableNetwork() }
        #expect(h.datastore.writeStreamRequestCount == 3)
        #expect(h.datastore.sentWrites.isEmpty && h.remoteStore.writePipeline.isEmpty)
        try h.run { h.remoteStore.enableNetwork() }
        #expect(h.datastore.writeStreamRequestCount == 5)
        #expect(h.datastore.sentWrites.count == 1)
    }

    @Test("a transient error keeps the batch and resends it after the backoff", arguments: [
        FirestoreErrorCode.Code.unavailable, .aborted, .resourceExhausted, .unauthenticated, .internal,
    ])
    func transientError(_ code: FirestoreErrorCode.Code) throws {
        let h = Harness()
        let id = try h.write("rooms/a")
        try h.run { h.remoteStore.start() }
        try h.run { h.datastore.failWriteStream(error: FirestoreErrorCode(code, "try later")) }
        #expect(h.syncer.rejectedWrites.isEmpty)
        #expect(!h.datastore.isWriteStreamOpen)
        #expect(h.queue.runDelayed(until: .writeStreamConnectionBackoff))
        #expect(h.datastore.sentWrites.count == 1)
        try h.ackNextWrite(3000)
        #expect(h.syncer.acknowledged == [id])
    }

    @Test("a permanent error rejects the batch and sends the next one at once", arguments: [
        FirestoreErrorCode.Code.invalidArgument, .notFound, .alreadyExists, .permissionDenied, .failedPrecondition,
        .outOfRange, .unimplemented, .dataLoss,
    ])
    func permanentError(_ code: FirestoreErrorCode.Code) throws {
        let h = Harness()
        let first = try h.write("rooms/a")
        let second = try h.write("rooms/b")
        try h.run { h.remoteStore.start() }
        try h.run { h.datastore.failWriteStream(error: FirestoreErrorCode(code, "bad write")) }
        #expect(h.syncer.rejectedWrites.map(\.0) == [first])
        #expect(h.datastore.isWriteStreamOpen)
        #expect(h.datastore.sentWrites.first?.first?.key == (try DocumentKey(parsing: "rooms/b")))
        try h.ackNextWrite(3000)
        #expect(h.syncer.acknowledged == [second])
    }

    @Test("a handshake failure never rejects the batch; a permanent one forgets the stream token", arguments: [
        (FirestoreErrorCode.Code.invalidArgument, ""), (.unavailable, "old"),
    ])
    func handshakeError(_ code: FirestoreErrorCode.Code, tokenAfter: String) throws {
        let h = Harness()
        try h.store.setWriteStreamToken(Array("old".utf8), forUser: h.store.currentUser)
        try h.write("rooms/a")
        h.datastore.failNextHandshake = FirestoreErrorCode(code, "handshake refused")
        try h.run { h.remoteStore.start() }
        #expect(h.syncer.rejectedWrites.isEmpty)
        #expect((h.store.writeStreamToken(forUser: h.store.currentUser) ?? []) == Array(tokenAfter.utf8))
        #expect(h.datastore.writeStream?.lastStreamToken == Array(tokenAfter.utf8))
        #expect(h.queue.runDelayed(until: .writeStreamConnectionBackoff))
        #expect(h.datastore.sentWrites.count == 1)
    }

    @Test("a credential change restarts both streams and refills the pipeline")
    func credentialChange() throws {
        let h = Harness()
        try h.write("rooms/a")
        try h.run { h.remoteStore.start() }
        try h.run { h.remoteStore.listen(try h.target(2, "rooms")) }
        try h.run { h.remoteStore.handleCredentialChange() }
        #expect(h.datastore.isWatchStreamOpen && h.datastore.isWriteStreamOpen)
        #expect(h.datastore.activeTargets.keys.sorted() == [2])
        #expect(h.datastore.watchStreamRequestCount == 2)
        #expect(h.datastore.writeStreamRequestCount == 2 + 1 + 2)
        #expect(h.datastore.sentWrites.count == 1)
    }
}
