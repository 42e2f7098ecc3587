import CairnTestSupport
import Testing
@testable import SegmentLog

@Suite("SegmentLog basics")
struct SegmentLogBasicsTests {
    @Test("committed records read back by location and by scan, across reopen")
    func roundTrip() throws {
        let fs = SimulatedFileSystem()
        var random = SeededRandom(seed: 1)
        var expected: [(key: [UInt8], value: [UInt8], location: RecordLocation)] = []
        do {
            let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
            #expect(log.recoveryReport.createdNewLog)
            for i in 0..<300 {
                var batch = WriteBatch()
                for j in 0..<(i % 5 + 1) {
                    batch.append(kind: UInt8(j), key: bytes("k\(i)-\(j)"), value: documentValue(i, using: &random))
                }
                let locations = try log.commit(batch)
                #expect(locations.count == batch.count)
                for (n, location) in locations.enumerated() {
                    expected.append((batch.keys[n], batch.values[n], location))
                }
            }
            for item in expected {
                let record = try log.read(item.location)
                #expect(record.key == item.key && record.value == item.value)
            }
            #expect(log.statistics.segments.count > 3, "small segments should have rolled")
            try log.close()
        }
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        #expect(!log.recoveryReport.createdNewLog)
        #expect(log.recoveryReport.truncatedBytes == 0)
        let records = try allRecords(log)
        #expect(records.map(\.key) == expected.map(\.key))
        #expect(records.map(\.value) == expected.map(\.value))
        #expect(records.map(\.location) == expected.map(\.location))
        #expect(records.map(\.lsn) == Array(1...UInt64(expected.count)))
        for item in expected.shuffled(using: &random).prefix(100) {
            #expect(try log.read(item.location).value == item.value)
        }
        // New records continue the sequence.
        let next = try log.append(kind: 9, key: bytes("after"), value: bytes("reopen"))
        #expect(try log.read(next).lsn == UInt64(expected.count + 1))
        try log.close()
    }

    @Test("the same works on the real file system, with preallocation and default sizes")
    func posixRoundTrip() throws {
        let dir = TemporaryDirectory()
        var random = SeededRandom(seed: 2)
        var values: [[UInt8]] = []
        do {
            let log = try SegmentLog.open(at: dir.path)
            for start in stride(from: 0, to: 500, by: 50) {
                var batch = WriteBatch()
                for i in start..<(start + 50) {
                    let value = documentValue(i, size: 1000, using: &random)
                    values.append(value)
                    batch.append(kind: 1, key: bytes("doc/\(i)"), value: value)
                }
                try log.commit(batch)
            }
            try log.append(kind: 2, key: bytes("single"), value: bytes("durable commit of one record"))
            values.append(bytes("durable commit of one record"))
            try log.close()
        }
        let log = try SegmentLog.open(at: dir.path)
        #expect(log.recoveryReport.truncatedBytes == 0)
        #expect(try allRecords(log).map(\.value) == values)
        let stats = log.statistics
        #expect(stats.recordCount == 501)
        // 1.9 with the default 8 KiB frames (2.1 with 16 KiB): these values' random tags compress less than documents.
        #expect(stats.segments[0].compressionRatio > 1.7, "batched JSON-like values should compress")
        try log.close()
    }

    @Test("empty keys, oversized keys and oversized records are refused with invalidArgument, nothing written")
    func badInput() throws {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        func expectInvalid(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("expected invalidArgument")
            } catch let error as StorageError {
                #expect(error.code == .invalidArgument)
                #expect(!error.message.isEmpty)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        expectInvalid { try log.append(kind: 1, key: [], value: [1]) }
        expectInvalid { try log.append(kind: 1, key: [UInt8](repeating: 1, count: 70_000), value: []) }
        expectInvalid { try log.append(kind: 1, key: [1], value: [UInt8](repeating: 0, count: 17 << 20)) }
        var batch = WriteBatch()
        batch.append(kind: 1, key: [1], value: [1])
        batch.append(kind: 1, key: [], value: [1])
        expectInvalid { try log.commit(batch) }
        #expect(try allRecords(log).isEmpty)
        #expect(log.statistics.nextLSN == 1)
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.frameTargetSize = 10
        #expect(throws: StorageError.self) { try SegmentLog.open(at: "/other", configuration: configuration) }
    }

    @Test("a second opener gets locked, naming the holder, and nothing is touched")
    func locked() throws {
        let dir = TemporaryDirectory()
        let log = try SegmentLog.open(at: dir.path)
        try log.append(kind: 1, key: [1], value: [2])
        do {
            _ = try SegmentLog.open(at: dir.path)
            Issue.record("second open succeeded")
        } catch let error as StorageError {
            #expect(error.code == .locked)
            #expect(error.message.contains("pid"))
        }
        try log.close()
        let again = try SegmentLog.open(at: dir.path)
        #expect(try allRecords(again).count == 1)
        try again.close()
    }

    @Test("a directory holding other files is not a log; an empty one becomes one")
    func notALog() throws {
        let fs = SimulatedFileSystem()
        try fs.createDirectory(at: "/photos")
        fs.setBytes(bytes("jpeg"), of: "/photos/cat.jpg")
        #expect {
            try SegmentLog.open(at: "/photos", configuration: .small(fs))
        } throws: { ($0 as? StorageError)?.code == .notALog }
        fs.setBytes(bytes("garbage that is not a manifest"), of: "/bad/MANIFEST")
        #expect {
            try SegmentLog.open(at: "/bad", configuration: .small(fs))
        } throws: { ($0 as? StorageError)?.code == .notALog }
    }

    @Test("a manifest from a newer format version is refused with formatVersion, not misread")
    func newerFormat() throws {
        let fs = SimulatedFileSystem()
        try SegmentLog.open(at: "/db", configuration: .small(fs)).close()
        var manifest = try Manifest.read(from: "/db", fileSystem: fs)
        manifest.generation += 1
        var encoded = manifest.encode()
        encoded[8] = 3  // format version 3
        encoded.removeLast(4)
        encoded.appendLE(Checksum.masked(encoded))
        fs.setBytes(encoded, of: "/db/MANIFEST")
        #expect {
            try SegmentLog.open(at: "/db", configuration: .small(fs))
        } throws: { ($0 as? StorageError)?.code == .formatVersion }
    }

    @Test("a truncated manifest is reported as corruption")
    func truncatedManifest() throws {
        let fs = SimulatedFileSystem()
        try SegmentLog.open(at: "/db", configuration: .small(fs)).close()
        let manifest = fs.bytes(of: "/db/MANIFEST")!
        fs.setBytes(Array(manifest.dropLast(7)), of: "/db/MANIFEST")
        #expect {
            try SegmentLog.open(at: "/db", configuration: .small(fs))
        } throws: { ($0 as? StorageError)?.code == .corruption }
    }

    @Test("a segment file that is not a segment is refused as corruption")
    func foreignSegment() throws {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        try log.append(kind: 1, key: [1], value: [1])
        try log.close()
        fs.setBytes([UInt8](repeating: 0x41, count: 100), of: "/db/000000000001.seg")
        #expect {
            try SegmentLog.open(at: "/db", configuration: .small(fs))
        } throws: { ($0 as? StorageError)?.code == .corruption }
    }
}
