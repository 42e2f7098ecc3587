import CairnTestSupport
import Testing
@testable import SegmentLog

/// One damaged frame costs salvage at most the batches it held: frames that continue a damaged batch are
/// recognised by their missing `first` flag and dropped, and the next frame that starts a batch is kept.
@Suite("Salvage granularity")
struct SalvageGranularityTests {
    /// Frame offsets of a segment, read with the same cursor recovery uses.
    static func frames(_ fs: SimulatedFileSystem, _ path: String) throws -> [(offset: UInt64, header: FrameHeader)] {
        let handle = try fs.open(path, .readOnly)
        defer { try? handle.close() }
        let cursor = FrameCursor(handle: handle, end: try handle.size())
        var found: [(UInt64, FrameHeader)] = []
        while case .frame(let offset, let header, _) = try cursor.next() { found.append((offset, header)) }
        return found
    }

    @Test("a damaged frame inside a large multi-frame batch loses that batch only; the batches after it survive")
    func largeBatch() throws {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.segmentTargetSize = 1 << 20
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        var random = SeededRandom(seed: 77)
        try log.append(kind: 1, key: bytes("before"), value: bytes("kept"))
        var big = WriteBatch()
        for i in 0..<60 { big.append(kind: 2, key: bytes("big\(i)"), value: documentValue(i, size: 300, using: &random)) }
        let bigLocations = try log.commit(big)
        var afterKeys: [String] = []
        for i in 0..<10 {
            var batch = WriteBatch()
            for j in 0..<3 {
                batch.append(kind: 3, key: bytes("after\(i).\(j)"), value: documentValue(i, size: 200, using: &random))
                afterKeys.append("after\(i).\(j)")
            }
            try log.commit(batch)
        }
        try log.sealActiveSegment()
        try log.close()
        let bigFrames = Set(bigLocations.map(\.frameOffset)).sorted()
        try #require(bigFrames.count >= 10, "the batch spans many frames")
        let path = "/db/000000000001.seg"
        var damaged = fs.bytes(of: path)!
        damaged[Int(bigFrames[3]) + SegmentFormat.frameHeaderSize + 5] ^= 0xFF  // a payload byte of a middle frame
        fs.setBytes(damaged, of: path)

        let report = try SegmentLog.salvage(at: "/db", configuration: configuration)
        #expect(report.damage.count == 1)
        let salvaged = try SegmentLog.open(at: "/db", configuration: configuration)
        let keys = try allRecords(salvaged).map { String(decoding: $0.key, as: UTF8.self) }
        try salvaged.close()
        #expect(keys == ["before"] + afterKeys, "the big batch is gone whole, everything around it is kept")
        #expect(report.framesOfUnfinishedBatches == bigFrames.count - 1, "its other frames, and nothing more")
    }

    @Test("a damaged frame of a compaction output loses only the records of that frame")
    func compactionOutput() throws {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.segmentTargetSize = 1 << 20
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        var random = SeededRandom(seed: 78)
        var batch = WriteBatch()
        for i in 0..<200 { batch.append(kind: 1, key: bytes("k\(i)"), value: documentValue(i, size: 150, using: &random)) }
        try log.commit(batch)
        try log.sealActiveSegment()
        let compaction = try log.makeCompaction(of: [1], clusterByKey: true) { _ in true }
        var summary: CompactionSummary?
        while summary == nil { summary = try compaction.step() }
        try log.close()
        let output = SegmentFormat.segmentFileName(summary!.outputs[0])
        let frames = try Self.frames(fs, "/db/" + output)
        try #require(frames.count >= 10)
        #expect(frames.allSatisfy { $0.header.isCommit && $0.header.isFirst }, "compaction outputs are not one atomic batch")
        let victim = frames[frames.count / 2]
        var damaged = fs.bytes(of: "/db/" + output)!
        damaged[Int(victim.offset) + SegmentFormat.frameHeaderSize + 3] ^= 0xFF
        fs.setBytes(damaged, of: "/db/" + output)

        let report = try SegmentLog.salvage(at: "/db", configuration: configuration)
        let salvaged = try SegmentLog.open(at: "/db", configuration: configuration)
        let kept = try allRecords(salvaged)
        try salvaged.close()
        #expect(kept.count == 200 - Int(victim.header.recordCount))
        #expect(report.framesOfUnfinishedBatches == 0)
    }
}
