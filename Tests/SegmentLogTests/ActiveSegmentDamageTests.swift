import CairnTestSupport
import Testing
@testable import SegmentLog

/// Damage in the active segment is told from a torn write: a frame after the damage that was written when
/// the damaged bytes were already synced proves acknowledged commits lie beyond it. Such damage is corruption:
/// the open refuses with the segment and offset, nothing is cut, verify reports it and salvage keeps every
/// other commit. Only the last commit's own frame can pass for a torn write (nothing after it says otherwise).
@Suite("Active segment damage")
struct ActiveSegmentDamageTests {
    static let active = "/db/000000000001.seg"

    /// Twenty durable commits of one record each in the active segment (one frame each), closed cleanly.
    struct Fixture {
        let files: [String: [UInt8]]
        let records: [Record]
        /// File offset of each commit's frame, in commit order.
        let frameOffsets: [Int]

        init(commits: Int = 20) throws {
            let fs = SimulatedFileSystem()
            var configuration = SegmentLog.Configuration.small(fs)
            configuration.segmentTargetSize = 1 << 20
            let log = try SegmentLog.open(at: "/db", configuration: configuration)
            var random = SeededRandom(seed: 41)
            var offsets: [Int] = []
            for i in 0..<commits {
                let location = try log.append(kind: 1, key: bytes("docs/d\(i)"), value: documentValue(i, size: 90, using: &random))
                offsets.append(Int(location.frameOffset))
            }
            try log.close()
            var files: [String: [UInt8]] = [:]
            for name in fs.fileNames(in: "/db") { files["/db/" + name] = fs.bytes(of: "/db/" + name) }
            self.files = files
            self.frameOffsets = offsets
            let reopened = try SegmentLog.open(at: "/db", configuration: .small(fs))
            records = try allRecords(reopened)
            try reopened.close()
        }

        func fileSystem(activeBytes: [UInt8]) -> SimulatedFileSystem {
            let fs = SimulatedFileSystem()
            for (name, content) in files { fs.setBytes(name == ActiveSegmentDamageTests.active ? activeBytes : content, of: name) }
            return fs
        }
    }

    static func readOnly(_ fs: SimulatedFileSystem) -> SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.readOnly = true
        return configuration
    }

    @Test("one bit flipped a third of the way into the active segment is corruption: nothing is cut, verify and salvage see it")
    func flipInTheMiddle() throws {
        let fixture = try Fixture()
        var damaged = fixture.files[Self.active]!
        let target = damaged.count / 3
        damaged[target] ^= 0x10
        let fs = fixture.fileSystem(activeBytes: damaged)

        let error = try #require(throws: StorageError.self) { try SegmentLog.open(at: "/db", configuration: .small(fs)) }
        #expect(error.code == .corruption)
        #expect(error.message.contains("segment 1") && error.message.contains("salvage"), "\(error)")
        #expect(fs.bytes(of: Self.active) == damaged, "the open cut nothing")

        let reader = try SegmentLog.open(at: "/db", configuration: Self.readOnly(fs))
        let report = try reader.verify()
        try reader.close()
        #expect(!report.isClean)
        #expect(report.damage.contains { $0.segment == 1 && $0.offset <= UInt64(target) && UInt64(target) < $0.offset + $0.length },
                "verify names the damaged range: \(report.damage)")

        let salvage = try SegmentLog.salvage(at: "/db", configuration: .small(fs))
        let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
        let survivors = try allRecords(log)
        try log.close()
        #expect(survivors.count == fixture.records.count - 1, "only the damaged commit is lost (salvage: \(salvage.damage))")
        #expect(Set(survivors.map(\.lsn)).isSubset(of: Set(fixture.records.map(\.lsn))))
        #expect(survivors.allSatisfy { kept in fixture.records.contains { $0.lsn == kept.lsn && $0.value == kept.value } })
    }

    @Test("every byte flipped in a small active segment: damage before the last commit is corruption and never cut")
    func flipEveryByte() throws {
        let fixture = try Fixture(commits: 8)
        let original = fixture.files[Self.active]!
        let lastFrame = fixture.frameOffsets.last!
        var corruption = 0
        var tornTail = 0
        for offset in 0..<original.count {
            for flip: UInt8 in [0xFF, 1 << UInt8(offset % 8)] {
                var damaged = original
                damaged[offset] ^= flip
                let fs = fixture.fileSystem(activeBytes: damaged)
                do {
                    let log = try SegmentLog.open(at: "/db", configuration: .small(fs))
                    let records = try allRecords(log)
                    try log.close()
                    // Accepted as a torn write: only possible inside the last commit's frame, which is lost alone.
                    #expect(offset >= lastFrame, "offset \(offset) (flip \(flip)) before the last frame was cut as a torn tail")
                    #expect(records == Array(fixture.records.dropLast()), "offset \(offset): only the last commit may go")
                    tornTail += 1
                } catch let error as StorageError {
                    #expect(error.code == .corruption, "offset \(offset): \(error)")
                    #expect(fs.bytes(of: Self.active) == damaged, "offset \(offset): a refused open changes no byte")
                    #expect(offset < lastFrame, "offset \(offset): damage in the last frame is a torn write")
                    if offset >= SegmentFormat.segmentHeaderSize {
                        let reader = try SegmentLog.open(at: "/db", configuration: Self.readOnly(fs))
                        let report = try reader.verify()
                        try reader.close()
                        #expect(report.damage.contains { $0.offset <= UInt64(offset) && UInt64(offset) < $0.offset + max($0.length, 1) },
                                "offset \(offset): verify reports \(report.damage)")
                    }
                    corruption += 1
                }
            }
        }
        print("active segment: \(corruption) flips reported as corruption, \(tornTail) in the last frame cut as a torn write")
        #expect(corruption == lastFrame * 2)
        #expect(tornTail == (original.count - lastFrame) * 2)
    }

    @Test("intact frames after damage in the unsynced part of the segment are a torn write, not corruption")
    func unsyncedDamageIsTorn() throws {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs, durability: .none)
        configuration.preallocationSize = 0
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        try log.append(kind: 1, key: bytes("synced"), value: bytes("v"))
        try log.sync()
        var offsets: [UInt32] = []
        for i in 0..<5 { offsets.append(try log.append(kind: 1, key: bytes("unsynced\(i)"), value: bytes("v")).frameOffset) }
        let image = fs.crashImage(.keepUnsyncedData, seed: 1)
        var bytesOnDisk = image.bytes(of: Self.active)!
        bytesOnDisk[Int(offsets[1]) + 3] ^= 0xFF  // a page of the unsynced write never made it
        image.setBytes(bytesOnDisk, of: Self.active)
        let reopened = try SegmentLog.open(at: "/db", configuration: .small(image))
        let keys = try allRecords(reopened).map { String(decoding: $0.key, as: UTF8.self) }
        #expect(keys == ["synced", "unsynced0"])
        #expect(reopened.recoveryReport.truncatedBytes > 0)
        try reopened.close()
    }
}
