import CairnTestSupport
import Foundation
import Testing
@testable import SegmentLog

private typealias WrittenRecord = (kind: UInt8, key: [UInt8], location: RecordLocation)

/// A small fixed log: 20 `users/` keys written twice (kind 1, the second round supersedes the first), 5
/// `meta/` keys once (kind 2). Returns every record written, in commit order, and the newest of each key.
private func writeFixedLog(_ log: SegmentLog) throws -> (all: [WrittenRecord], newest: [RecordLocation]) {
    var random = SeededRandom(seed: 7)
    var all: [WrittenRecord] = []
    var newest: [[UInt8]: RecordLocation] = [:]
    for round in 0..<2 {
        var batch = WriteBatch()
        var entries: [(UInt8, [UInt8])] = []
        for i in 0..<20 {
            let key = bytes("users/\(i)")
            batch.append(kind: 1, key: key, value: documentValue(i + round * 100, size: 300, using: &random))
            entries.append((1, key))
        }
        if round == 0 {
            for i in 0..<5 {
                let key = bytes("meta/\(i)")
                batch.append(kind: 2, key: key, value: [0, 1, 2, UInt8(i)])
                entries.append((2, key))
            }
        }
        for ((kind, key), location) in zip(entries, try log.commit(batch)) {
            all.append((kind, key, location))
            newest[key] = location
        }
    }
    return (all, Array(newest.values))
}

/// Every file in `directory` and its bytes.
func snapshotFiles(_ directory: String) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
        files[name] = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
    }
    return files
}

