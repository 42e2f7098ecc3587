import CairnTestSupport
import Testing
@testable import SegmentLog

/// A point read that misses the frame cache decompresses its frame only up to the record it wants.
@Suite("Point reads decode a frame up to their record")
struct PointReadPrefixTests {
    /// A reopened log of 384 compressible records (~200 bytes each) in 8 KiB frames, one segment, and the
    /// location of each, with the frame cache (large enough for every frame) empty.
    static func populatedLog(_ fs: SimulatedFileSystem) throws -> (SegmentLog, [(value: [UInt8], location: RecordLocation)]) {
        var random = SeededRandom(seed: 31)
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.frameTargetSize = 8 << 10
        configuration.segmentTargetSize = 1 << 20
        configuration.frameCacheBytes = 1 << 20
        let writer = try SegmentLog.open(at: "/db", configuration: configuration)
        var written: [(value: [UInt8], location: RecordLocation)] = []
        // A commit's records share frames, so each commit of 32 (~7 KiB) fills one frame.
        for i in 0..<12 {
            var batch = WriteBatch()
            for j in 0..<32 { batch.append(kind: 1, key: bytes("k\(i)-\(j)"), value: documentValue(i * 32 + j, using: &random)) }
            written += zip(batch.values, try writer.commit(batch)).map { ($0, $1) }
        }
        try writer.close()
        return (try SegmentLog.open(at: "/db", configuration: configuration), written)
    }

    @Test("reading a frame's first record caches a prefix of it; a later record decodes further; every value comes back as written")
    func prefixThenFurther() throws {
        let (log, written) = try Self.populatedLog(SimulatedFileSystem())
        let frames = Dictionary(grouping: written.indices) { written[$0].location.frameOffset }
        #expect(frames.values.filter { $0.count >= 20 }.count >= 8, "many frames of many records")
        // The records' encoded sizes add up to the frames' raw payloads.
        let payloadBytes = written.reduce(0) { $0 + Int($1.location.size) }
        for (_, members) in frames {
            let first = try #require(members.min { written[$0].location.index < written[$1].location.index })
            #expect(try log.read(written[first].location).value == written[first].value)
        }
        let prefixes = log.statistics.cachedFrameBytes
        #expect(prefixes < payloadBytes / 4, "\(prefixes) bytes cached for \(payloadBytes) bytes of payload")
        for (_, members) in frames {
            let last = try #require(members.max { written[$0].location.index < written[$1].location.index })
            #expect(try log.read(written[last].location).value == written[last].value)
        }
        #expect(log.statistics.cachedFrameBytes >= payloadBytes, "the frames are whole now")
        var random = SeededRandom(seed: 32)
        for i in written.indices.shuffled(using: &random) {
            #expect(try log.read(written[i].location).value == written[i].value)
        }
        try log.close()
    }

    @Test("records read in random order from a cold cache, mixed with bulk reads of whole frames, come back as written")
    func randomOrderMixedWithBulkReads() throws {
        let (log, written) = try Self.populatedLog(SimulatedFileSystem())
        var random = SeededRandom(seed: 33)
        for (n, i) in written.indices.shuffled(using: &random).enumerated() {
            #expect(try log.read(written[i].location).value == written[i].value)
            if n % 50 == 0 {
                let some = written.indices.shuffled(using: &random).prefix(20).map { written[$0].location }.sorted()
                try log.forEachRecord(at: some) { position, record in
                    #expect(record.location == some[position])
                }
            }
        }
        try log.close()
    }

    @Test("a point read refuses a frame whose payload is damaged past the record it wants: the whole payload's checksum is verified")
    func damagePastTheRecordIsRefused() throws {
        let fs = SimulatedFileSystem()
        let (log, written) = try Self.populatedLog(fs)
        let offsets = Set(written.map(\.location.frameOffset)).sorted()
        let first = try #require(written.first { $0.location.frameOffset == offsets[0] && $0.location.index == 0 })
        let path = "/db/" + SegmentFormat.segmentFileName(first.location.segment)
        var file = try #require(fs.bytes(of: path))
        // The last stored byte of the first frame, far past its first record.
        file[Int(offsets[1]) - 1] ^= 0x5A
        fs.setBytes(file, of: path)
        #expect {
            try log.read(first.location)
        } throws: { error in
            (error as? StorageError)?.code == .corruption
        }
        try log.close()
    }
}
