import CairnTestSupport
import Testing
@testable import SegmentLog

/// Damage in sealed segments is always detected and reported with its segment and offset: never a crash,
/// never silently wrong data. Salvage keeps every intact frame.
@Suite("Corruption")
struct CorruptionTests {
    /// A log whose segment 1 is sealed, plus the original files and records.
    struct Fixture {
        let files: [String: [UInt8]]
        let records: [Record]
        let sealed: String = "/db/000000000001.seg"

        init() throws {
            let fs = SimulatedFileSystem()
            var configuration = SegmentLog.Configuration.small(fs)
            configuration.segmentTargetSize = 6000
            let log = try SegmentLog.open(at: "/db", configuration: configuration)
            var random = SeededRandom(seed: 5)
            for i in 0..<40 {
                var batch = WriteBatch()
                for j in 0..<3 {
                    batch.append(kind: 1, key: bytes("k\(i).\(j)"), value: documentValue(i * 3 + j, size: 120, using: &random))
                }
                try log.commit(batch)
            }
            precondition(log.statistics.segments.count >= 2, "segment 1 must be sealed")
            try log.close()
            var files: [String: [UInt8]] = [:]
            for name in fs.fileNames(in: "/db") { files["/db/" + name] = fs.bytes(of: "/db/" + name) }
            self.files = files
            let reopened = try SegmentLog.open(at: "/db", configuration: .small(fs))
            records = try allRecords(reopened)
            try reopened.close()
        }

        func fileSystem(replacing path: String, with bytes: [UInt8]) -> SimulatedFileSystem {
            let fs = SimulatedFileSystem()
            for (name, content) in files { fs.setBytes(name == path ? bytes : content, of: name) }
            return fs
        }
    }

    /// Opens and scans; returns the corruption error, or nil when everything read back identical.
    func readBack(_ fs: SimulatedFileSystem, expected: [Record]) throws -> StorageError? {
        do {
            let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
            defer { try? log.close() }
            let records = try allRecords(log)
            #expect(records == expected, "a scan that succeeds returns exactly the original records")
            return nil
        } catch let error as StorageError {
            return error
        }
    }

    @Test("every byte flipped in a sealed segment is detected, with the segment and offset reported")
    func flipEveryByte() throws {
        let fixture = try Fixture()
        let original = fixture.files[fixture.sealed]!
        var detected = 0
        for offset in 0..<original.count {
            for flip: UInt8 in [0xFF, 1 << UInt8(offset % 8)] {
                var damaged = original
                damaged[offset] ^= flip
                let fs = fixture.fileSystem(replacing: fixture.sealed, with: damaged)
                guard let error = try readBack(fs, expected: fixture.records) else {
                    Issue.record("flip \(flip) at offset \(offset) went unnoticed")
                    continue
                }
                #expect(error.code == .corruption, "offset \(offset): \(error)")
                #expect(error.message.contains("segment 1"), "offset \(offset): the report names the segment: \(error)")
                if offset >= SegmentFormat.segmentHeaderSize {
                    // Verification names a damaged range that contains the flipped byte.
                    var configuration = SegmentLog.Configuration.small(fs)
                    configuration.readOnly = true
                    let log = try SegmentLog.open(at: "/db", configuration: configuration)
                    let report = try log.verify()
                    #expect(report.damage.contains { $0.segment == 1 && $0.offset <= UInt64(offset) && UInt64(offset) < $0.offset + $0.length },
                            "offset \(offset): verify reports \(report.damage)")
                }
                detected += 1
            }
        }
        print("corruption: \(detected) of \(original.count * 2) byte flips in a \(original.count)-byte sealed segment detected")
        #expect(detected == original.count * 2)
    }

    @Test("every byte flipped in the manifest stops the open with a clear error")
    func flipManifest() throws {
        let fixture = try Fixture()
        let original = fixture.files["/db/MANIFEST"]!
        for offset in 0..<original.count {
            var damaged = original
            damaged[offset] ^= 0x5A
            let fs = fixture.fileSystem(replacing: "/db/MANIFEST", with: damaged)
            #expect(throws: StorageError.self, "offset \(offset)") { try SegmentLog.open(at: "/db", configuration: .small(fs)) }
        }
    }

    @Test("salvage keeps every intact frame of whole batches and reports what the damaged one held")
    func salvage() throws {
        let fixture = try Fixture()
        var damaged = fixture.files[fixture.sealed]!
        let target = SegmentFormat.segmentHeaderSize + 1500
        damaged[target] ^= 0xFF
        let fs = fixture.fileSystem(replacing: fixture.sealed, with: damaged)
        #expect(throws: StorageError.self) { try readBack(fs, expected: []).map { throw $0 } }
        let report = try SegmentLog.salvage(at: "/db", configuration: .small(fs))
        #expect(report.damage.count == 1)
        let damage = try #require(report.damage.first)
        #expect(damage.segment == 1 && damage.offset <= UInt64(target) && UInt64(target) < damage.offset + damage.length)
        let lost = try #require(damage.recordsLost)
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        let survivors = try allRecords(log)
        try log.close()
        #expect(survivors.count + lost + report.recordsOfUnfinishedBatches == fixture.records.count,
                "every record is either kept, lost in the damaged frame, or dropped to keep batches whole")
        // Survivors are original records, in order, contents intact.
        let originals = Dictionary(uniqueKeysWithValues: fixture.records.map { ($0.lsn, $0) })
        for record in survivors {
            #expect(originals[record.lsn]?.key == record.key && originals[record.lsn]?.value == record.value)
        }
        #expect(survivors.map(\.lsn) == survivors.map(\.lsn).sorted())
        #expect(UInt64(report.recordsKept) == UInt64(survivors.count))
    }

    @Test("a sealed segment cut short is corruption naming the sizes")
    func truncatedSealedSegment() throws {
        let fixture = try Fixture()
        let fs = fixture.fileSystem(replacing: fixture.sealed, with: Array(fixture.files[fixture.sealed]!.dropLast(100)))
        let error = try #require(try readBack(fs, expected: fixture.records))
        #expect(error.code == .corruption)
        #expect(error.message.contains("manifest says"))
    }

    @Test("a torn tail of the active segment is cut silently and reported; a partial batch never shows")
    func tornTail() throws {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.preallocationSize = 0
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        try log.append(kind: 1, key: bytes("a"), value: bytes("first"))
        var big = WriteBatch()
        for i in 0..<10 { big.append(kind: 1, key: bytes("b\(i)"), value: [UInt8](repeating: UInt8(i), count: 400)) }
        try log.commit(big)
        try log.close()
        let path = "/db/000000000001.seg"
        let full = fs.bytes(of: path)!
        // Cut the file at every length inside the big batch: only "a" may survive, never part of the batch.
        let batchStart = SegmentFormat.segmentHeaderSize + SegmentFormat.frameHeaderSize + 12
        for cut in stride(from: batchStart, to: full.count, by: 37) {
            fs.setBytes(Array(full.prefix(cut)), of: path)
            let reopened = try SegmentLog.open(at: "/db", configuration: configuration)
            let keys = try allRecords(reopened).map { String(decoding: $0.key, as: UTF8.self) }
            #expect(keys == ["a"], "cut at \(cut)")
            #expect(reopened.recoveryReport.truncatedBytes > 0)
            try reopened.close()
        }
    }
}
