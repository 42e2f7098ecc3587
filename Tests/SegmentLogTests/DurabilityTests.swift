import CairnTestSupport
import Foundation
import Synchronization
import Testing
@testable import SegmentLog

/// A test-only ``FileSystem`` around ``SimulatedFileSystem`` that counts file syncs, can make each sync
/// take a while (so concurrent commits pile up behind it), and can fail the n-th write from now with ENOSPC
/// without writing anything (the simulated file system's own faults always hit the very next write).
fileprivate final class InstrumentedFileSystem: ForwardingFileSystem, @unchecked Sendable {
    /// The simulated file system underneath (`base`), for crash images and its own faults.
    let simulated: SimulatedFileSystem
    let syncDelayMicroseconds: UInt32
    private let counters = Mutex(Counters())

    struct Counters {
        var syncs = 0
        var writes = 0
        /// The value of `writes` at which a write fails.
        var failingWrite: Int?
    }

    init(base: SimulatedFileSystem = SimulatedFileSystem(), syncDelayMicroseconds: UInt32 = 0) {
        simulated = base
        self.syncDelayMicroseconds = syncDelayMicroseconds
        super.init(base: base)
    }

    /// File syncs so far (directory syncs are not counted).
    var syncCount: Int { counters.withLock { $0.syncs } }

    /// Writes `skipping` writes normally, then fails the next one with ENOSPC, writing nothing.
    func failWrite(skipping: Int) {
        counters.withLock { $0.failingWrite = $0.writes + skipping + 1 }
    }

    func noteSync() {
        counters.withLock { $0.syncs += 1 }
        if syncDelayMicroseconds > 0 { usleep(syncDelayMicroseconds) }
    }

    func noteWrite(path: String, offset: UInt64) throws {
        try counters.withLock { counters in
            counters.writes += 1
            if counters.writes == counters.failingWrite {
                counters.failingWrite = nil
                throw StorageError(.io, "instrumented fault: no space left", path: path, offset: offset, errno: ENOSPC)
            }
        }
    }

    override func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile {
        InstrumentedFile(base: try base.open(path, mode), path: path, owner: self)
    }
}

fileprivate final class InstrumentedFile: ForwardingStorageFile, @unchecked Sendable {
    let path: String
    let owner: InstrumentedFileSystem

    init(base: any StorageFile, path: String, owner: InstrumentedFileSystem) {
        self.path = path
        self.owner = owner
        super.init(base: base)
    }

    override func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try owner.noteWrite(path: path, offset: offset)
        try base.write(bytes, at: offset)
    }
    override func sync() throws {
        owner.noteSync()
        try base.sync()
    }
}

/// Runs `body(index)` on `count` threads at once and waits for all of them.
fileprivate func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// Sleeps the thread until `instant`.
fileprivate func sleep(until instant: ContinuousClock.Instant) {
    let remaining = instant - ContinuousClock.now
    guard remaining > .zero else { return }
    Thread.sleep(forTimeInterval: Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18)
}

