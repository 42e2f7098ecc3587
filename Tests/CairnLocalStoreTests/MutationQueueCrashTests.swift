import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("MutationQueue: crash consistency")
struct MutationQueueCrashTests: MutationQueueTesting {
    let keys = [key("rooms/a"), key("rooms/b"), key("rooms/c")]

    /// A small scripted workload: every kind of outbox operation, each one atomic append.
    var steps: [(name: String, run: (LocalStore) throws -> Void)] {
        [
            ("cache rooms/b", { try $0.applyRemoteDocuments([found("rooms/b", version: 5, ["n": .integer(1)])]) }),
            ("write batch 1", { _ = try $0.writeLocally([setData("rooms/a", ["n": .integer(1)])], localWriteTime: time(100)) }),
            ("write batch 2", {
                _ = try $0.writeLocally(
                    [updateData("rooms/b", [:], transforms: [increment("n", by: .integer(2))]), mergeData("rooms/a", ["m": .integer(2)])],
                    localWriteTime: time(101))
            }),
            ("acknowledge batch 1", { try $0.acknowledgeBatch(acknowledgement(try $0.nextMutationBatch(after: nil)!, at: 200)) }),
            ("write batch 3", { _ = try $0.writeLocally([.delete(key("rooms/b")), setData("rooms/c", [:])], localWriteTime: time(102)) }),
            ("reject batch 2", { try $0.rejectBatch(2) }),
            ("acknowledge batch 3", { try $0.acknowledgeBatch(acknowledgement(try $0.nextMutationBatch(after: nil)!, at: 201)) }),
            ("write batch 4", { _ = try $0.writeLocally([updateData("rooms/c", ["x": .integer(4)])], localWriteTime: time(103)) }),
        ]
    }

    /// What the outbox and the documents look like: pending ids, next id, local and remote views.
    func snapshot(_ store: LocalStore) throws -> [String] {
        ["pending \(store.pendingBatchIDs), next \(store.mutationQueue.nextBatchID ?? 0)"]
            + (try keys.map { "local " + describe(try store.localDocument($0)) })
            + (try keys.map { "remote " + describe(try store.remoteDocument($0)) })
    }

    @Test("a crash at any I/O operation of writes, acknowledgements and rejections leaves each one whole or absent")
    func crashAtEveryOperation() throws {
        // The state after each prefix of the workload, from a memory cache.
        let model = keepingMemoryStore()
        var expected = [try snapshot(model)]
        for step in steps {
            try step.run(model)
            expected.append(try snapshot(model))
        }
        let clean = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(clean))
        for step in steps { try step.run(store) }
        #expect(try snapshot(store) == expected.last!)
        let operations = clean.operationCount

        let report = try CrashSweep.run(
            steps: steps, expected: expected, operations: operations,
            open: { try LocalStore.open(at: "/cache", configuration: smallLog($0)) },
            describe: snapshot,
            afterRecovery: { recovered in
                // The recovered cache keeps working, with a fresh batch id.
                let next = recovered.mutationQueue.nextBatchID
                #expect(try recovered.writeLocally([setData("rooms/z", [:])], localWriteTime: time(999)).batchID == next)
                try recovered.close()
            })
        #expect(report.problems == [])
        #expect(report.outcomes == ["whole", "absent"], "some crashes kept the interrupted step, others lost it")
        #expect(report.interrupted.isSuperset(of: 0..<steps.count), "the crash points interrupt every step")
    }
}
