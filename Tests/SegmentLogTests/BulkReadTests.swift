import CairnTestSupport
import Testing
@testable import SegmentLog

/// Reading many records by location (`forEachRecord(at:fillCache:)`), as a cache's scan does.
@Suite("SegmentLog bulk reads by location")
struct BulkReadTests {
    /// A reopened log of 400 records (~200 bytes each, 1 KiB frames) and their locations, so the frame cache
    /// (large enough for every frame) starts empty.
    func populatedLog(_ fs: SimulatedFileSystem) throws -> (SegmentLog, [(value: [UInt8], location: RecordLocation)]) {
        var random = SeededRandom(seed: 11)
        var written: [(value: [UInt8], location: RecordLocation)] = []
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.frameCacheBytes = 1 << 20
        let writer = try SegmentLog.open(at: "/db", configuration: configuration)
        for i in 0..<100 {
            var batch = WriteBatch()
            for j in 0..<4 { batch.append(kind: 1, key: bytes("k\(i)-\(j)"), value: documentValue(i * 4 + j, using: &random)) }
            written += zip(batch.values, try writer.commit(batch)).map { ($0, $1) }
        }
        try writer.close()
        return (try SegmentLog.open(at: "/db", configuration: configuration), written)
    }

    @Test("records come back in place with their positions; sorted locations fetch each frame once and leave the cache as it was")
    func logOrderWithoutFillingTheCache() throws {
        let (log, written) = try populatedLog(SimulatedFileSystem())
        var random = SeededRandom(seed: 12)
        let wanted = written.indices.shuffled(using: &random).prefix(150).sorted { written[$0].location < written[$1].location }
        let locations = wanted.map { written[$0].location }
        let frames = Set(locations.map { [$0.segment, $0.frameOffset] }).count
        #expect(frames > 10 && frames < locations.count, "several records to a frame, many frames")
        let before = log.statistics
        var seen: [Int] = []
        try log.forEachRecord(at: locations, fillCache: false) { position, record in
            seen.append(position)
            #expect(Array(record.value) == written[wanted[position]].value && record.location == locations[position])
        }
        let after = log.statistics
        #expect(seen == Array(locations.indices))
        #expect(after.cacheHits + after.cacheMisses - before.cacheHits - before.cacheMisses == frames, "one lookup per frame")
        #expect(after.cachedFrameBytes == before.cachedFrameBytes, "fillCache false keeps the cache as it was")
        // Filling the cache, the same read leaves every frame cached: a second read hits only.
        try log.forEachRecord(at: locations) { _, _ in }
        let filled = log.statistics
        try log.forEachRecord(at: locations) { _, _ in }
        #expect(log.statistics.cacheMisses == filled.cacheMisses && filled.cachedFrameBytes > after.cachedFrameBytes)
        try log.close()
    }

    @Test("a location past its frame's records is notFound, from withRecord and forEachRecord alike")
    func badLocation() throws {
        let (log, written) = try populatedLog(SimulatedFileSystem())
        var bad = written[5].location
        bad.index = 500
        #expect(try log.withRecord(at: written[5].location) { Array($0.value) } == written[5].value)
        for read in [{ _ = try log.withRecord(at: bad) { $0.lsn } }, { try log.forEachRecord(at: [written[4].location, bad]) { _, _ in } }] {
            let error = #expect(throws: StorageError.self) { try read() }
            #expect(error?.code == .notFound)
        }
        try log.close()
    }
}
