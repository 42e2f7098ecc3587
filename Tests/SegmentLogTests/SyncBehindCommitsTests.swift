import CairnTestSupport
import Dispatch
import Synchronization
import Testing
@testable import SegmentLog

/// `syncBehindCommits()`: the cache's group commit syncs behind its commits without holding them up.
@Suite("SegmentLog: sync behind commits")
struct SyncBehindCommitsTests {
    @Test("A commit goes through while a sync behind the commits is held, and a later sync covers it")
    func commitsDoNotWaitForTheSync() throws {
        let disk = SimulatedFileSystem()
        let fs = SyncGateFileSystem(disk)
        let log = try SegmentLog.open(at: "/log", configuration: .small(fs, durability: .none))
        try log.append(kind: 1, key: bytes("a"), value: bytes("first"))
        let afterFirst = log.nextLSN
        fs.hold()
        let result = Mutex<Result<UInt64, StorageError>?>(nil)
        let syncer = DispatchGroup()
        DispatchQueue.global().async(group: syncer) {
            let outcome = Result { try log.syncBehindCommits() }.mapError { $0 as! StorageError }
            result.withLock { $0 = outcome }
        }
        #expect(fs.awaitWaitingSync(), "the sync waits at the gate")
        try log.append(kind: 1, key: bytes("b"), value: bytes("second"))
        let afterSecond = log.nextLSN
        #expect(result.withLock { $0 } == nil, "the commit returned while the sync was held")
        #expect(fs.heldTooLong == 0)
        fs.release()
        syncer.wait()
        #expect(try result.withLock { $0 }?.get() == afterFirst, "the held sync covered the first commit only")

        // What it reported is durable: a power loss now keeps the first commit (the file's sync, like
        // fdatasync, may have taken the second along: the bound it returns is a lower one).
        let image = try SegmentLog.open(at: "/log", configuration: .small(disk.crashImage(.dropUnsyncedData, seed: 1)))
        #expect(try allRecords(image).map { String(decoding: $0.key, as: UTF8.self) }.first == "a")
        try image.close()
        #expect(try log.syncBehindCommits() == afterSecond)
        let kept = try SegmentLog.open(at: "/log", configuration: .small(disk.crashImage(.dropUnsyncedData, seed: 2)))
        #expect(try allRecords(kept).map { String(decoding: $0.key, as: UTF8.self) } == ["a", "b"])
        try kept.close()
        try log.close()
    }

    @Test("A failed sync behind the commits poisons the log and says so")
    func failedSyncPoisons() throws {
        let disk = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/log", configuration: .small(disk, durability: .none))
        try log.append(kind: 1, key: bytes("a"), value: bytes("first"))
        disk.injectFault(.failSyncs(count: 1))
        let error = #expect(throws: StorageError.self) { try log.syncBehindCommits() }
        #expect(error?.code == .poisoned)
        #expect(throws: StorageError.self, "no commit after a failed sync") {
            try log.append(kind: 1, key: bytes("b"), value: bytes("second"))
        }
    }
}
