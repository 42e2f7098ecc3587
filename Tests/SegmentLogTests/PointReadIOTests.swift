import CairnTestSupport
import Synchronization
import Testing
@testable import SegmentLog

/// The I/O of a point read that misses the frame cache: one read call fetches a typical frame's header and
/// payload together; a frame larger than that takes a second read, and the bytes come back as written.
@Suite("Point reads: read calls per cache miss")
struct PointReadIOTests {
    /// A file system that counts the read calls made on the files it opens.
    final class CountingFileSystem: ForwardingFileSystem, @unchecked Sendable {
        let reads = Atomic<Int>(0)
        let bytesRead = Atomic<Int>(0)

        init(_ base: SimulatedFileSystem) { super.init(base: base) }

        override func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile {
            CountingFile(try base.open(path, mode), reads: self)
        }
    }

    final class CountingFile: ForwardingStorageFile, @unchecked Sendable {
        let counter: CountingFileSystem

        init(_ file: any StorageFile, reads counter: CountingFileSystem) {
            self.counter = counter
            super.init(base: file)
        }

        override func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
            counter.reads.add(1, ordering: .relaxed)
            let count = try base.read(into: buffer, at: offset)
            counter.bytesRead.add(count, ordering: .relaxed)
            return count
        }
    }

    static func configuration(_ fs: any FileSystem) -> SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.fileSystem = fs
        configuration.durability = .none
        configuration.segmentTargetSize = 1 << 20
        return configuration
    }

    @Test("a cold point read of a typical frame makes one read call, not one for the header and one for the payload")
    func oneReadPerTypicalFrame() throws {
        let counter = CountingFileSystem(SimulatedFileSystem())
        var random = SeededRandom(seed: 41)
        let writer = try SegmentLog.open(at: "/db", configuration: Self.configuration(counter))
        var written: [(value: [UInt8], location: RecordLocation)] = []
        // A commit ends its frame: batches of 15 records of ~1 KiB fill default-size frames, as a bulk load does.
        for start in stride(from: 0, to: 3000, by: 15) {
            var batch = WriteBatch()
            for i in start..<(start + 15) { batch.append(kind: 1, key: bytes("doc/\(i)"), value: documentValue(i, size: 1000, using: &random)) }
            written += zip(batch.values, try writer.commit(batch)).map { ($0, $1) }
        }
        try writer.close()
        let log = try SegmentLog.open(at: "/db", configuration: Self.configuration(counter))
        // One record of each frame, each frame once: every read misses the cache.
        var seen = Set<[UInt32]>()
        let firstOfEachFrame = written.filter { seen.insert([$0.location.segment, $0.location.frameOffset]).inserted }
        #expect(firstOfEachFrame.count > 100, "many frames")
        let before = counter.reads.load(ordering: .relaxed)
        for (value, location) in firstOfEachFrame { #expect(try log.read(location).value == value) }
        let calls = counter.reads.load(ordering: .relaxed) - before
        #expect(calls < firstOfEachFrame.count * 11 / 10, "\(calls) read calls for \(firstOfEachFrame.count) cold frames")
        try log.close()
    }

    @Test("a frame larger than the first read (one big record among small ones) is read whole by a second read")
    func largeFrameTakesASecondRead() throws {
        let counter = CountingFileSystem(SimulatedFileSystem())
        var random = SeededRandom(seed: 42)
        let writer = try SegmentLog.open(at: "/db", configuration: Self.configuration(counter))
        var written: [(value: [UInt8], location: RecordLocation)] = []
        for start in stride(from: 0, to: 200, by: 10) {
            var batch = WriteBatch()
            for i in start..<(start + 10) { batch.append(kind: 1, key: bytes("doc/\(i)"), value: documentValue(i, using: &random)) }
            written += zip(batch.values, try writer.commit(batch)).map { ($0, $1) }
        }
        let big = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        written.append((big, try writer.append(kind: 1, key: bytes("big"), value: big)))
        try writer.close()
        let log = try SegmentLog.open(at: "/db", configuration: Self.configuration(counter))
        let before = counter.reads.load(ordering: .relaxed)
        #expect(try log.read(written[200].location).value == big)
        #expect(counter.reads.load(ordering: .relaxed) - before == 2, "the guess, then the rest of the frame")
        for (value, location) in written { #expect(try log.read(location).value == value) }
        try log.close()
    }

    @Test("after a scan, a cold point read reads exactly its frame (header and stored payload) in one call, a large one too")
    func exactFrameReadAfterScan() throws {
        let counter = CountingFileSystem(SimulatedFileSystem())
        var random = SeededRandom(seed: 43)
        let writer = try SegmentLog.open(at: "/db", configuration: Self.configuration(counter))
        var written: [(value: [UInt8], location: RecordLocation)] = []
        for start in stride(from: 0, to: 600, by: 15) {
            var batch = WriteBatch()
            for i in start..<(start + 15) { batch.append(kind: 1, key: bytes("doc/\(i)"), value: documentValue(i, size: 1000, using: &random)) }
            written += zip(batch.values, try writer.commit(batch)).map { ($0, $1) }
            if start == 300 {
                let big = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                written.append((big, try writer.append(kind: 1, key: bytes("big"), value: big)))
            }
        }
        try writer.close()
        let log = try SegmentLog.open(at: "/db", configuration: Self.configuration(counter))
        var scanned = 0
        try log.scan { _ in scanned += 1 }
        #expect(scanned == written.count)
        // Each frame's size: up to the next frame's offset, or to the end of its segment.
        var offsets: [UInt32: [UInt32]] = [:]
        for (_, location) in written where offsets[location.segment]?.last != location.frameOffset {
            offsets[location.segment, default: []].append(location.frameOffset)
        }
        var expectedBytes = 0
        var frames: [RecordLocation] = []
        for segment in log.statistics.segments {
            let starts = offsets[segment.id] ?? []
            for (i, start) in starts.enumerated() {
                expectedBytes += Int((i + 1 < starts.count ? UInt64(starts[i + 1]) : segment.fileBytes) - UInt64(start))
                frames.append(written.first { $0.location.segment == segment.id && $0.location.frameOffset == start }!.location)
            }
        }
        #expect(frames.count > 40, "many frames")
        let (callsBefore, bytesBefore) = (counter.reads.load(ordering: .relaxed), counter.bytesRead.load(ordering: .relaxed))
        for location in frames { _ = try log.read(location) }
        #expect(counter.reads.load(ordering: .relaxed) - callsBefore == frames.count, "one read call per cold frame")
        #expect(counter.bytesRead.load(ordering: .relaxed) - bytesBefore == expectedBytes, "exactly the frames' bytes")
        for (value, location) in written { #expect(try log.read(location).value == value) }
        try log.close()
    }
}
