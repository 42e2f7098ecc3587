// The on-disk format of segment files (FORMAT.md has the prose and a worked example).
//
//   segment      := segmentHeader frame*
//   segmentHeader:= magic "CAIRNSEG" (8 bytes) | formatVersion u32 | segmentID u32 | cacheID u64
//                  | headerCRC u32 (masked CRC32C of the 24 bytes before it)                   = 28 bytes
//   frame        := frameHeader payload[storedLength]
//   frameHeader  := magic u32 0x4D524643 ("CFRM") | version u8 (2) | flags u8 | reserved u16 (0)
//                  | storedLength u32 | rawLength u32 | baseLSN u64 | recordCount u32
//                  | syncedEnd u32 (bytes of this segment known durable when the frame was written)
//                  | payloadCRC u32 (masked CRC32C of the stored payload)
//                  | headerCRC u32 (masked CRC32C of the 36 bytes before it)                   = 40 bytes
//   flags        := bit 0 compressed (payload is one LZ4 block of rawLength bytes)
//                   bit 1 commit   (the frame's last record ends an atomic batch)
//                   bit 2 first    (the frame's first record starts a batch)
//   rawPayload   := record[recordCount]
//   record       := kind u8 | lsnDelta varint | keyLength varint | valueLength varint | key | value
//   lsnDelta     := zigzag(record LSN - baseLSN), so a frame's records may be in any LSN order
//
// All integers are little-endian; varints are unsigned LEB128. A record's log sequence number is
// baseLSN + unzigzag(lsnDelta) and is below 2^62; keys are never empty. A batch may span frames; a frame
// without the commit flag holds records of one batch only, which continues in the next frame, and a frame
// without the first flag holds only the rest of the batch the previous frame started. Recovery cuts the
// active segment after the last intact commit frame, unless an intact frame says (syncedEnd) that bytes past
// the damage were already durable: then the damage is corruption, not a torn tail. The cacheID ties every
// segment to its log's manifest.

enum SegmentFormat {
    /// The format version this code writes and the newest it reads.
    static let version: UInt32 = 2
    static let segmentMagic: [UInt8] = Array("CAIRNSEG".utf8)
    static let segmentHeaderSize = 28
    static let frameMagic: UInt32 = 0x4D52_4643
    static let frameVersion: UInt8 = 2
    static let frameHeaderSize = 40
    static let flagCompressed: UInt8 = 1
    static let flagCommit: UInt8 = 2
    static let flagFirst: UInt8 = 4
    static let knownFlags: UInt8 = flagCompressed | flagCommit | flagFirst
    /// Upper bound on a frame's raw payload; larger lengths in a header are treated as damage.
    static let maxFramePayload = 64 << 20
    /// Every LSN is below this (2^62): a header or manifest field at or above it is damage, and LSN
    /// arithmetic (`maxLSN + 1`, `baseLSN + recordCount`) can never overflow.
    static let lsnLimit: UInt64 = 1 << 62
    /// Segment ids are 1 ... maxSegmentID, so `id + 1` never overflows.
    static let maxSegmentID: UInt32 = UInt32.max - 1
    /// Segment files stay below 4 GiB (frame offsets are u32).
    static let maxSegmentLength: UInt64 = UInt64(UInt32.max)

    static func segmentFileName(_ id: UInt32) -> String {
        let digits = String(id)
        return String(repeating: "0", count: max(0, 12 - digits.count)) + digits + ".seg"
    }

    /// The segment id in a file name like `000000000007.seg`, or nil for other names.
    static func segmentID(fromFileName name: String) -> UInt32? {
        let digits = name.utf8.prefix(12)
        guard name.hasSuffix(".seg"), name.utf8.count == 16, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let id = UInt32(name.prefix(12)), id >= 1, id <= maxSegmentID
        else { return nil }
        return id
    }

    static func encodeSegmentHeader(id: UInt32, cacheID: UInt64) -> [UInt8] {
        var bytes = segmentMagic
        bytes.appendLE(version)
        bytes.appendLE(id)
        bytes.appendLE(cacheID)
        bytes.appendLE(Checksum.masked(bytes))
        return bytes
    }

    /// Checks a segment header and returns the cache id it holds; throws `formatVersion` or `corruption`.
    /// With `cacheID`, a segment of another log (a file copied in from elsewhere) is `corruption`.
    @discardableResult
    static func checkSegmentHeader(_ bytes: [UInt8], id: UInt32, cacheID: UInt64?, path: String) throws -> UInt64 {
        guard bytes.count == segmentHeaderSize else {
            throw StorageError(.corruption, "segment \(id) is shorter than its header", path: path, offset: 0)
        }
        guard Array(bytes[0..<8]) == segmentMagic else {
            throw StorageError(.corruption, "segment \(id) does not start with a segment header", path: path, offset: 0)
        }
        return try bytes.withUnsafeBytes { raw in
            let stored = loadLE(raw, 24, as: UInt32.self)
            guard Checksum.masked(UnsafeRawBufferPointer(rebasing: raw[0..<24])) == stored else {
                throw StorageError(.corruption, "segment \(id) header checksum mismatch", path: path, offset: 0)
            }
            let fileVersion = loadLE(raw, 8, as: UInt32.self)
            guard fileVersion == version else {
                throw StorageError(
                    fileVersion > version || fileVersion == 1 ? .formatVersion : .corruption,
                    "segment \(id) has format version \(fileVersion); this code reads version \(version)",
                    path: path, offset: 8)
            }
            let storedID = loadLE(raw, 12, as: UInt32.self)
            guard storedID == id else {
                throw StorageError(
                    .corruption, "segment file for id \(id) holds id \(storedID)", path: path, offset: 12)
            }
            let storedCache = loadLE(raw, 16, as: UInt64.self)
            if let cacheID, storedCache != cacheID {
                throw StorageError(
                    .corruption,
                    "segment \(id) belongs to another log (cache id \(hex(storedCache)), this log is \(hex(cacheID))); "
                        + "it was copied in from elsewhere", path: path, offset: 16)
            }
            return storedCache
        }
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }
}

