import CCRC32C
import Testing
@testable import SegmentLog

/// Property tests of the on-disk codecs: varints, zigzag LSN deltas, frame packing and decoding, CRC32C and
/// frame header validation. Inputs come from seeded generators, so a failure names the seed that replays it.
@Suite("Frame format")
struct FrameFormatTests {
    // MARK: Helpers

    /// A random value in `0...UInt64.max` whose bit length is itself uniformly random, so every varint
    /// length (1...10 bytes) is exercised.
    static func randomWidthValue(_ random: inout SeededRandom) -> UInt64 {
        let bits = Int(random.next() % 65)
        return bits == 0 ? 0 : random.next() >> UInt64(64 - bits)
    }

    static func randomBytes(_ count: Int, _ random: inout SeededRandom) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// A frame decoded from packer output, with its position and raw (decompressed) payload.
    struct ParsedFrame {
        let offset: UInt64
        let header: FrameHeader
        let frame: DecodedFrame
        let raw: [UInt8]
    }

    /// Splits packer output into frames; every header and payload must decode.
    static func parseFrames(_ bytes: [UInt8], baseOffset: UInt64, segment: UInt32) throws -> [ParsedFrame] {
        var frames: [ParsedFrame] = []
        var position = 0
        while position < bytes.count {
            try #require(bytes.count - position >= SegmentFormat.frameHeaderSize, "a frame header is cut short at \(position)")
            let decodedHeader = bytes.withUnsafeBytes {
                FrameHeader.decode(UnsafeRawBufferPointer(rebasing: $0[position..<(position + SegmentFormat.frameHeaderSize)]))
            }
            let header = try decodedHeader.get()
            let start = position + SegmentFormat.frameHeaderSize
            let end = start + Int(header.storedLength)
            try #require(end <= bytes.count, "the payload of the frame at \(position) runs past the output")
            let offset = baseOffset + UInt64(position)
            let frame = try bytes.withUnsafeBytes {
                try FrameDecoding.decode(
                    header: header, stored: UnsafeRawBufferPointer(rebasing: $0[start..<end]), segment: segment,
                    offset: UInt32(offset)
                ).get()
            }
            var raw: [UInt8] = []
            let problem = bytes.withUnsafeBytes {
                FrameDecoding.payload(header: header, stored: UnsafeRawBufferPointer(rebasing: $0[start..<end]), into: &raw)
            }
            #expect(problem == nil)
            frames.append(ParsedFrame(offset: offset, header: header, frame: frame, raw: raw))
            position = end
        }
        return frames
    }

    /// What `finishFrame` must decide for a raw payload: the LZ4 size when it saves at least 1/32, else nil.
    static func expectedCompressedSize(_ raw: [UInt8]) -> Int? {
        var scratch = [UInt8](repeating: 0, count: LZ4.bound(raw.count))
        let size = raw.withUnsafeBytes { source in scratch.withUnsafeMutableBytes { LZ4.compress(source, into: $0) } }
        return size > 0 && size < raw.count - raw.count / 32 ? size : nil
    }

    /// A valid encoded header to mutate.
    static func validHeader(flags: UInt8 = SegmentFormat.flagCommit, stored: UInt32 = 100, raw: UInt32 = 100) -> [UInt8] {
        var bytes: [UInt8] = []
        FrameHeader(
            flags: flags, storedLength: stored, rawLength: raw, baseLSN: 77, recordCount: 3, syncedEnd: 28,
            payloadCRC: 0xDEAD_BEEF)
            .encode(into: &bytes)
        return bytes
    }

    static func decodeHeader(_ bytes: [UInt8]) -> Result<FrameHeader, FrameHeader.ProblemBox> {
        bytes.withUnsafeBytes { FrameHeader.decode($0) }
    }