/// Expects `body` to throw a ``StorageError`` with `code`.
func expectStorageError(
    _ code: StorageError.Code, _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("\(what): expected \(code), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as StorageError {
        #expect(error.code == code, "\(what): \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(what): expected a StorageError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// What a commit should look like when read back.
fileprivate struct CommittedRecord: Equatable, CustomStringConvertible {
    var kind: UInt8
    var key: [UInt8]
    var value: [UInt8]

    init(kind: UInt8, key: [UInt8], value: [UInt8]) {
        self.kind = kind
        self.key = key
        self.value = value
    }

    init(_ record: Record) { self.init(kind: record.kind, key: record.key, value: record.value) }

    var description: String { String(decoding: key, as: UTF8.self) }
}

fileprivate func batchOf(_ records: [CommittedRecord]) -> WriteBatch {
    var batch = WriteBatch()
    for record in records { batch.append(kind: record.kind, key: record.key, value: record.value) }
    return batch
}

/// The content of a log in scan order, without LSNs and locations.
fileprivate func contents(_ log: SegmentLog) throws -> [CommittedRecord] {
    try allRecords(log).map(CommittedRecord.init)
}

/// What each durability mode promises when a commit returns, group commit, and what failed syncs, failed
/// writes and close() do to the writer.
@Suite("Durability")
struct DurabilityTests {
    /// `count` batches of one to three records keyed `prefix-i.j`, with document-like values of about 150 bytes.
    fileprivate static func batches(_ prefix: String, _ count: Int, seed: UInt64) -> [[CommittedRecord]] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { i in
            (0..<(1 + i % 3)).map { j in
                CommittedRecord(kind: UInt8(j), key: bytes("\(prefix)-\(i).\(j)"), value: documentValue(i, size: 150, using: &random))
            }
        }
    }

    static func open(_ fs: any FileSystem, _ durability: Durability = .full) throws -> SegmentLog {
        try SegmentLog.open(at: "/db", configuration: .small(fs, durability: durability))
    }

    @Test("with .full, every commit that returned survives a power loss, whatever the disk kept of unsynced data")
    func fullSurvivesPowerLoss() throws {
        let fs = SimulatedFileSystem()
        let log = try Self.open(fs)
        let all = Self.batches("full", 120, seed: 1)
        for (n, batch) in all.enumerated() {
            try log.commit(batchOf(batch))
            if n % 40 == 39 {
                // A power cut right after this commit returned, under every model of unsynced data.
                let expected = Array(all[0...n].joined())
                for model in CrashModel.allCases {
                    let image = fs.crashImage(model, seed: UInt64(n))
                    let recovered = try Self.open(image)
                    #expect(try contents(recovered) == expected, "after commit \(n), crash model \(model)")
                    try recovered.close()
                }
            }
        }
        #expect(log.statistics.segments.count > 2, "the commits crossed segment rolls")
        try log.close()
    }

    @Test("group commit: concurrent durable committers all succeed and share far fewer syncs than commits")
    func groupCommit() throws {
        let fs = InstrumentedFileSystem(syncDelayMicroseconds: 1000)
        var configuration = SegmentLog.Configuration.small(fs, durability: .full)
        configuration.segmentTargetSize = 16 << 20  // no segment rolls: every sync counted is a commit's
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        let syncsBefore = fs.syncCount
        let threads = 16
        let perThread = 25
        final class Results: Sendable {
            let locations = Mutex<[String: RecordLocation]>([:])
            let failures = Mutex<[String]>([])
        }
        let results = Results()
        onThreads(threads) { t in
            for i in 0..<perThread {
                let key = "t\(t)/\(i)"
                do {
                    let location = try log.append(kind: UInt8(t), key: bytes(key), value: bytes("value of \(key)"))
                    results.locations.withLock { $0[key] = location }
                } catch {
                    results.failures.withLock { $0.append("\(key): \(error)") }
                }
            }
        }
        let commits = threads * perThread
        let syncs = fs.syncCount - syncsBefore
        #expect(results.failures.withLock { $0 } == [])
        let locations = results.locations.withLock { $0 }
        #expect(locations.count == commits)
        for (key, location) in locations {
            let record = try log.read(location)
            #expect(record.key == bytes(key) && record.value == bytes("value of \(key)"), "\(key) at \(location)")
        }
        let records = try allRecords(log)
        #expect(records.count == commits)
        #expect(records.map(\.lsn) == Array(1...UInt64(commits)), "LSNs are dense and in scan order")
        #expect(Set(records.map(\.location)) == Set(locations.values))
        // Grouped or not, each of them was durable when it returned.
        let recovered = try Self.open(fs.simulated.crashImage(.dropUnsyncedData, seed: 1))
        #expect(try allRecords(recovered).count == commits, "every acknowledged commit survives a power loss")
        try recovered.close()
        print("group commit: \(commits) durable commits from \(threads) threads took \(syncs) syncs")
        #expect(syncs >= 1)
        #expect(syncs * 3 <= commits, "\(syncs) syncs for \(commits) commits: commits were not grouped")
        try log.close()
    }

    @Test(".normal: a commit becomes durable without any further commit, by the background flusher")
    func normalFlusher() throws {
        let fs = SimulatedFileSystem()
        let log = try Self.open(fs, .normal(maxDelay: .milliseconds(20)))
        let first = Self.batches("normal", 5, seed: 3)
        for batch in first { try log.commit(batchOf(batch)) }
        // A process crash (the page cache survives) loses nothing, even before any sync.
        let processCrash = try Self.open(fs.crashImage(.keepUnsyncedData, seed: 1))
        #expect(try contents(processCrash) == Array(first.joined()))
        try processCrash.close()
        Thread.sleep(forTimeInterval: 0.2)
        let image = fs.crashImage(.dropUnsyncedData, seed: 2)
        let recovered = try Self.open(image)
        #expect(try contents(recovered) == Array(first.joined()), "the flusher synced within ~maxDelay")
        try recovered.close()
        try log.close()
    }

    @Test(".normal: a commit right after an inline sync is still synced within maxDelay")
    func normalBoundAfterInlineSync() throws {
        // Flusher wake-ups come every maxDelay from open: ~200, ~400, ~600 ms. A commit at ~300 ms syncs
        // inline (the last sync is older than maxDelay). A commit right after it is not due, so it waits for
        // the flusher; the documented bound says it is durable by ~500 ms.
        let delay = Duration.milliseconds(200)
        let fs = SimulatedFileSystem()
        let opened = ContinuousClock.now
        let log = try Self.open(fs, .normal(maxDelay: delay))
        sleep(until: opened + .milliseconds(300))
        try log.append(kind: 1, key: bytes("a"), value: bytes("synced inline"))
        #expect(!log.state.withLock { $0.hasUnsyncedWrites }, "the first commit after maxDelay synced inline")
        try log.append(kind: 1, key: bytes("b"), value: bytes("waits for the flusher"))
        let committed = ContinuousClock.now
        #expect(log.state.withLock { $0.hasUnsyncedWrites }, "the second commit is left to the flusher")
        sleep(until: committed + delay + .milliseconds(80))
        let recovered = try Self.open(fs.crashImage(.dropUnsyncedData, seed: 1))
        let keys = try contents(recovered).map(\.description)
        #expect(keys == ["a", "b"], "\(ContinuousClock.now - committed) after the commit, maxDelay \(delay), the disk holds \(keys)")
        try recovered.close()
        try log.close()
    }

    @Test(".none: commits are not synced, a power loss leaves a clean prefix of batches, and sync() makes them durable")
    func noneDurability() throws {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs, durability: .none)
        configuration.segmentTargetSize = 1 << 20  // no rolls: rolls sync
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        let all = Self.batches("none", 40, seed: 4)
        for batch in all { try log.commit(batchOf(batch)) }
        #expect(try contents(log) == Array(all.joined()), "the running log sees every commit")

        let lost = try SegmentLog.open(at: "/db", configuration: .small(fs.crashImage(.dropUnsyncedData, seed: 1)))
        #expect(try allRecords(lost).isEmpty, "nothing was synced, so nothing survives dropping unsynced data")
        try lost.close()

        // Whatever part of the unsynced writes survives, it is whole batches from the start.
        for seed: UInt64 in 1...12 {
            let model: CrashModel = seed % 2 == 0 ? .randomPrefix : .randomPages
            let recovered = try SegmentLog.open(at: "/db", configuration: .small(fs.crashImage(model, seed: seed)))
            let found = try contents(recovered)
            let batchEnds = Set(all.indices.map { all[0...$0].reduce(0) { $0 + $1.count } } + [0])
            let matched = batchEnds.contains(found.count) && found == Array(all.joined().prefix(found.count))
            #expect(matched, "seed \(seed), \(model): \(found.count) records are not a prefix of whole batches")
            try recovered.close()
        }

        try log.sync()
        let synced = try SegmentLog.open(at: "/db", configuration: .small(fs.crashImage(.dropUnsyncedData, seed: 2)))
        #expect(try contents(synced) == Array(all.joined()), "sync() made every commit durable")
        try synced.close()
        try log.close()
    }

    @Test("a failed sync poisons the log: that commit and every later one throw .poisoned; reopening keeps every acknowledged commit")
    func failedSyncPoisons() throws {
        let fs = SimulatedFileSystem()
        let log = try Self.open(fs)
        let acknowledged = Self.batches("ack", 30, seed: 5)
        var locations: [RecordLocation] = []
        for batch in acknowledged { locations += try log.commit(batchOf(batch)) }
        let sealed = try #require(log.statistics.segments.first { !$0.isActive }?.id)

        let failed = [CommittedRecord(kind: 1, key: bytes("failed"), value: bytes("its sync failed"))]
        // The fault hits the next sync: let the publisher queue's roll publications finish first.
        log.publisher.sync {}
        fs.injectFault(.failSyncs(count: 1))
        expectStorageError(.poisoned, "the commit whose sync failed") { try log.commit(batchOf(failed)) }
        // The fault is used up; the log stays poisoned anyway.
        expectStorageError(.poisoned, "a later commit") { try log.append(kind: 1, key: bytes("later"), value: []) }
        expectStorageError(.poisoned, "a later batch") { try log.commit(batchOf(failed)) }
        expectStorageError(.poisoned, "sync") { try log.sync() }
        expectStorageError(.poisoned, "compaction") { _ = try log.makeCompaction(of: [sealed]) { _ in true } }

        // Earlier records still read (or would fail with a clean error).
        let flat = Array(acknowledged.joined())
        for (record, location) in zip(flat, locations) {
            do {
                #expect(CommittedRecord(try log.read(location)) == record)
            } catch let error as StorageError {
                #expect(error.code != .corruption, "reading \(record) after the failed sync: \(error)")
            }
        }

        // A power loss now: the acknowledged commits are durable; the failed one, if anywhere, is whole.
        for model in CrashModel.allCases {
            let recovered = try Self.open(fs.crashImage(model, seed: 3))
            let found = try contents(recovered)
            #expect(found == flat || found == flat + failed, "crash model \(model): \(found.count) records")
            try recovered.close()
        }
        // Close (it does not try to sync, and reports the poison) and reopen the same disk.
        expectStorageError(.poisoned, "close") { try log.close() }
        let reopened = try Self.open(fs)
        let found = try contents(reopened)
        #expect(found == flat || found == flat + failed, "after close and reopen: \(found.count) records")
        let next = try reopened.append(kind: 1, key: bytes("after"), value: bytes("reopen"))
        #expect(try reopened.read(next).key == bytes("after"), "the reopened log accepts commits")
        try reopened.close()
    }

    @Test("a failed write fails only its commit with .io; the next commit succeeds; the failed batch never appears")
    func failedWriteIsNotFatal() throws {
        let fs = SimulatedFileSystem()
        let log = try Self.open(fs)
        var random = SeededRandom(seed: 6)
        var successful: [CommittedRecord] = []
        var failedCount = 0
        for round in 0..<40 {
            // Some ordinary commits, then one whose write fails in a random way.
            for i in 0..<Int(random.next() % 3) {
                let batch = [CommittedRecord(kind: 1, key: bytes("ok-\(round).\(i)"), value: documentValue(round, size: 100, using: &random))]
                try log.commit(batchOf(batch))
                successful += batch
            }
            let doomed = (0..<(1 + Int(random.next() % 4))).map { j in
                CommittedRecord(kind: 2, key: bytes("failed-\(round).\(j)"), value: documentValue(round, size: 50 + Int(random.next() % 900), using: &random))
            }
            // The fault hits the next write: let the publisher queue's roll publications finish first.
            log.publisher.sync {}
            if round % 2 == 0 {
                fs.injectFault(.failWrites(count: 1))
            } else {
                fs.injectFault(.shortWrite(keeping: round % 4 == 1 ? 10 : Int(random.next() % 200)))
            }
            expectStorageError(.io, "round \(round): the commit whose write failed") { try log.commit(batchOf(doomed)) }
            failedCount += 1
            let next = [CommittedRecord(kind: 3, key: bytes("next-\(round)"), value: documentValue(round, size: 80, using: &random))]
            let location = try log.commit(batchOf(next))
            #expect(CommittedRecord(try log.read(location[0])) == next[0], "round \(round): the next commit reads back")
            successful += next
        }
        #expect(try contents(log) == successful, "the running log holds exactly the successful commits")
        #expect(log.statistics.recordCount == UInt64(successful.count))
        #expect(log.statistics.segments.count >= 2, "the rounds crossed a segment roll")

        for model in CrashModel.allCases {
            let recovered = try Self.open(fs.crashImage(model, seed: 7))
            #expect(try contents(recovered) == successful, "power loss, crash model \(model)")
            try recovered.close()
        }
        try log.close()
        let reopened = try Self.open(fs)
        #expect(try contents(reopened) == successful, "after close and reopen")
        #expect(reopened.recoveryReport.recordCount == UInt64(successful.count))
        try reopened.close()
        #expect(failedCount == 40)
    }

    @Test("a batch whose commit failed with .io never reappears after a crash, not even its later frames")
    func failedBatchNeverResurrects() throws {
        // Compression off and incompressible values make frame sizes exact: a 900-byte record fills a frame.
        let fs = InstrumentedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs, durability: .full)
        configuration.compression = false
        configuration.segmentTargetSize = 1 << 20
        configuration.preallocationSize = 1024
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        var random = SeededRandom(seed: 8)
        func value() -> [UInt8] { (0..<900).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        let before = [CommittedRecord(kind: 1, key: bytes("before"), value: bytes("a small first record"))]
        try log.commit(batchOf(before))

        // Two records that do not fit one frame: frame A (no commit flag) and frame B (commit flag).
        let doomed = [CommittedRecord(kind: 2, key: bytes("doomed-1"), value: value()),
                      CommittedRecord(kind: 2, key: bytes("doomed-2"), value: value())]
        // Every byte of both frames reaches the file, then the write reports failure (disk full).
        fs.simulated.injectFault(.shortWrite(keeping: Int.max))
        expectStorageError(.io, "the commit whose write failed") { try log.commit(batchOf(doomed)) }
        #expect(try contents(log) == before, "nothing of the failed batch is visible")

        // The next commit is one record of the same shape as doomed-1, so its frame is exactly as long as
        // frame A and ends where frame B of the failed batch begins.
        let next = [CommittedRecord(kind: 2, key: bytes("replace-"), value: value())]
        try log.commit(batchOf(next))
        #expect(try contents(log) == before + next)

        // Power loss (or a process crash) before anything else is written.
        for model in [CrashModel.dropUnsyncedData, .keepUnsyncedData] {
            let recovered = try SegmentLog.open(at: "/db", configuration: .small(fs.simulated.crashImage(model, seed: 1)))
            let found = try contents(recovered)
            #expect(found == before + next, "crash model \(model): recovered \(found)")
            try recovered.close()
        }
        try log.close()
    }

    @Test("a failed zero-fill of the preallocation does not fail the commit; the record survives a crash")
    func failedPreallocationIsHarmless() throws {
        let fs = InstrumentedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs, durability: .full)
        configuration.preallocationSize = 1024
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        let first = [CommittedRecord(kind: 1, key: bytes("first"), value: [UInt8](repeating: 7, count: 3000))]
        fs.failWrite(skipping: 1)  // the data write succeeds, the zero-fill after it fails
        try log.commit(batchOf(first))
        let second = [CommittedRecord(kind: 1, key: bytes("second"), value: bytes("after"))]
        try log.commit(batchOf(second))
        let recovered = try SegmentLog.open(at: "/db", configuration: .small(fs.simulated.crashImage(.dropUnsyncedData, seed: 3)))
        #expect(try contents(recovered) == first + second)
        try recovered.close()
        try log.close()
    }

    @Test("close() finishes the log: every later call throws .closed, and closing again is harmless")
    func closedLog() throws {
        let fs = SimulatedFileSystem()
        let log = try Self.open(fs)
        var locations: [RecordLocation] = []
        for batch in Self.batches("c", 40, seed: 9) { locations += try log.commit(batchOf(batch)) }
        let sealed = try #require(log.statistics.segments.first { !$0.isActive }?.id)
        try log.close()
        expectStorageError(.closed, "commit") { try log.commit(batchOf([CommittedRecord(kind: 1, key: [1], value: [2])])) }
        expectStorageError(.closed, "append") { try log.append(kind: 1, key: [1], value: [2]) }
        expectStorageError(.closed, "sync") { try log.sync() }
        expectStorageError(.closed, "read") { _ = try log.read(locations[0]) }
        expectStorageError(.closed, "read of the newest record") { _ = try log.read(locations.last!) }
        expectStorageError(.closed, "scan") { try log.scan { _ in } }
        expectStorageError(.closed, "makeCompaction") { _ = try log.makeCompaction(of: [sealed]) { _ in true } }
        try log.close()
        // The lock is released: the log opens again with everything in it.
        let reopened = try Self.open(fs)
        #expect(try allRecords(reopened).count == locations.count)
        try reopened.close()
    }

    @Test("close() whose sync fails still closes: it throws, releases the directory lock, and the log reopens with every commit acknowledged before")
    func closeAfterAFailedSyncStillCloses() throws {
        let fs = SimulatedFileSystem()
        let log = try Self.open(fs, .none)
        let written = Self.batches("w", 20, seed: 11)
        for batch in written { try log.commit(batchOf(batch)) }
        try log.sync()
        try log.append(kind: 1, key: bytes("unsynced"), value: bytes("its sync at close fails"))
        // The fault hits the next sync: let the publisher queue's roll publications finish first.
        log.publisher.sync {}
        fs.injectFault(.failSyncs(count: 1))
        #expect(throws: StorageError.self, "the failed sync is reported") { try log.close() }
        expectStorageError(.closed, "the log is closed all the same") { try log.append(kind: 1, key: bytes("after"), value: []) }

        // Same process, same directory: the lock was released.
        let reopened = try Self.open(fs)
        let keys = Set(try allRecords(reopened).map { String(decoding: $0.key, as: UTF8.self) })
        #expect(keys.isSuperset(of: written.joined().map { String(decoding: $0.key, as: UTF8.self) }), "every commit synced before is there")
        try reopened.close()
    }
}
