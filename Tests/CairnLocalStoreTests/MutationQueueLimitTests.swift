import CairnModel
import SegmentLog
import Testing
@testable import CairnLocalStore

/// What `writeLocally` refuses before anything is queued: writes whose local result exceeds Firestore's
/// document size, and batches too large for one record of the log.
@Suite("MutationQueue: writes the outbox refuses")
struct MutationQueueLimitTests: MutationQueueTesting {
    @Test("an update that grows a cached document past 1 MiB is invalidArgument and queues nothing",
          arguments: StoreMode.allCases)
    func resultOverOneMiB(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        // rooms/a: name 6 + 2 + 16 = 24; field "a" 2 + 600,001; 32 → 600,059 bytes.
        let stored = ["a": Value.string(String(repeating: "a", count: 600_000))]
        try store.applyRemoteDocuments([found("rooms/a", version: 5, stored)])
        // "b": 2 + (448,515 + 1) more → 1,048,577 bytes, one over the limit.
        let grow = updateData("rooms/a", ["b": .string(String(repeating: "b", count: 448_515))])
        do {
            try store.writeLocally([grow], localWriteTime: time(100))
            Issue.record("a write growing rooms/a past 1 MiB was queued")
        } catch let error as LocalStoreError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(
                "Document 'rooms/a' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed "
                    + "size of 1,048,576 bytes."), "\(error.message)")
        }
        #expect(store.pendingBatchIDs.isEmpty)
        #expect(try store.localDocument(key("rooms/a"))?.data == object(stored))
        // One byte less fits, and is queued.
        try store.writeLocally(
            [updateData("rooms/a", ["b": .string(String(repeating: "b", count: 448_514))])], localWriteTime: time(101))
        #expect(store.pendingBatchIDs.count == 1)
    }

    @Test("a set and an update of the same document in one batch are measured together")
    func batchResult() throws {
        let store = try RestartableStore(.memory).store
        let half = Value.string(String(repeating: "h", count: 600_000))
        #expect(throws: LocalStoreError.self) {
            try store.writeLocally([setData("rooms/a", ["a": half]), updateData("rooms/a", ["b": half])], localWriteTime: time(100))
        }
        #expect(store.pendingBatchIDs.isEmpty)
    }

    @Test("a batch larger than one log record is invalidArgument saying to split it, not a storage failure")
    func batchTooLargeForTheLog() throws {
        let store = try RestartableStore(.persistent).store
        let value = Value.string(String(repeating: "v", count: 1_000_000))
        let writes = (0..<18).map { setData("rooms/r\($0)", ["v": value]) }  // 18 MB > the 16 MiB record limit
        do {
            try store.writeLocally(writes, localWriteTime: time(100))
            Issue.record("an 18 MB batch was queued")
        } catch let error as LocalStoreError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("This write batch is too large to store"), "\(error.message)")
        }
        #expect(store.pendingBatchIDs.isEmpty)
    }
}
