import CairnTestSupport
import Testing
@testable import SegmentLog

/// Every log has a random id in its manifest and every segment header, so a segment copied in from another
/// log is caught instead of being replayed as if it belonged.
@Suite("Cache identity")
struct CacheIdentityTests {
    /// Two logs with one sealed segment each (segment 1) and an active segment 2.
    static func twoLogs() throws -> SimulatedFileSystem {
        let fs = SimulatedFileSystem()
        for directory in ["/mine", "/other"] {
            let log = try SegmentLog.open(at: directory, configuration: .small(fs))
            try log.append(kind: 1, key: bytes("\(directory)/a"), value: bytes("1"))
            try log.sealActiveSegment()
            try log.append(kind: 1, key: bytes("\(directory)/b"), value: bytes("2"))
            try log.close()
        }
        return fs
    }

    static func cacheID(_ fs: SimulatedFileSystem, _ directory: String) throws -> UInt64 {
        try Manifest.read(from: directory, fileSystem: fs).cacheID
    }

    @Test("new logs get different non-zero cache ids, written into the manifest and every segment header")
    func idsDiffer() throws {
        let fs = try Self.twoLogs()
        let mine = try Self.cacheID(fs, "/mine")
        let other = try Self.cacheID(fs, "/other")
        #expect(mine != 0 && other != 0 && mine != other)
        for name in fs.fileNames(in: "/mine") where name.hasSuffix(".seg") {
            let header = Array(fs.bytes(of: "/mine/" + name)!.prefix(SegmentFormat.segmentHeaderSize))
            #expect(try SegmentFormat.checkSegmentHeader(header, id: SegmentFormat.segmentID(fromFileName: name)!, cacheID: nil, path: name) == mine)
        }
    }

    @Test("a segment copied in from another log is corruption naming it; salvage skips it and keeps the rest")
    func foreignSegment() throws {
        let fs = try Self.twoLogs()
        let before = fs.bytes(of: "/mine/000000000001.seg")!
        fs.setBytes(fs.bytes(of: "/other/000000000001.seg")!, of: "/mine/000000000001.seg")
        let error = try #require(throws: StorageError.self) { try SegmentLog.open(at: "/mine", configuration: .small(fs)) }
        #expect(error.code == .corruption)
        #expect(error.message.contains("segment 1") && error.message.contains("another log"), "\(error)")
        #expect(error.offset == 16)

        let report = try SegmentLog.salvage(at: "/mine", configuration: .small(fs))
        #expect(report.damage.contains { $0.segment == 1 && $0.problem.contains("another log") })
        let log = try SegmentLog.open(at: "/mine", configuration: .small(fs))
        let keys = try allRecords(log).map { String(decoding: $0.key, as: UTF8.self) }
        try log.close()
        #expect(keys == ["/mine/b"], "the foreign records never enter the log")
        #expect(before != fs.bytes(of: "/other/000000000001.seg"))
    }

    @Test("without a manifest, salvage takes the id most segments carry and skips the stranger")
    func salvageWithoutManifest() throws {
        let fs = try Self.twoLogs()
        let mine = try Self.cacheID(fs, "/mine")
        // A third segment of this log, then the other log's segment 1 copied in as segment 9.
        let log = try SegmentLog.open(at: "/mine", configuration: .small(fs))
        try log.sealActiveSegment()
        try log.append(kind: 1, key: bytes("/mine/c"), value: bytes("3"))
        try log.close()
        var foreign = fs.bytes(of: "/other/000000000001.seg")!
        foreign.replaceSubrange(0..<SegmentFormat.segmentHeaderSize, with: SegmentFormat.encodeSegmentHeader(id: 9, cacheID: try Self.cacheID(fs, "/other")))
        fs.setBytes(foreign, of: "/mine/000000000009.seg")
        try fs.removeFile(at: "/mine/MANIFEST")

        let report = try SegmentLog.salvage(at: "/mine", configuration: .small(fs))
        #expect(report.manifestWasUnreadable)
        #expect(report.damage.contains { $0.segment == 9 })
        #expect(try Self.cacheID(fs, "/mine") == mine, "the salvaged log keeps its identity")
        let salvaged = try SegmentLog.open(at: "/mine", configuration: .small(fs))
        let keys = try allRecords(salvaged).map { String(decoding: $0.key, as: UTF8.self) }
        try salvaged.close()
        #expect(keys == ["/mine/a", "/mine/b", "/mine/c"])
    }
}
