import CairnTestSupport
import Testing
@testable import SegmentLog

/// Numbers that pass the checksum but cannot be true are refused with a clear error instead of trapping on
/// overflow: the checksums in these tests are recomputed, so each value reaches the code that uses it.
@Suite("Crafted numbers")
struct CraftedNumbersTests {
    /// A log with sealed segment 1 (ten records) and an active segment 2.
    static func log() throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        for i in 0..<10 { try log.append(kind: 1, key: bytes("k\(i)"), value: bytes("value \(i)")) }
        try log.sealActiveSegment()
        try log.append(kind: 1, key: bytes("active"), value: bytes("v"))
        try log.close()
        return fs
    }

    static func rewriteManifest(_ fs: SimulatedFileSystem, _ change: (inout Manifest) -> Void) throws {
        var manifest = try Manifest.read(from: "/db", fileSystem: fs)
        change(&manifest)
        fs.setBytes(manifest.encode(), of: "/db/MANIFEST")
    }

    static func openError(_ fs: SimulatedFileSystem) -> StorageError? {
        do {
            let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
            try? log.close()
            return nil
        } catch {
            return error as? StorageError
        }
    }

    @Test("manifest numbers out of range are corruption, not a trap", arguments: [
        "maxLSN 2^64-1", "minLSN above maxLSN", "lsnFloor 2^64-1", "record count above record bytes", "length 2^64-1",
        "record bytes above 256x the length", "segment id 0",
    ])
    func manifestNumbers(_ case: String) throws {
        let fs = try Self.log()
        try Self.rewriteManifest(fs) { manifest in
            switch `case` {
            case "maxLSN 2^64-1": manifest.entries[0].maxLSN = .max
            case "minLSN above maxLSN": manifest.entries[0].minLSN = manifest.entries[0].maxLSN + 1
            case "lsnFloor 2^64-1": manifest.lsnFloor = .max
            case "record count above record bytes": manifest.entries[0].recordCount = manifest.entries[0].recordBytes
            case "length 2^64-1": manifest.entries[0].length = .max
            case "record bytes above 256x the length": manifest.entries[0].recordBytes = manifest.entries[0].length * 257
            default: manifest.entries[0].id = 0
            }
        }
        let error = try #require(Self.openError(fs), "\(`case`) was accepted")
        #expect(error.code == .corruption, "\(`case`): \(error)")
        #expect(error.message.contains("MANIFEST"), "\(`case`): \(error)")
    }

    @Test("a frame base LSN near 2^64 is damage naming the frame, not a trap")
    func frameBaseLSN() throws {
        let fs = try Self.log()
        let path = "/db/000000000001.seg"
        var segment = fs.bytes(of: path)!
        let frame = SegmentFormat.segmentHeaderSize
        segment.replaceSubrange((frame + 16)..<(frame + 24), with: withUnsafeBytes(of: (UInt64.max - 3).littleEndian, Array.init))
        let crc = Checksum.masked(Array(segment[frame..<(frame + 36)]))
        segment.replaceSubrange((frame + 36)..<(frame + 40), with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        fs.setBytes(segment, of: path)
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        let error = try #require(throws: StorageError.self) { try allRecords(log) }
        #expect(error.code == .corruption && error.message.contains("base LSN"), "\(error)")
        let report = try log.verify()
        #expect(report.damage.first?.offset == UInt64(frame))
        try log.close()
    }

    @Test("more retired records than the manifest's count saturate the live figures at zero")
    func deadAboveCount() throws {
        let fs = try Self.log()
        try Self.rewriteManifest(fs) { manifest in manifest.entries[0].recordCount = 1 }
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        try log.scan { view in if view.location.segment == 1 { log.retire(view.location) } }
        let segment = try #require(log.statistics.segments.first)
        #expect(segment.deadRecordCount == 10 && segment.recordCount == 1)
        #expect(segment.liveRecordCount == 0)
        #expect(log.statistics.liveRecordCount == 1, "only the active segment's record is live")
        let verify = try log.verify()
        #expect(verify.inconsistencies.contains { $0.contains("segment 1 holds 10 records") })
        try log.close()
    }

    @Test("a manifest generation of 2^64-1 (informational) wraps on the next roll and compaction instead of trapping")
    func generationWraps() throws {
        let fs = try Self.log()
        try Self.rewriteManifest(fs) { manifest in manifest.generation = .max }
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        try log.sealActiveSegment()
        let compaction = try log.makeCompaction(of: [1]) { _ in true }
        while try compaction.step() == nil {}
        try log.close()
        #expect(try Manifest.read(from: "/db", fileSystem: fs).generation == 1)
    }

    @Test("the last segment id is refused with an error when a roll needs another, never wrapped")
    func segmentIDsUsedUp() throws {
        let fs = try Self.log()
        try Self.rewriteManifest(fs) { manifest in manifest.nextSegmentID = SegmentFormat.maxSegmentID + 1 }
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        #expect(throws: StorageError.self) { try log.sealActiveSegment() }
        try? log.close()
    }
}
