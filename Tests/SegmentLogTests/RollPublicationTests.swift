import CairnTestSupport
import Foundation
import Synchronization
import Testing
@testable import SegmentLog

/// Segment rolls publish on the log's publisher queue: the committing thread creates the next segment and goes
/// on; the sealed segment's sync and the manifest naming the new one come later, and a commit is reported
/// durable only once they are done (FORMAT.md §9.2).
@Suite("SegmentLog: roll publication")
struct RollPublicationTests {
    /// 60 records of 500 bytes LZ4 cannot squeeze: several 8 KiB segments.
    static func commitRecords(_ log: SegmentLog, from start: Int = 0, count: Int = 60) throws {
        for i in start..<(start + count) {
            var random = SeededRandom(seed: UInt64(i))
            try log.append(kind: 1, key: bytes("key-\(i)"), value: (0..<500).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
    }

    static func keys(_ log: SegmentLog) throws -> [String] {
        try allRecords(log).map { String(decoding: $0.key, as: UTF8.self) }
    }

    @Test("Segment rolls and sealing sync nothing on the committing thread, and a sync behind the commits makes them durable")
    func rollsDoNotSyncOnTheCommittingThread() throws {
        let disk = SimulatedFileSystem()
        let fs = ThreadRecordingFileSystem(base: disk, slowOtherThreadsMicroseconds: 2000)
        let log = try SegmentLog.open(at: "/log", configuration: .small(fs, durability: .none))
        let opened = fs.onOwnerThread
        try Self.commitRecords(log)
        #expect(log.statistics.segments.count >= 4, "the commits rolled segments")
        try log.append(kind: 1, key: bytes("last"), value: bytes("sealed on request"))
        #expect(try log.sealActiveSegment() != nil)
        #expect(Array(fs.onOwnerThread.dropFirst(opened.count)) == [], "no sync, truncation or manifest switch on the committing thread")
        #expect(try Self.keys(log).count == 61, "every record reads back meanwhile")

        #expect(try log.syncBehindCommits() == log.nextLSN)
        let image = try SegmentLog.open(at: "/log", configuration: .small(disk.crashImage(.dropUnsyncedData, seed: 1)))
        #expect(try Self.keys(image) == (0..<60).map { "key-\($0)" } + ["last"], "after the sync behind the commits, a power loss keeps them all")
        #expect(image.statistics.segments.count == log.statistics.segments.count, "the manifest names every segment")
        try image.close()
        try log.close()
    }

    @Test("A durable commit in a segment a roll started returns only once a manifest on disk names that segment")
    func durableCommitWaitsForItsRoll() throws {
        let disk = SimulatedFileSystem()
        // The publisher's syncs are slow, so a commit that did not wait for its roll's publication would be lost.
        let fs = ThreadRecordingFileSystem(base: disk, slowOtherThreadsMicroseconds: 20_000)
        let log = try SegmentLog.open(at: "/log", configuration: .small(fs, durability: .full))
        var segments = 1
        for i in 0..<40 {
            try Self.commitRecords(log, from: i, count: 1)
            let image = try SegmentLog.open(at: "/log", configuration: .small(disk.crashImage(.dropUnsyncedData, seed: UInt64(i))))
            #expect(try Self.keys(image) == (0...i).map { "key-\($0)" }, "a power loss after commit \(i) returned keeps it")
            try image.close()
            segments = log.statistics.segments.count
        }
        #expect(segments >= 3, "the commits rolled segments")
        try log.close()
    }

    @Test("A compaction deletes its inputs off the caller's thread")
    func compactionDeletesInputsOnThePublisherQueue() throws {
        let disk = SimulatedFileSystem()
        let fs = ThreadRecordingFileSystem(base: disk)
        let log = try SegmentLog.open(at: "/log", configuration: .small(fs, durability: .none))
        try Self.commitRecords(log)
        try Self.commitRecords(log)  // the same keys again: the first copies are dead
        var latest: [String: RecordLocation] = [:]
        try log.scan { record in
            let key = String(decoding: record.key, as: UTF8.self)
            if let old = latest[key] { log.retire(old) }
            latest[key] = record.location
        }
        let victims = log.compactionCandidates(minimumDeadRatio: 0.5)
        try #require(!victims.isEmpty)
        let before = fs.onOwnerThread.count
        let compaction = try log.makeCompaction(of: victims) { _ in true }
        var summary: CompactionSummary?
        while summary == nil { summary = try compaction.step() }
        #expect(!fs.onOwnerThread.dropFirst(before).contains("remove"), "the inputs were not deleted on the caller's thread")
        try log.close()
        for id in victims {
            #expect(try !disk.exists("/log/" + SegmentFormat.segmentFileName(id)), "input \(id) is deleted by close")
        }
    }
}
