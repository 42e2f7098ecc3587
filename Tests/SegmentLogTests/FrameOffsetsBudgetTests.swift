import CairnTestSupport
import Testing
@testable import SegmentLog

/// Where scanned segments' frames start (FrameOffsets.swift) is memory the frame cache's budget pays for: at most
/// half of it, frames evicted to make room, and given back when compaction removes a segment.
@Suite("Frame offsets: bounded by the frame cache's budget")
struct FrameOffsetsBudgetTests {
    /// A log of `batches` commits of three ~300-byte records in 1 KiB frames and 8 KiB segments, reopened with
    /// a frame cache of `cacheBytes`, and what was written.
    static func reopenedLog(
        _ fs: SimulatedFileSystem, batches: Int, cacheBytes: Int
    ) throws -> (log: SegmentLog, written: [(value: [UInt8], location: RecordLocation)]) {
        var random = SeededRandom(seed: 71)
        var configuration = SegmentLog.Configuration.small(fs, durability: .none)
        let writer = try SegmentLog.open(at: "/db", configuration: configuration)
        var written: [(value: [UInt8], location: RecordLocation)] = []
        for start in stride(from: 0, to: batches * 3, by: 3) {
            var batch = WriteBatch()
            for i in start..<(start + 3) { batch.append(kind: 1, key: bytes("doc/\(i)"), value: documentValue(i, size: 300, using: &random)) }
            written += zip(batch.values, try writer.commit(batch)).map { ($0, $1) }
        }
        try writer.close()
        configuration.frameCacheBytes = cacheBytes
        return (try SegmentLog.open(at: "/db", configuration: configuration), written)
    }

    /// The offsets' bytes each segment holds, summed.
    static func heldOffsetBytes(_ log: SegmentLog) -> Int {
        log.state.withLock { state in state.segments.values.reduce(0) { $0 + $1.frameOffsets.memoryCost } }
    }

    @Test("a scan keeps frame offsets only while they fit in half the frame cache's budget, and frames and offsets together stay within it")
    func offsetsStayWithinHalfTheBudget() throws {
        let fs = SimulatedFileSystem(seed: 71)
        let capacity = 4 << 10
        let (log, written) = try Self.reopenedLog(fs, batches: 1500, cacheBytes: capacity)
        let frames = Set(written.map { [$0.location.segment, $0.location.frameOffset] }).count
        #expect(frames * 4 > capacity, "\(frames) frames: their offsets do not all fit in half of \(capacity) bytes")
        var scanned = 0
        try log.scan { _ in scanned += 1 }
        #expect(scanned == written.count)
        let afterScan = log.statistics
        #expect(afterScan.frameOffsetBytes > 0, "the first segments' offsets are kept")
        #expect(afterScan.frameOffsetBytes <= capacity / 2, "\(afterScan.frameOffsetBytes) bytes of offsets")
        #expect(afterScan.frameOffsetBytes == Self.heldOffsetBytes(log), "the budget counts exactly what the segments hold")
        let segmentsWithout = log.state.withLock { state in state.segments.values.filter { $0.frameOffsets.end == 0 }.count }
        #expect(segmentsWithout > 0, "the later segments' offsets did not fit")
        // Every record reads back, whether its segment's frame sizes are known or guessed.
        for (value, location) in written {
            #expect(try log.read(location).value == value)
            let statistics = log.statistics
            #expect(statistics.cachedFrameBytes + statistics.frameOffsetBytes <= capacity)
        }
        try log.close()
    }

    @Test("compaction gives the removed segments' frame offsets back to the budget")
    func compactionReleasesOffsets() throws {
        let fs = SimulatedFileSystem(seed: 72)
        let (log, written) = try Self.reopenedLog(fs, batches: 200, cacheBytes: 64 << 10)
        try log.scan { _ in }
        let before = log.statistics.frameOffsetBytes
        #expect(before > 0 && before == Self.heldOffsetBytes(log))
        let sealed = log.statistics.segments.filter { !$0.isActive }.map(\.id)
        try #require(sealed.count >= 4)
        let compaction = try log.makeCompaction(of: Array(sealed.prefix(3))) { _ in true }
        while try compaction.step() == nil {}
        let after = log.statistics.frameOffsetBytes
        #expect(after < before, "the inputs' offsets are given back")
        #expect(after == Self.heldOffsetBytes(log), "the budget counts exactly what the remaining segments hold")
        var moved = 0
        try log.scan { _ in moved += 1 }
        #expect(moved == written.count)
        #expect(log.statistics.frameOffsetBytes == Self.heldOffsetBytes(log), "the outputs' offsets, noted by the scan, are counted too")
        try log.close()
    }

    @Test("a segment scanned again after appends replaces its offsets, and the budget counts the difference")
    func rescanAfterAppendsReplacesOffsets() throws {
        let fs = SimulatedFileSystem(seed: 73)
        var (log, written) = try Self.reopenedLog(fs, batches: 20, cacheBytes: 64 << 10)
        try log.scan { _ in }
        let segments = log.statistics.segments
        let active = try #require(segments.first { $0.isActive }).id
        let before = log.state.withLock { $0.segments[active]!.frameOffsets.end }
        #expect(before > 0 && log.statistics.frameOffsetBytes == Self.heldOffsetBytes(log))
        var random = SeededRandom(seed: 74)
        var batch = WriteBatch()
        for i in 0..<2 { batch.append(kind: 1, key: bytes("more/\(i)"), value: documentValue(i, size: 300, using: &random)) }
        written += zip(batch.values, try log.commit(batch)).map { ($0, $1) }
        try #require(written.suffix(2).allSatisfy { $0.location.segment == active }, "the appends stay in the active segment")
        try log.scan { _ in }
        let after = log.state.withLock { $0.segments[active]!.frameOffsets.end }
        #expect(after > before, "the second scan's offsets reach the appended frames")
        #expect(log.statistics.frameOffsetBytes == Self.heldOffsetBytes(log), "the budget counts exactly what the segments hold")
        for (value, location) in written { #expect(try log.read(location).value == value) }
        try log.close()
    }
}