/// A decoded, checksum-verified frame header.
struct FrameHeader: Equatable {
    var flags: UInt8
    var storedLength: UInt32
    var rawLength: UInt32
    var baseLSN: UInt64
    var recordCount: UInt32
    /// Bytes of the segment that had been synced when the frame was written: damage below it, followed by
    /// this frame, hit data already acknowledged as durable.
    var syncedEnd: UInt32
    var payloadCRC: UInt32

    var isCompressed: Bool { flags & SegmentFormat.flagCompressed != 0 }
    var isCommit: Bool { flags & SegmentFormat.flagCommit != 0 }
    var isFirst: Bool { flags & SegmentFormat.flagFirst != 0 }
    /// One past the LSNs a commit frame's records get (`baseLSN ..< baseLSN + recordCount`; compaction frames
    /// may hold other LSNs). Decoding checks it stays below ``SegmentFormat/lsnLimit``.
    var endLSN: UInt64 { baseLSN + UInt64(recordCount) }
    var frameSize: Int { SegmentFormat.frameHeaderSize + Int(storedLength) }

    func encode(into bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.appendLE(SegmentFormat.frameMagic)
        bytes.append(SegmentFormat.frameVersion)
        bytes.append(flags)
        bytes.appendLE(UInt16(0))
        bytes.appendLE(storedLength)
        bytes.appendLE(rawLength)
        bytes.appendLE(baseLSN)
        bytes.appendLE(recordCount)
        bytes.appendLE(syncedEnd)
        bytes.appendLE(payloadCRC)
        let crc = bytes.withUnsafeBytes { Checksum.masked(UnsafeRawBufferPointer(rebasing: $0[start..<(start + 36)])) }
        bytes.appendLE(crc)
    }

    /// Why a header could not be decoded.
    enum Problem: Equatable {
        case zero, badMagic, badChecksum, unsupportedVersion(UInt8), unknownFlags(UInt8), badField(String)

        /// The header is intact (its checksum holds) but written by a newer format than this code reads.
        var isNewerFormat: Bool {
            switch self {
            case .unsupportedVersion(let version): return version > SegmentFormat.frameVersion
            case .unknownFlags: return true
            default: return false
            }
        }
    }

    /// Decodes and checks a 40-byte header.
    static func decode(_ raw: UnsafeRawBufferPointer) -> Result<FrameHeader, ProblemBox> {
        precondition(raw.count >= SegmentFormat.frameHeaderSize)
        if raw.prefix(SegmentFormat.frameHeaderSize).allSatisfy({ $0 == 0 }) { return .failure(ProblemBox(.zero)) }
        guard loadLE(raw, 0, as: UInt32.self) == SegmentFormat.frameMagic else {
            return .failure(ProblemBox(.badMagic))
        }
        let stored = loadLE(raw, 36, as: UInt32.self)
        guard Checksum.masked(UnsafeRawBufferPointer(rebasing: raw[0..<36])) == stored else {
            return .failure(ProblemBox(.badChecksum))
        }
        let version = raw[4]
        guard version == SegmentFormat.frameVersion else {
            return .failure(ProblemBox(.unsupportedVersion(version)))
        }
        let header = FrameHeader(
            flags: raw[5], storedLength: loadLE(raw, 8, as: UInt32.self), rawLength: loadLE(raw, 12, as: UInt32.self),
            baseLSN: loadLE(raw, 16, as: UInt64.self), recordCount: loadLE(raw, 24, as: UInt32.self),
            syncedEnd: loadLE(raw, 28, as: UInt32.self), payloadCRC: loadLE(raw, 32, as: UInt32.self))
        if header.flags & ~SegmentFormat.knownFlags != 0 { return .failure(ProblemBox(.unknownFlags(header.flags))) }
        if Int(header.rawLength) > SegmentFormat.maxFramePayload || Int(header.storedLength) > SegmentFormat.maxFramePayload {
            return .failure(ProblemBox(.badField("length over the 64 MiB frame limit")))
        }
        if !header.isCompressed && header.rawLength != header.storedLength {
            return .failure(ProblemBox(.badField("uncompressed frame with differing lengths")))
        }
        if header.recordCount == 0 { return .failure(ProblemBox(.badField("frame with no records"))) }
        if header.baseLSN == 0 || header.baseLSN >= SegmentFormat.lsnLimit - UInt64(header.recordCount) {
            return .failure(ProblemBox(.badField("base LSN \(header.baseLSN) out of range")))
        }
        if UInt64(header.recordCount) * 5 > UInt64(header.rawLength) {
            return .failure(ProblemBox(.badField("\(header.recordCount) records cannot fit in \(header.rawLength) bytes")))
        }
        return .success(header)
    }

    struct ProblemBox: Error, Equatable {
        let problem: Problem
        init(_ problem: Problem) { self.problem = problem }
    }
}

extension FrameHeader.Problem: CustomStringConvertible {
    var description: String {
        switch self {
        case .zero: return "zero-filled header"
        case .badMagic: return "no frame magic"
        case .badChecksum: return "frame header checksum mismatch"
        case .unsupportedVersion(let v): return "frame version \(v); this code reads version \(SegmentFormat.frameVersion)"
        case .unknownFlags(let flags): return "frame flags \(flags) include bits this code does not know (a newer format)"
        case .badField(let what): return "invalid frame header (\(what))"
        }
    }
}
