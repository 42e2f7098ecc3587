import CairnModel
import CairnTestSupport
import Foundation
import SegmentLog
import Synchronization
import Testing
@testable import CairnLocalStore

/// Group commit (Docs/LocalStore.md §10): an append returns once it is in the operating system and the sync
/// runs behind it; the syncs report how far the cache is durable, and a failed one is reported, never silent.
@Suite("LocalStore: group commit behind the appends")
struct GroupCommitTests: MutationQueueTesting {
    /// Polls `condition` (the background sync runs on its own thread) for up to 60 s.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<6000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test("A write returns while the sync behind it is held, and becomes durable when the sync ends")
    func writeDoesNotWaitForTheSync() async throws {
        let fs = SyncGateFileSystem(SimulatedFileSystem())
        var configuration = smallLog(SimulatedFileSystem())
        configuration.fileSystem = fs
        let store = try LocalStore.open(at: "/cache", configuration: configuration, syncing: .behindAppends)
        let reports = Mutex<[UInt64]>([])
        store.onDurabilityChange { result in
            if case .success(let durable) = result { reports.withLock { $0.append(durable) } }
        }
        fs.hold()
        let syncsBefore = fs.syncsCompleted
        let written = try store.writeLocally([setData("rooms/a", ["n": .integer(1)])], localWriteTime: time(100))
        #expect(written.changed[key("rooms/a")]??.data == object(["n": .integer(1)]), "the change is there to show")
        #expect(fs.syncsCompleted == syncsBefore, "nothing waited for a sync")
        #expect(fs.heldTooLong == 0)
        #expect(!store.isBatchDurable(written.batchID), "not durable yet: not to be sent")
        #expect(fs.awaitWaitingSync(), "the sync behind the write is waiting at the gate")
        // A second write while the first sync is held does not wait either; it shares the next sync.
        let second = try store.writeLocally([setData("rooms/b", [:])], localWriteTime: time(101))
        #expect(fs.syncsCompleted == syncsBefore)
        fs.release()
        #expect(try await eventually { store.isBatchDurable(written.batchID) && store.isBatchDurable(second.batchID) })
        #expect(fs.heldTooLong == 0)
        #expect(try await eventually { reports.withLock { $0.last } == store.durableSequence }, "the handler heard the sync")
        try store.close()
    }

    /// The workload of the crash sweep: the client core's order. A write goes to the server only after the sync
    /// behind it (`sync`), so its acknowledgement always follows a sync that covered it.
    var steps: [(name: String, durable: Bool, run: (LocalStore) throws -> Void)] {
        [
            ("cache rooms/b", false, { try $0.applyRemoteDocuments([found("rooms/b", version: 5, ["n": .integer(1)])]) }),
            ("write batch 1", false, { _ = try $0.writeLocally([setData("rooms/a", ["n": .integer(1)])], localWriteTime: time(100)) }),
            ("sync (batch 1 may be sent)", true, { try $0.syncAppends() }),
            ("acknowledge batch 1", false, { try $0.acknowledgeBatch(acknowledgement(try $0.nextMutationBatch(after: nil)!, at: 200)) }),
            ("write batch 2", false, {
                _ = try $0.writeLocally([updateData("rooms/b", [:], transforms: [increment("n", by: .integer(2))])], localWriteTime: time(101))
            }),
            ("write batch 3", false, { _ = try $0.writeLocally([setData("rooms/c", ["x": .integer(3)])], localWriteTime: time(102)) }),
            ("sync (batches 2 and 3 may be sent)", true, { try $0.syncAppends() }),
            ("acknowledge batch 2", false, { try $0.acknowledgeBatch(acknowledgement(try $0.nextMutationBatch(after: nil)!, at: 201)) }),
            ("reject batch 3", false, { _ = try $0.rejectBatch(3) }),
            ("write batch 4", false, { _ = try $0.writeLocally([updateData("rooms/c", ["x": .integer(4)])], localWriteTime: time(103)) }),
        ]
    }

    func snapshot(_ store: LocalStore) throws -> [String] {
        let keys = [key("rooms/a"), key("rooms/b"), key("rooms/c")]
        return ["pending \(store.pendingBatchIDs)"]
            + (try keys.map { "local " + describe(try store.localDocument($0)) })
            + (try keys.map { "remote " + describe(try store.remoteDocument($0)) })
    }

    @Test("A crash at any I/O operation keeps every acknowledged write and loses only a suffix of the appends after the last sync")
    func crashKeepsAcknowledgedWritesAndLosesOnlyASuffix() throws {
        let model = keepingMemoryStore()
        var expected = [try snapshot(model)]
        for step in steps {
            try step.run(model)
            expected.append(try snapshot(model))
        }
        let open = { (fs: SimulatedFileSystem) in try LocalStore.open(at: "/cache", configuration: smallLog(fs), syncing: .onRequest) }
        let clean = SimulatedFileSystem()
        let cleanStore = try open(clean)
        for step in steps { try step.run(cleanStore) }
        #expect(try snapshot(cleanStore) == expected.last!)
        let operations = clean.operationCount

        // Every step up to the last sync that returned survives, and what survives is a prefix of the steps: an
        // acknowledged write (batch 1, acknowledged by step 4 after the sync of step 3) is therefore never lost.
        let workload = steps
        let report = try CrashSweep.run(
            steps: workload.map { (name: $0.name, run: $0.run) }, expected: expected, operations: operations,
            open: open, describe: snapshot, afterRecovery: { try $0.close() }, isDurable: { workload[$0].durable })
        #expect(report.problems == [])
        #expect(report.outcomes.contains("deferred lost"), "some crash images lost the appends after the last sync (a power loss)")
    }

    @Test("A failed sync is reported, the batch it did not cover is never durable, and later writes fail")
    func failedSyncIsReported() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs), syncing: .onRequest)
        let failures = Mutex<[String]>([])
        store.onDurabilityChange { result in
            if case .failure(let error) = result { failures.withLock { $0.append(error.message) } }
        }
        let written = try store.writeLocally([setData("rooms/a", [:])], localWriteTime: time(100))
        fs.injectFault(.failSyncs(count: 1))
        #expect(throws: LocalStoreError.self) { try store.syncAppends() }
        #expect(failures.withLock { $0.count } == 1, "the handler heard the failure")
        #expect(store.durabilityFailure != nil)
        #expect(!store.isBatchDurable(written.batchID), "never sent")
        #expect(throws: LocalStoreError.self, "the log is poisoned: no write is taken any more") {
            try store.writeLocally([setData("rooms/b", [:])], localWriteTime: time(101))
        }
        #expect(throws: LocalStoreError.self, "a later sync reports the failure again") { try store.syncAppends() }
        try? store.close()
    }
}
