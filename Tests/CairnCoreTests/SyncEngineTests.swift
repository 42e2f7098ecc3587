import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
import Testing
@testable import CairnCore

@Suite("SyncEngine: writes, rejections, limbo documents and users")
struct SyncEngineTests {
    typealias F = CoreFixtures

    @Test("a write shows at once as pending; the acknowledgement completes it; the server's echo settles it")
    func writeAndAcknowledge() throws {
        let harness = SyncEngineHarness()
        let targetID = try harness.listen(F.rooms)
        harness.write(.set(F.key("rooms/a"), value: ObjectValue(["n": .integer(1)])))
        let pending = try #require(harness.snapshots.last)
        #expect(pending.hasPendingWrites)
        #expect(pending.documents.document(F.key("rooms/a"))?.hasLocalMutations == true)
        #expect(harness.writeResults.isEmpty)
        try harness.acknowledgeNextBatch(version: 10)
        #expect(harness.writeResults.count == 1)
        #expect(harness.writeResults[0].error == nil)
        // Until the watch stream sends the written version, the view keeps the pending write.
        #expect(harness.snapshots.last?.hasPendingWrites == true)
        let snapshotCount = harness.snapshots.count
        harness.serverSends([F.document("rooms/a", version: 10, ["n": .integer(1)])], to: targetID, version: 10)
        #expect(harness.snapshots.count == snapshotCount + 1)
        let settled = try #require(harness.snapshots.last)
        #expect(!settled.isFromCache)
        #expect(!settled.hasPendingWrites)
        #expect(settled.documentChanges.map(\.kind) == [.metadata])
    }

    @Test("a rejected write is rolled back in the views and its completion gets the error")
    func rejection() throws {
        let harness = SyncEngineHarness()
        try harness.listen(F.rooms)
        harness.write(.set(F.key("rooms/a"), value: ObjectValue()))
        let batchID = try #require(harness.localStore.highestUnacknowledgedBatchID)
        let denied = FirestoreErrorCode(.permissionDenied, "no")
        harness.run { harness.syncEngine.rejectFailedWrite(batchID: batchID, error: denied) }
        #expect(harness.writeResults.map(\.error) == [denied])
        let rolledBack = try #require(harness.snapshots.last)
        #expect(rolledBack.documents.isEmpty)
        #expect(rolledBack.documentChanges.map(\.kind) == [.removed])
    }

    @Test("a document the target drops while the cache still matches it goes to limbo, within the concurrency limit")
    func limboResolutionLimit() throws {
        let harness = SyncEngineHarness(maxConcurrentLimboResolutions: 1)
        let targetID = try harness.listen(F.rooms)
        let docs = ["rooms/a", "rooms/b", "rooms/c"].map { F.document($0, version: 1) }
        harness.serverSends(docs, to: targetID, version: 1)
        #expect(harness.snapshots.last?.isFromCache == false)
        // The target loses b and c without saying they were deleted: they are in limbo.
        harness.serverSends([], to: targetID, version: 2, removed: [docs[1].key, docs[2].key])
        #expect(harness.syncEngine.activeLimboDocuments.keys.sorted() == [docs[1].key])
        #expect(harness.syncEngine.activeLimboDocuments[docs[1].key] == 1)
        #expect(harness.syncEngine.enqueuedLimboDocuments == [docs[2].key])
        #expect(harness.snapshots.last?.isFromCache == true)
        // The limbo target says b is gone: c's resolution starts on the next odd target id.
        let gone = TargetChange(current: true)
        let event = RemoteEvent(
            snapshotVersion: CairnModel.Timestamp(seconds: 3, nanoseconds: 0), targetChanges: [1: gone],
            documentUpdates: [docs[1].key: Document(key: docs[1].key, state: .noDocument, version: CairnModel.Timestamp(seconds: 3, nanoseconds: 0))])
        harness.run { harness.syncEngine.applyRemoteEvent(event) }
        #expect(harness.syncEngine.activeLimboDocuments == [docs[2].key: 3])
        #expect(harness.syncEngine.enqueuedLimboDocuments.isEmpty)
        #expect(harness.snapshots.last?.documents.contains(docs[1].key) == false)
    }

    @Test("each user has their own outbox: switching users switches the pending writes the views show")
    func userChange() throws {
        let harness = SyncEngineHarness()
        try harness.listen(F.rooms)
        harness.write(.set(F.key("rooms/mine"), value: ObjectValue()))
        harness.run { harness.syncEngine.handleCredentialChange(User(uid: "other")) }
        #expect(harness.snapshots.last?.documents.isEmpty == true)
        #expect(harness.localStore.pendingBatchIDs.isEmpty)
        harness.run { harness.syncEngine.handleCredentialChange(.unauthenticated) }
        #expect(harness.snapshots.last?.documents.keys == [F.key("rooms/mine")])
        #expect(harness.snapshots.last?.hasPendingWrites == true)
    }

    @Test("waitForPendingWrites completes when the writes pending at the call are acknowledged; a user change cancels it")
    func pendingWritesCallbacks() throws {
        let harness = SyncEngineHarness()
        var results: [FirestoreErrorCode?] = []
        harness.run { harness.syncEngine.registerPendingWritesCallback { results.append($0) } }
        #expect(results.count == 1)
        harness.write(.set(F.key("rooms/a"), value: ObjectValue()))
        harness.run { harness.syncEngine.registerPendingWritesCallback { results.append($0) } }
        #expect(results.count == 1)
        try harness.acknowledgeNextBatch(version: 5)
        #expect(results.count == 2)
        harness.write(.set(F.key("rooms/b"), value: ObjectValue()))
        harness.run { harness.syncEngine.registerPendingWritesCallback { results.append($0) } }
        harness.run { harness.syncEngine.handleCredentialChange(User(uid: "other")) }
        #expect(results.count == 3)
        #expect(results.last??.code == .cancelled)
    }
}