@Suite("Log inspection")
struct LogInspectorTests {
    @Test("inspect counts segments, frames, kinds, keys and live bytes of a fixed log exactly")
    func fixedLog() throws {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/log", configuration: .small(fs))
        let (all, newest) = try writeFixedLog(log)
        let statistics = log.statistics
        try log.close()

        let inspection = try SegmentLog.inspect(at: "/log", fileSystem: fs)
        #expect(inspection.formatVersion == 2)
        #expect(inspection.recordCount == 45)
        #expect(inspection.distinctKeys == 25)
        #expect(inspection.liveRecordCount == 25)
        #expect(inspection.lsnRange == 1...45)
        #expect(inspection.nextLSN == 46)
        #expect(inspection.recordBytes == all.reduce(0) { $0 + UInt64($1.location.size) })
        #expect(inspection.liveRecordBytes == newest.reduce(0) { $0 + UInt64($1.size) })
        #expect(inspection.segments.count > 1, "small segments: the fixed log spans several")
        #expect(inspection.segments.map(\.id) == statistics.segments.map(\.id))
        #expect(inspection.segments.map(\.fileBytes) == statistics.segments.map(\.fileBytes))
        #expect(inspection.segments.map(\.recordBytes) == statistics.segments.map(\.recordBytes))
        #expect(inspection.segments.last?.isActive == true)
        let frames = Set(all.map { "\($0.location.segment):\($0.location.frameOffset)" })
        #expect(inspection.frameCount == frames.count)
        #expect(inspection.compressedFrameCount > 0, "JSON-like values compress")

        let kind1 = all.filter { $0.kind == 1 }
        let newestKind1 = newest.filter { location in kind1.contains { $0.location == location } }
        #expect(inspection.kinds == [
            KindInspection(
                kind: 1, recordCount: 40, recordBytes: kind1.reduce(0) { $0 + UInt64($1.location.size) },
                liveRecordCount: 20, liveRecordBytes: newestKind1.reduce(0) { $0 + UInt64($1.size) }),
            KindInspection(
                kind: 2, recordCount: 5, recordBytes: all.filter { $0.kind == 2 }.reduce(0) { $0 + UInt64($1.location.size) },
                liveRecordCount: 5, liveRecordBytes: all.filter { $0.kind == 2 }.reduce(0) { $0 + UInt64($1.location.size) }),
        ])
        for segment in inspection.segments {
            let here = newest.filter { $0.segment == segment.id }
            #expect(segment.liveRecordCount == UInt64(here.count), "segment \(segment.id)")
            #expect(segment.liveRecordBytes == here.reduce(0) { $0 + UInt64($1.size) }, "segment \(segment.id)")
        }
    }

    @Test("an uncompressed log reports no compressed frames and a ratio below 1")
    func uncompressed() throws {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.compression = false
        let log = try SegmentLog.open(at: "/log", configuration: configuration)
        _ = try writeFixedLog(log)
        try log.close()
        let inspection = try SegmentLog.inspect(at: "/log", fileSystem: fs)
        #expect(inspection.compressedFrameCount == 0)
        #expect(inspection.frameCount > 0)
        #expect(inspection.segments.allSatisfy { $0.compressionRatio < 1 })
    }

    @Test("an empty log has one empty active segment and no LSN range")
    func emptyLog() throws {
        let fs = SimulatedFileSystem()
        try SegmentLog.open(at: "/log", configuration: .small(fs)).close()
        let inspection = try SegmentLog.inspect(at: "/log", fileSystem: fs)
        #expect(inspection.segments.count == 1)
        #expect(inspection.recordCount == 0)
        #expect(inspection.lsnRange == nil)
        #expect(inspection.kinds.isEmpty)
    }

    @Test("a filtered scan visits exactly the records its kinds, key prefix and segment select")
    func filteredScan() throws {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/log", configuration: .small(fs))
        _ = try writeFixedLog(log)
        let records = try allRecords(log)
        func scanned(_ filter: RecordFilter) throws -> [Record] {
            var found: [Record] = []
            try log.scan(matching: filter) { found.append($0.record) }
            return found
        }
        #expect(try scanned(RecordFilter()) == records)
        #expect(try scanned(RecordFilter(kinds: [2])) == records.filter { $0.kind == 2 })
        let prefix = bytes("users/1")
        #expect(try scanned(RecordFilter(keyPrefix: prefix)) == records.filter { $0.key.starts(with: prefix) })
        #expect(try scanned(RecordFilter(kinds: [2], keyPrefix: bytes("users/"))).isEmpty)
        let second = log.statistics.segments[1].id
        #expect(try scanned(RecordFilter(segment: second)) == records.filter { $0.location.segment == second })
        let error = #expect(throws: StorageError.self) { try scanned(RecordFilter(segment: 999)) }
        #expect(error?.code == .notFound)
        try log.close()
    }

    @Test("inspecting leaves every file byte-identical, even while a writer holds the log")
    func readOnly() throws {
        let directory = TemporaryDirectory("inspect")
        let log = try SegmentLog.open(at: directory.path, configuration: .small(PosixFileSystem(), durability: .none))
        _ = try writeFixedLog(log)
        try log.sync()
        let before = try snapshotFiles(directory.path)
        #expect(SegmentLog.lockHolder(at: directory.path) == currentProcessDescription())
        let inspection = try SegmentLog.inspect(at: directory.path)
        #expect(inspection.recordCount == 45)
        var configuration = SegmentLog.Configuration()
        configuration.readOnly = true
        let reader = try SegmentLog.open(at: directory.path, configuration: configuration)
        try reader.scan(matching: RecordFilter(kinds: [1])) { _ in }
        try reader.close()
        #expect(try snapshotFiles(directory.path) == before)
        try log.close()
        #expect(SegmentLog.lockHolder(at: directory.path) == nil)

        let closed = try snapshotFiles(directory.path)
        _ = try SegmentLog.inspect(at: directory.path)
        #expect(try snapshotFiles(directory.path) == closed)
    }

    @Test("inspecting a directory that holds no log throws notALog and creates nothing")
    func notALog() throws {
        let directory = TemporaryDirectory("not-a-log")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: directory.path).appendingPathComponent("notes.txt"))
        for path in [directory.path, directory.path + "/missing"] {
            do {
                _ = try SegmentLog.inspect(at: path)
                Issue.record("inspect of \(path) succeeded")
            } catch let error as StorageError {
                #expect(error.code == .notALog)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["notes.txt"])
    }
}
