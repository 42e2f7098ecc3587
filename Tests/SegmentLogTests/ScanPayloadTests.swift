import CairnTestSupport
import Testing
@testable import SegmentLog

/// The sequential read path under scans, verification, compaction and salvage: ``FrameCursor`` reading a segment
/// in chunks, and ``PayloadBuffer`` handing out each frame's raw records without an allocation or a copy per frame.
@Suite("Scan payloads")
struct ScanPayloadTests {
    /// Frames of a segment as one large read finds them: offset, header and stored payload.
    static func frames(_ bytes: [UInt8]) throws -> [(offset: Int, header: FrameHeader, stored: [UInt8])] {
        var found: [(Int, FrameHeader, [UInt8])] = []
        var position = SegmentFormat.segmentHeaderSize
        while position < bytes.count {
            let header = try bytes.withUnsafeBytes {
                try FrameHeader.decode(UnsafeRawBufferPointer(rebasing: $0[position..<(position + SegmentFormat.frameHeaderSize)])).get()
            }
            let start = position + SegmentFormat.frameHeaderSize
            found.append((position, header, Array(bytes[start..<(start + Int(header.storedLength))])))
            position = start + Int(header.storedLength)
        }
        return found
    }

    /// A sealed segment of about 20 frames of 1 KiB (compressed and raw) on a simulated file system.
    static func sealedSegment() throws -> (fs: SimulatedFileSystem, path: String, records: [Record]) {
        let fs = SimulatedFileSystem()
        var configuration = SegmentLog.Configuration.small(fs)
        configuration.segmentTargetSize = 1 << 20
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        var random = SeededRandom(seed: 12)
        for i in 0..<60 {
            // Every third value is random bytes, which LZ4 cannot shrink: those frames are stored raw.
            let value = i % 3 == 2
                ? (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) } : documentValue(i, size: 300, using: &random)
            try log.append(kind: 1, key: bytes("k\(i)"), value: value)
        }
        try log.sealActiveSegment()
        let records = try allRecords(log)
        try log.close()
        return (fs, "/db/000000000001.seg", records)
    }

    /// Rewrites the frame at `offset` with `payload` and checksums that match it, so only decoding can object.
    static func replacePayload(of segment: inout [UInt8], at offset: Int, with payload: [UInt8]) throws {
        let header = try segment.withUnsafeBytes {
            try FrameHeader.decode(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + SegmentFormat.frameHeaderSize)])).get()
        }
        #expect(payload.count == Int(header.storedLength))
        var rewritten = header
        rewritten.payloadCRC = Checksum.masked(payload)
        var encoded: [UInt8] = []
        rewritten.encode(into: &encoded)
        segment.replaceSubrange(offset..<(offset + SegmentFormat.frameHeaderSize + payload.count), with: encoded + payload)
    }

    // MARK: PayloadBuffer

    @Test("frames decoded in turn through one buffer each get exactly their own records; it grows only for a larger frame")
    func mixedFrames() throws {
        var random = SeededRandom(seed: 31)
        var packer = FramePacker(targetSize: 16 << 10, compress: true, baseOffset: 28, segment: 1)
        var lsn: UInt64 = 1
        // Compressed 12 KiB, compressed 2 KiB, raw (random bytes), compressed 6 KiB, compressed 14 KiB.
        for (count, compressible) in [(40, true), (6, true), (5, false), (20, true), (46, true)] {
            var batch = WriteBatch()
            for i in 0..<count {
                let value = compressible
                    ? documentValue(i, size: 300, using: &random) : (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                batch.append(kind: 1, key: bytes("r\(lsn)-\(i)"), value: value)
            }
            packer.addBatch(batch, firstLSN: lsn)
            packer.finishFrame(commit: true)
            lsn += UInt64(count)
        }
        var segment = SegmentFormat.encodeSegmentHeader(id: 1, cacheID: 9)
        segment += packer.take().bytes
        let frames = try Self.frames(segment)
        try #require(frames.map(\.header.isCompressed) == [true, true, false, true, true])

        let buffer = PayloadBuffer()
        var largest = 0
        var decompressedAt: UnsafeRawPointer?
        for frame in frames {
            let expected = try frame.stored.withUnsafeBytes {
                try FrameDecoding.decode(header: frame.header, stored: $0, segment: 1, offset: UInt32(frame.offset)).get()
            }
            let capacityBefore = buffer.capacity
            try frame.stored.withUnsafeBytes { stored in
                let raw = try buffer.raw(header: frame.header, stored: stored).get()
                #expect(Array(raw) == expected.payload, "the frame at \(frame.offset) decodes to its own bytes only")
                if frame.header.isCompressed {
                    largest = max(largest, Int(frame.header.rawLength))
                    if let decompressedAt, Int(frame.header.rawLength) <= capacityBefore {
                        #expect(raw.baseAddress == decompressedAt, "a frame no larger than the buffer reuses it")
                    }
                    decompressedAt = raw.baseAddress
                } else {
                    #expect(raw.baseAddress == stored.baseAddress, "a raw frame is handed out where it was read, not copied")
                }
            }
            #expect(buffer.capacity == largest, "the buffer holds the largest payload so far, no more")
        }
    }

    @Test("a payload that passes its checksum but does not decompress is an error, and the buffer decodes the next frame")
    func undecompressable() throws {
        var random = SeededRandom(seed: 32)
        var packer = FramePacker(targetSize: 8192, compress: true, baseOffset: 28, segment: 1)
        for first in [1, 21] {
            var batch = WriteBatch()
            for i in 0..<20 { batch.append(kind: 1, key: bytes("k\(first + i)"), value: documentValue(i, size: 300, using: &random)) }
            packer.addBatch(batch, firstLSN: UInt64(first))
            packer.finishFrame(commit: true)
        }
        var segment = SegmentFormat.encodeSegmentHeader(id: 1, cacheID: 9) + packer.take().bytes
        let intact = try Self.frames(segment)
        try Self.replacePayload(of: &segment, at: intact[0].offset, with: [UInt8](repeating: 0xFF, count: intact[0].stored.count))
        let frames = try Self.frames(segment)

        let buffer = PayloadBuffer()
        let problem = frames[0].stored.withUnsafeBytes { buffer.raw(header: frames[0].header, stored: $0) }
        #expect(throws: FrameProblem.self) { try problem.get() }
        let next = try frames[1].stored.withUnsafeBytes { Array(try buffer.raw(header: frames[1].header, stored: $0).get()) }
        let expected = try frames[1].stored.withUnsafeBytes {
            try FrameDecoding.decode(header: frames[1].header, stored: $0, segment: 1, offset: UInt32(frames[1].offset)).get()
        }
        #expect(next == expected.payload)
        let short = frames[1].stored.dropLast().withUnsafeBytes { buffer.raw(header: frames[1].header, stored: $0) }
        #expect(throws: FrameProblem.self, "a stored payload shorter than its header says") { try short.get() }
    }

    @Test("scan, verify and compaction report a frame that does not decompress at its offset")
    func undecompressableInALog() throws {
        let (fs, path, _) = try Self.sealedSegment()
        var segment = fs.bytes(of: path)!
        let compressed = try Self.frames(segment).filter(\.header.isCompressed)
        let victim = compressed[compressed.count / 2]
        try Self.replacePayload(of: &segment, at: victim.offset, with: [UInt8](repeating: 0xFF, count: victim.stored.count))
        fs.setBytes(segment, of: path)

        var configuration = SegmentLog.Configuration.small(fs)
        configuration.segmentTargetSize = 1 << 20
        let log = try SegmentLog.open(at: "/db", configuration: configuration)
        defer { try? log.close() }
        let scanError = #expect(throws: StorageError.self) { try log.scan { _ in } }
        #expect(scanError?.code == .corruption)
        #expect(scanError?.offset == UInt64(victim.offset))
        #expect(scanError?.message.contains("does not decompress") == true)
        let filteredError = #expect(throws: StorageError.self) { try log.scan(matching: RecordFilter(kinds: [7])) { _ in } }
        #expect(filteredError?.offset == UInt64(victim.offset))

        let report = try log.verify()
        #expect(report.damage.map(\.offset) == [UInt64(victim.offset)])
        #expect(report.damage.first?.problem == "payload does not decompress")

        let compaction = try log.makeCompaction(of: [1]) { _ in true }
        let compactionError = #expect(throws: StorageError.self) { while try compaction.step() == nil {} }
        #expect(compactionError?.offset == UInt64(victim.offset))
    }

    // MARK: FrameCursor's chunks

    @Test("a cursor reading in chunks smaller than two frames finds every frame, including those straddling chunks")
    func framesStraddlingChunks() throws {
        let (fs, path, records) = try Self.sealedSegment()
        let segment = fs.bytes(of: path)!
        let expected = try Self.frames(segment)
        try #require(expected.count >= 15)
        let handle = try fs.open(path, .readOnly)
        defer { try? handle.close() }
        for chunk in [1500, 2048, 4099] {
            let cursor = FrameCursor(handle: handle, end: UInt64(segment.count), chunk: chunk)
            var found: [(Int, FrameHeader, [UInt8])] = []
            while case .frame(let offset, let header, let stored) = try cursor.next() {
                found.append((Int(offset), header, Array(stored)))
            }
            #expect(found.map(\.0) == expected.map(\.offset), "chunk \(chunk): the same frames")
            #expect(found.map(\.1) == expected.map(\.header))
            #expect(found.map(\.2) == expected.map(\.stored), "chunk \(chunk): the same payload bytes")
        }
        #expect(records.count == 60)
    }

    @Test("a frame torn at the end of what is read is damage at its offset, whatever the chunk")
    func tornAtChunkEnd() throws {
        let (fs, path, _) = try Self.sealedSegment()
        let segment = fs.bytes(of: path)!
        let frames = try Self.frames(segment)
        let torn = frames[frames.count - 3]
        let handle = try fs.open(path, .readOnly)
        defer { try? handle.close() }
        // The read ends 10 bytes into the torn frame's payload; the chunk ends there too, or earlier, or later.
        let end = UInt64(torn.offset + SegmentFormat.frameHeaderSize + 10)
        for chunk in [Int(end) - SegmentFormat.segmentHeaderSize, 1024, 1 << 20] {
            let cursor = FrameCursor(handle: handle, end: end, chunk: chunk)
            var intact = 0
            var damage: (offset: UInt64, problem: String)?
            scanning: while true {
                switch try cursor.next() {
                case .frame: intact += 1
                case .damage(let offset, let problem, _):
                    damage = (offset, problem)
                    break scanning
                case .end: break scanning
                }
            }
            #expect(intact == frames.count - 3, "chunk \(chunk): every frame before the torn one")
            #expect(damage?.offset == UInt64(torn.offset))
            #expect(damage?.problem == "frame runs past the end of the segment")
        }
    }

    @Test("a checksum error in a later chunk is reported at its own frame's offset")
    func checksumErrorInLaterChunk() throws {
        let (fs, path, _) = try Self.sealedSegment()
        var segment = fs.bytes(of: path)!
        let frames = try Self.frames(segment)
        let victim = frames[frames.count - 2]
        segment[victim.offset + SegmentFormat.frameHeaderSize + 3] ^= 0x10
        fs.setBytes(segment, of: path)
        let handle = try fs.open(path, .readOnly)
        defer { try? handle.close() }
        for chunk in [1024, 3000] {
            try #require(victim.offset > chunk * 2, "the damage lies chunks after the start")
            let cursor = FrameCursor(handle: handle, end: UInt64(segment.count), chunk: chunk)
            var intact: [UInt64] = []
            var damage: (offset: UInt64, problem: String)?
            scanning: while true {
                switch try cursor.next() {
                case .frame(let offset, _, _): intact.append(offset)
                case .damage(let offset, let problem, _):
                    damage = (offset, problem)
                    break scanning
                case .end: break scanning
                }
            }
            #expect(intact == frames.dropLast(2).map { UInt64($0.offset) })
            #expect(damage?.offset == UInt64(victim.offset), "chunk \(chunk)")
            #expect(damage?.problem == "payload checksum mismatch")
        }
    }
}