    /// Rewrites the header checksum (bytes 36..<40) so only the field under test is wrong.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var copy = Array(bytes[0..<36])
        copy.appendLE(Checksum.masked(copy))
        return copy
    }

    // MARK: Varints

    @Test("varints round-trip for edge values and random values of every width, with the advertised size")
    func varintRoundTrip() throws {
        var random = SeededRandom(seed: 101)
        var values: [UInt64] = [0, 1, 127, 128, 255, 256, 16_383, 16_384, UInt64(UInt32.max), UInt64.max - 1, UInt64.max]
        for _ in 0..<5000 { values.append(Self.randomWidthValue(&random)) }
        var stream: [UInt8] = []
        for value in values {
            var one: [UInt8] = []
            one.appendVarint(value)
            #expect(one.count == varintSize(value), "varintSize(\(value))")
            #expect(one.count == max(1, (64 - value.leadingZeroBitCount + 6) / 7), "LEB128 length of \(value)")
            #expect(one.dropLast().allSatisfy { $0 & 0x80 != 0 } && one.last! & 0x80 == 0, "continuation bits of \(value)")
            stream.append(contentsOf: one)
        }
        var edge: [UInt8] = []
        edge.appendVarint(127)
        #expect(edge == [0x7F])
        edge = []
        edge.appendVarint(128)
        #expect(edge == [0x80, 0x01])
        edge = []
        edge.appendVarint(UInt64.max)
        #expect(edge == [UInt8](repeating: 0xFF, count: 9) + [0x01])
        // The concatenation reads back value by value and ends exactly at the end.
        stream.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            for (n, value) in values.enumerated() {
                let read = reader.readVarint()
                if read != value {
                    Issue.record("value \(n): read \(String(describing: read)), wrote \(value)")
                    return
                }
            }
            #expect(reader.remaining == 0)
            #expect(reader.readVarint() == nil, "reading past the end fails")
        }
    }

    @Test("a truncated or overlong varint is rejected, never misread")
    func varintRejectsDamage() throws {
        var random = SeededRandom(seed: 102)
        for _ in 0..<2000 {
            var value = Self.randomWidthValue(&random)
            if value < 128 { value += 128 }  // at least two bytes, so there is something to cut
            var bytes: [UInt8] = []
            bytes.appendVarint(value)
            let cut = 1 + Int(random.next() % UInt64(bytes.count - 1))
            let truncated = Array(bytes.prefix(bytes.count - cut))
            truncated.withUnsafeBytes { buffer in
                var reader = ByteReader(buffer)
                #expect(reader.readVarint() == nil, "\(value) cut by \(cut) byte(s) must not decode")
            }
        }
        // Eleven bytes, or a tenth byte carrying more than the 64th bit, do not fit a UInt64.
        let overlong = [UInt8](repeating: 0x80, count: 10) + [0x01]
        let tooWide = [UInt8](repeating: 0xFF, count: 9) + [0x02]
        for bytes in [overlong, tooWide, [0x80], []] {
            bytes.withUnsafeBytes { buffer in
                var reader = ByteReader(buffer)
                #expect(reader.readVarint() == nil, "\(bytes) must not decode")
            }
        }
    }

    // MARK: Zigzag

    @Test("zigzag LSN deltas round-trip for arbitrary LSN/base pairs, including wrap-around, and small distances stay small")
    func zigzagRoundTrip() {
        var random = SeededRandom(seed: 103)
        var pairs: [(UInt64, UInt64)] = [
            (0, 0), (UInt64.max, UInt64.max), (0, UInt64.max), (UInt64.max, 0), (1, UInt64.max), (UInt64.max, 1),
            (UInt64(Int64.max), 0), (UInt64(Int64.max) + 1, 0), (0, UInt64(Int64.max) + 1),
        ]
        for _ in 0..<10_000 {
            let base = Self.randomWidthValue(&random)
            switch random.next() % 3 {
            case 0: pairs.append((Self.randomWidthValue(&random), base))
            case 1: pairs.append((base &+ random.next() % 1000, base))  // may wrap past UInt64.max
            default: pairs.append((base &- random.next() % 1000, base))  // may wrap below 0
            }
        }
        var failures = 0
        for (lsn, base) in pairs {
            let encoded = zigzag(lsn, from: base)
            if unzigzag(encoded, from: base) != lsn {
                failures += 1
                if failures <= 5 { Issue.record("lsn \(lsn) base \(base): encoded \(encoded) decodes to \(unzigzag(encoded, from: base))") }
            }
            // The encoded size depends on the signed distance, not on where it wraps.
            let distance = Int64(bitPattern: lsn &- base)
            #expect(encoded == (distance >= 0 ? UInt64(distance) * 2 : UInt64(-(distance + 1)) * 2 + 1))
        }
        #expect(failures == 0)
        #expect(zigzag(10, from: 10) == 0)
        #expect(zigzag(11, from: 10) == 2)
        #expect(zigzag(9, from: 10) == 1)
        #expect(zigzag(0, from: UInt64.max) == 2, "one step forward across the wrap")
        #expect(zigzag(UInt64.max, from: 0) == 1, "one step back across the wrap")
    }

    // MARK: Packing and decoding

    @Test("FramePacker output decodes back to every record, in order, at the locations it reported, with the packing rule")
    func packAndDecodeRandomBatches() throws {
        for seed: UInt64 in 1...6 {
            var random = SeededRandom(seed: 200 + seed)
            let targetSize = [512, 1024, 4096, 32 << 10][Int(seed % 4)]
            let compress = seed % 3 != 0
            let baseOffset = UInt64(SegmentFormat.segmentHeaderSize) + random.next() % 100_000
            let firstLSN = seed == 6 ? SegmentFormat.lsnLimit - 1_000 : 1 + random.next() % 1_000_000  // seed 6: LSNs near the top
            var packer = FramePacker(targetSize: targetSize, compress: compress, baseOffset: baseOffset, segment: 9)
            struct Expected {
                var kind: UInt8; var key: [UInt8]; var value: [UInt8]; var lsn: UInt64; var batch: Int; var lastOfBatch: Bool
                var firstOfBatch: Bool
            }
            var expected: [Expected] = []
            var lsn = firstLSN
            let batchCount = 20 + Int(random.next() % 20)
            for b in 0..<batchCount {
                var batch = WriteBatch()
                let count = 1 + Int(random.next() % 6)
                for i in 0..<count {
                    let size = Int(random.next() % 5001)
                    let value: [UInt8] = switch random.next() % 3 {
                    case 0: Self.randomBytes(size, &random)  // incompressible
                    case 1: [UInt8](repeating: UInt8(truncatingIfNeeded: random.next()), count: size)
                    default: Array(documentValue(b * 10 + i, size: size, using: &random).prefix(size))
                    }
                    let key = Array("k\(random.next() % 50)/\(b).\(i)".utf8)
                    let kind = UInt8(truncatingIfNeeded: random.next())
                    batch.append(kind: kind, key: key, value: value)
                    expected.append(Expected(
                        kind: kind, key: key, value: value, lsn: lsn &+ UInt64(i), batch: b, lastOfBatch: i == count - 1,
                        firstOfBatch: i == 0))
                }
                packer.addBatch(batch, firstLSN: lsn)
                lsn = lsn &+ UInt64(count)
            }
            packer.finishFrame(commit: true)
            let (bytes, locations) = packer.take()
            let context = "seed \(seed), target \(targetSize), compress \(compress)"
            try #require(locations.count == expected.count, "\(context): one location per record")

            let frames = try Self.parseFrames(bytes, baseOffset: baseOffset, segment: 9)
            try #require(frames.reduce(0) { $0 + $1.frame.count } == expected.count, "\(context): record count")
            var n = 0
            var compressedFrames = 0
            var rawFrames = 0
            for parsed in frames {
                let frame = parsed.frame
                let startsBatch = expected[n].firstOfBatch
                var batchesInFrame = Set<Int>()
                for index in 0..<frame.count {
                    let want = expected[n]
                    let location = locations[n]
                    #expect(location == RecordLocation(segment: 9, frameOffset: UInt32(parsed.offset), index: UInt32(index), size: location.size),
                            "\(context): location of record \(n)")
                    frame.withRecord(at: index) { view in
                        #expect(view.kind == want.kind && view.keyBytes == want.key && view.valueBytes == want.value,
                                "\(context): record \(n) content")
                        #expect(view.lsn == want.lsn, "\(context): record \(n) LSN")
                        #expect(view.location == location, "\(context): record \(n) decoded location and size")
                    }
                    batchesInFrame.insert(want.batch)
                    n += 1
                }
                // The packing rule recovery relies on.
                let endsBatch = expected[n - 1].lastOfBatch
                #expect(parsed.header.isCommit == endsBatch, "\(context): commit flag of frame at \(parsed.offset)")
                if !parsed.header.isCommit {
                    #expect(batchesInFrame.count == 1, "\(context): a frame without the commit flag holds one batch, not \(batchesInFrame.sorted())")
                }
                // Salvage relies on this one: a frame that continues a batch holds nothing but the rest of it.
                #expect(parsed.header.isFirst == startsBatch, "\(context): first flag of frame at \(parsed.offset)")
                if !parsed.header.isFirst {
                    #expect(batchesInFrame.count == 1, "\(context): a frame continuing a batch holds only that batch, not \(batchesInFrame.sorted())")
                }
                // Compression is used exactly when it saves at least 1/32 of the bytes.
                #expect(parsed.header.rawLength == UInt32(parsed.raw.count))
                if compress, let size = Self.expectedCompressedSize(parsed.raw) {
                    #expect(parsed.header.isCompressed && Int(parsed.header.storedLength) == size, "\(context): frame at \(parsed.offset) compresses")
                    compressedFrames += 1
                } else {
                    #expect(!parsed.header.isCompressed && parsed.header.storedLength == parsed.header.rawLength,
                            "\(context): frame at \(parsed.offset) stored raw")
                    rawFrames += 1
                }
            }
            #expect(frames.last?.header.isCommit == true)
            if compress { #expect(compressedFrames > 0 && rawFrames > 0, "\(context): the inputs mix both kinds of frame") }
        }
    }

    @Test("incompressible payloads are stored raw, compressible ones compressed, and compression off stores raw")
    func compressionDecision() throws {
        var random = SeededRandom(seed: 104)
        func pack(_ value: [UInt8], compress: Bool) throws -> [ParsedFrame] {
            var packer = FramePacker(targetSize: 32 << 10, compress: compress, baseOffset: 28, segment: 1)
            var batch = WriteBatch()
            batch.append(kind: 1, key: [1, 2, 3], value: value)
            packer.addBatch(batch, firstLSN: 1)
            packer.finishFrame(commit: true)
            return try Self.parseFrames(packer.take().bytes, baseOffset: 28, segment: 1)
        }
        for size in [0, 1, 10, 100, 1000, 5000, 20_000] {
            let noise = try pack(Self.randomBytes(size, &random), compress: true)
            try #require(noise.count == 1)
            #expect(!noise[0].header.isCompressed, "\(size) random bytes are stored uncompressed")
            #expect(noise[0].header.storedLength == noise[0].header.rawLength)
        }
        for size in [100, 1000, 5000, 20_000] {
            let zeros = try pack([UInt8](repeating: 0, count: size), compress: true)
            #expect(zeros[0].header.isCompressed, "\(size) zeros are compressed")
            #expect(Int(zeros[0].header.storedLength) < max(size / 10, 24))
            let document = try pack(documentValue(size, size: size, using: &random), compress: true)
            #expect(document[0].header.isCompressed, "a \(size)-byte document is compressed")
            let off = try pack([UInt8](repeating: 0, count: size), compress: false)
            #expect(!off[0].header.isCompressed, "compression disabled stores raw")
            #expect(off[0].frame.withRecord(at: 0) { $0.valueBytes } == [UInt8](repeating: 0, count: size))
        }
    }

    @Test("a damaged payload fails to decode with a problem, never decodes to different records")
    func damagedPayloadRejected() throws {
        var random = SeededRandom(seed: 105)
        var packer = FramePacker(targetSize: 4096, compress: true, baseOffset: 28, segment: 1)
        var batch = WriteBatch()
        for i in 0..<5 { batch.append(kind: 1, key: bytes("key\(i)"), value: documentValue(i, size: 300, using: &random)) }
        packer.addBatch(batch, firstLSN: 1)
        packer.finishFrame(commit: true)
        let bytes = packer.take().bytes
        let header = try Self.decodeHeader(Array(bytes[0..<40])).get()
        let payload = Array(bytes[40...])
        for _ in 0..<300 {
            var damaged = payload
            let at = Int(random.next() % UInt64(damaged.count))
            damaged[at] ^= UInt8(1 << (random.next() % 8))
            let result = damaged.withUnsafeBytes { FrameDecoding.decode(header: header, stored: $0, segment: 1, offset: 28) }
            guard case .failure(let problem) = result else {
                Issue.record("a flipped bit at payload byte \(at) decoded")
                continue
            }
            #expect(problem.what == "payload checksum mismatch")
        }
        let short = Array(payload.dropLast())
        let result = short.withUnsafeBytes { FrameDecoding.decode(header: header, stored: $0, segment: 1, offset: 28) }
        #expect(throws: FrameProblem.self) { try result.get() }
    }

    // MARK: CRC32C

    @Test("CRC32C gives the standard check value for \"123456789\" on both paths")
    func crcKnownAnswer() {
        let check = Array("123456789".utf8)
        check.withUnsafeBytes { buffer in
            #expect(cairn_crc32c_extend(0, buffer.baseAddress, buffer.count) == 0xE306_9283)
            #expect(cairn_crc32c_extend_portable(0, buffer.baseAddress, buffer.count) == 0xE306_9283)
        }
        #expect(cairn_crc32c_extend(0, nil, 0) == 0, "the CRC of nothing is 0")
        // 32 bytes of zeros, and of 0xFF: test vectors from RFC 3720 (iSCSI), appendix B.4.
        [UInt8](repeating: 0, count: 32).withUnsafeBytes { #expect(cairn_crc32c_extend(0, $0.baseAddress, 32) == 0x8A91_36AA) }
        [UInt8](repeating: 0xFF, count: 32).withUnsafeBytes { #expect(cairn_crc32c_extend(0, $0.baseAddress, 32) == 0x62A8_AB43) }
        // The on-disk mask is LevelDB's: rotate right by 15, add a constant.
        #expect(Checksum.mask(0) == 0xA282_EAD8)
        let crc: UInt32 = 0xE306_9283
        #expect(Checksum.mask(crc) == ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8)
    }

    @Test("the hardware and portable CRC32C agree on random buffers, offsets, lengths and split points")
    func crcPathsAgree() {
        var random = SeededRandom(seed: 106)
        let buffer = Self.randomBytes(70_000, &random)
        var disagreements = 0
        buffer.withUnsafeBytes { all in
            for _ in 0..<3000 {
                let start = Int(random.next() % 64)  // unaligned starts exercise the hardware path's prologue
                let length = random.next() % 4 == 0 ? Int(random.next() % 65_000) : Int(random.next() % 300)
                let split = length == 0 ? 0 : Int(random.next() % UInt64(length + 1))
                let base = all.baseAddress! + start
                let whole = cairn_crc32c_extend_portable(0, base, length)
                let hardware = cairn_crc32c_extend(0, base, length)
                let pieces = cairn_crc32c_extend(cairn_crc32c_extend(0, base, split), base + split, length - split)
                let portablePieces = cairn_crc32c_extend_portable(
                    cairn_crc32c_extend_portable(0, base, split), base + split, length - split)
                if whole != hardware || whole != pieces || whole != portablePieces {
                    disagreements += 1
                    if disagreements <= 5 {
                        Issue.record("start \(start) length \(length) split \(split): portable \(whole), hardware \(hardware), pieces \(pieces)/\(portablePieces)")
                    }
                }
            }
        }
        #expect(disagreements == 0)
        // The check is only meaningful against a different implementation when the CPU has SSE4.2.
        print("CRC32C hardware path in use: \(cairn_crc32c_is_hardware() != 0)")
    }

    // MARK: Frame headers

    @Test("frame headers round-trip through encode and decode")
    func headerRoundTrip() throws {
        var random = SeededRandom(seed: 107)
        for _ in 0..<2000 {
            let compressed = random.next() % 2 == 0
            let count = UInt32(1 + random.next() % 100_000)
            let raw = UInt32(5 * UInt64(count) + random.next() % UInt64(SegmentFormat.maxFramePayload + 1 - 5 * Int(count)))
            let header = FrameHeader(
                flags: (compressed ? SegmentFormat.flagCompressed : 0) | (random.next() % 2 == 0 ? SegmentFormat.flagCommit : 0)
                    | (random.next() % 2 == 0 ? SegmentFormat.flagFirst : 0),
                storedLength: compressed ? UInt32(random.next() % UInt64(SegmentFormat.maxFramePayload + 1)) : raw,
                rawLength: raw, baseLSN: 1 + random.next() % (SegmentFormat.lsnLimit - 200_000), recordCount: count,
                syncedEnd: UInt32(truncatingIfNeeded: random.next()), payloadCRC: UInt32(truncatingIfNeeded: random.next()))
            var bytes: [UInt8] = []
            header.encode(into: &bytes)
            #expect(bytes.count == SegmentFormat.frameHeaderSize)
            #expect(try Self.decodeHeader(bytes).get() == header)
        }
    }

    @Test("the header decoder rejects zeros, bad magic, bad checksums, other versions, unknown flags and absurd lengths")
    func headerRejectsDamage() throws {
        func problem(_ bytes: [UInt8]) -> FrameHeader.Problem? {
            if case .failure(let box) = Self.decodeHeader(bytes) { return box.problem }
            return nil
        }
        /// A field problem found after the checksum passed (lengths, record count).
        func isLengthProblem(_ problem: FrameHeader.Problem) -> Bool {
            if case .badField(let what) = problem { return what.contains("length") }
            return false
        }
        let valid = Self.validHeader()
        #expect(problem(valid) == nil, "the base header is valid")
        #expect(problem([UInt8](repeating: 0, count: 40)) == .zero)

        var badMagic = valid
        badMagic[0] ^= 0x01
        #expect(problem(badMagic) == .badMagic)
        #expect(problem(Self.resealed(badMagic)) == .badMagic, "a correct checksum does not excuse a wrong magic")

        // Every single-bit flip anywhere in the header is caught.
        for byte in 0..<40 {
            for bit in 0..<8 {
                var flipped = valid
                flipped[byte] ^= UInt8(1 << bit)
                let found = problem(flipped)
                #expect(found == (byte < 4 ? .badMagic : .badChecksum), "bit \(bit) of byte \(byte): \(String(describing: found))")
            }
        }

        var version = valid
        version[4] = 3
        #expect(problem(Self.resealed(version)) == .unsupportedVersion(3))
        #expect(FrameHeader.Problem.unsupportedVersion(3).isNewerFormat)
        version[4] = 1
        #expect(problem(Self.resealed(version)) == .unsupportedVersion(1))
        #expect(!FrameHeader.Problem.unsupportedVersion(1).isNewerFormat, "an older frame version is not a newer format")

        // Unknown flags pass the checksum but are refused (as a newer format), naming the flags.
        for flags: UInt8 in [8, 0x80, 0xFF, SegmentFormat.flagCommit | 0x10] {
            let found = problem(Self.validHeader(flags: flags))
            #expect(found != nil && found != .badChecksum && found != .badMagic, "flags \(flags): \(String(describing: found))")
            #expect(found.map { "\($0)" }?.contains("flags") == true, "flags \(flags): \(String(describing: found))")
        }

        let limit = UInt32(SegmentFormat.maxFramePayload)
        let compressed = SegmentFormat.flagCompressed | SegmentFormat.flagCommit
        #expect(problem(Self.validHeader(flags: compressed, stored: 100, raw: limit)) == nil, "the limit itself is allowed")
        #expect(problem(Self.validHeader(flags: compressed, stored: 100, raw: limit + 1)).map(isLengthProblem) == true, "absurd length")
        #expect(problem(Self.validHeader(flags: compressed, stored: limit + 1, raw: 100)).map(isLengthProblem) == true, "absurd length")
        #expect(problem(Self.validHeader(flags: compressed, stored: .max, raw: .max)).map(isLengthProblem) == true, "absurd length")
        #expect(problem(Self.validHeader(flags: SegmentFormat.flagCommit, stored: 100, raw: 101)).map(isLengthProblem) == true,
                "an uncompressed frame's two lengths must agree")

        var noRecords: [UInt8] = []
        FrameHeader(flags: 0, storedLength: 10, rawLength: 10, baseLSN: 1, recordCount: 0, syncedEnd: 0, payloadCRC: 0)
            .encode(into: &noRecords)
        #expect(problem(noRecords).map(isLengthProblem) == false, "a frame with no records is refused")

        // Numbers that would overflow LSN arithmetic or cannot be true are refused although the checksum holds.
        for (base, count, raw) in [(UInt64.max, 1, 100), (SegmentFormat.lsnLimit - 1, 2, 100), (0, 1, 100), (1, 21, 100)] as [(UInt64, UInt32, UInt32)] {
            var bytes: [UInt8] = []
            FrameHeader(flags: 0, storedLength: raw, rawLength: raw, baseLSN: base, recordCount: count, syncedEnd: 0, payloadCRC: 0)
                .encode(into: &bytes)
            #expect(problem(bytes) != nil, "base LSN \(base), \(count) records in \(raw) bytes")
        }

        // A header whose every byte is random is (practically) never accepted.
        var random = SeededRandom(seed: 108)
        var accepted = 0
        for _ in 0..<5000 where problem(Self.randomBytes(40, &random)) == nil { accepted += 1 }
        #expect(accepted == 0)
    }
}
