import CairnTestSupport
import Testing
@testable import SegmentLog

@Suite("Sealing the active segment")
struct SealActiveSegmentTests {
    /// A log with the default 64 MiB segments: nothing rolls by itself in these tests.
    func configuration(_ fs: SimulatedFileSystem) -> SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.fileSystem = fs
        return configuration
    }

    @Test("sealing makes the active segment compactable; records, order and retirements survive a reopen")
    func sealThenCompact() throws {
        let fs = SimulatedFileSystem()
        var random = SeededRandom(seed: 5)
        let log = try SegmentLog.open(at: "/db", configuration: configuration(fs))
        #expect(try log.sealActiveSegment() == nil, "an empty active segment is not sealed")
        var locations: [RecordLocation] = []
        for i in 0..<200 { locations.append(try log.append(kind: 1, key: bytes("k\(i)"), value: documentValue(i, using: &random))) }
        for (i, location) in locations.enumerated() where i % 2 == 0 { log.retire(location) }
        #expect(log.compactionCandidates(minimumDeadRatio: 0.01).isEmpty, "the active segment is never a candidate")
        let active = log.statistics.segments.filter(\.isActive)
        let activeID = try #require(active.first).id
        let sealed = try log.sealActiveSegment()
        #expect(sealed == activeID)
        let segments = log.statistics.segments
        #expect(segments.count == 2 && segments.filter(\.isActive).count == 1 && !segments[0].isActive)
        #expect(try log.sealActiveSegment() == nil, "the new active segment holds nothing yet")
        #expect(log.compactionCandidates(minimumDeadRatio: 0.01) == [activeID])
        let before = log.statistics.fileBytes
        let compaction = try log.makeCompaction(of: [activeID]) { _ in true }
        while try compaction.step() == nil {}
        #expect(log.statistics.fileBytes < before)
        let survivors = try allRecords(log).map(\.key)
        let expected = (0..<200).filter { $0 % 2 != 0 }.map { bytes("k\($0)") }
        #expect(survivors == expected)
        let later = try log.append(kind: 1, key: bytes("later"), value: bytes("v"))
        #expect(later.segment != activeID)
        try log.close()
        let reopened = try SegmentLog.open(at: "/db", configuration: configuration(fs))
        #expect(try allRecords(reopened).map(\.key) == expected + [bytes("later")])
        try reopened.close()
    }

    @Test("a read-only log refuses to seal")
    func readOnly() throws {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/db", configuration: configuration(fs))
        try log.append(kind: 1, key: bytes("a"), value: bytes("b"))
        try log.close()
        var readOnly = configuration(fs)
        readOnly.readOnly = true
        let reader = try SegmentLog.open(at: "/db", configuration: readOnly)
        #expect(throws: StorageError.self) { try reader.sealActiveSegment() }
        try reader.close()
    }

    @Test("a failed sync while publishing a seal poisons the log: no later sync may report the lost bytes as durable")
    func failedSyncPoisons() throws {
        let fs = SimulatedFileSystem()
        var configuration = configuration(fs)
        configuration.durability = .none
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        try log.append(kind: 1, key: bytes("a"), value: bytes("unsynced"))
        fs.injectFault(.failSyncs(count: 1))
        // Sealing syncs nothing itself; the publisher queue's sync of the sealed segment fails.
        #expect(try log.sealActiveSegment() == 1)
        let error = #expect(throws: StorageError.self, "the next sync must not succeed") { try log.syncBehindCommits() }
        #expect(error?.code == .poisoned)
        #expect(throws: StorageError.self, "no commit after a failed sync") {
            try log.append(kind: 1, key: bytes("b"), value: bytes("second"))
        }
    }
}
