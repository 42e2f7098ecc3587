// The on-disk format of segment files (FORMAT.md has the prose and a worked example).
//
//   segment      := segmentHeader frame*
//   segmentHeader:= magic "CAIRNSEG" (8 bytes) | formatVersion u32 | segmentID u32 | reserved u64 (0)
//                  | headerCRC u32 (masked CRC32C of the 24 bytes before it)                   = 28 bytes
//   frame        := frameHeader payload[storedLength]
//   frameHeader  := magic u32 0x4D524643 ("CFRM") | version u8 | flags u8 | reserved u16 (0)
//                  | storedLength u32 | rawLength u32 | baseLSN u64 | recordCount u32
//                  | payloadCRC u32 (masked CRC32C of the stored payload)
//                  | headerCRC u32 (masked CRC32C of the 32 bytes before it)                   = 36 bytes
//   flags        := bit 0 compressed (payload is one LZ4 block of rawLength bytes)
//                   bit 1 commit   (the frame's last record ends an atomic batch)
//   rawPayload   := record[recordCount]
//   record       := kind u8 | lsnDelta varint | keyLength varint | valueLength varint | key | value
//   lsnDelta     := zigzag(record LSN - baseLSN), so a frame's records may be in any LSN order
//
// All integers are little-endian; varints are unsigned LEB128. A record's log sequence number is
// baseLSN + unzigzag(lsnDelta); keys are never empty. A batch may span frames; every frame without the commit flag holds records of one
// batch only, which continues in the next frame. Recovery therefore cuts the active segment after the last
// intact frame with the commit flag.

enum SegmentFormat {
    /// The format version this code writes and the newest it reads.
    static let version: UInt32 = 1
    static let segmentMagic: [UInt8] = Array("CAIRNSEG".utf8)
    static let segmentHeaderSize = 28
    static let frameMagic: UInt32 = 0x4D52_4643
    static let frameVersion: UInt8 = 1
    static let frameHeaderSize = 36
    static let flagCompressed: UInt8 = 1
    static let flagCommit: UInt8 = 2
    static let knownFlags: UInt8 = flagCompressed | flagCommit
    /// Upper bound on a frame's raw payload; larger lengths in a header are treated as damage.
    static let maxFramePayload = 64 << 20

    static func segmentFileName(_ id: UInt32) -> String {
        let digits = String(id)
        return String(repeating: "0", count: max(0, 12 - digits.count)) + digits + ".seg"
    }

    /// The segment id in a file name like `000000000007.seg`, or nil for other names.
    static func segmentID(fromFileName name: String) -> UInt32? {
        let digits = name.utf8.prefix(12)
        guard name.hasSuffix(".seg"), name.utf8.count == 16, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt32(name.prefix(12))
    }

    static func encodeSegmentHeader(id: UInt32) -> [UInt8] {
        var bytes = segmentMagic
        bytes.appendLE(version)
        bytes.appendLE(id)
        bytes.appendLE(UInt64(0))
        bytes.appendLE(Checksum.masked(bytes))
        return bytes
    }

    /// Checks a segment header; throws `formatVersion` or `corruption`.
    static func checkSegmentHeader(_ bytes: [UInt8], id: UInt32, path: String) throws {
        guard bytes.count == segmentHeaderSize else {
            throw StorageError(.corruption, "segment \(id) is shorter than its header", path: path, offset: 0)
        }
        guard Array(bytes[0..<8]) == segmentMagic else {
            throw StorageError(.corruption, "segment \(id) does not start with a segment header", path: path, offset: 0)
        }
        try bytes.withUnsafeBytes { raw in
            let stored = loadLE(raw, 24, as: UInt32.self)
            guard Checksum.masked(UnsafeRawBufferPointer(rebasing: raw[0..<24])) == stored else {
                throw StorageError(.corruption, "segment \(id) header checksum mismatch", path: path, offset: 0)
            }
            let fileVersion = loadLE(raw, 8, as: UInt32.self)
            guard fileVersion <= version else {
                throw StorageError(
                    .formatVersion,
                    "segment \(id) has format version \(fileVersion); this code reads up to \(version)",
                    path: path, offset: 8)
            }
            let storedID = loadLE(raw, 12, as: UInt32.self)
            guard storedID == id else {
                throw StorageError(
                    .corruption, "segment file for id \(id) holds id \(storedID)", path: path, offset: 12)
            }
        }
    }
}

/// A decoded, checksum-verified frame header.
struct FrameHeader: Equatable {
    var flags: UInt8
    var storedLength: UInt32
    var rawLength: UInt32
    var baseLSN: UInt64
    var recordCount: UInt32
    var payloadCRC: UInt32

    var isCompressed: Bool { flags & SegmentFormat.flagCompressed != 0 }
    var isCommit: Bool { flags & SegmentFormat.flagCommit != 0 }
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
        bytes.appendLE(payloadCRC)
        let crc = bytes.withUnsafeBytes { Checksum.masked(UnsafeRawBufferPointer(rebasing: $0[start..<(start + 32)])) }
        bytes.appendLE(crc)
    }

    /// Why a header could not be decoded.
    enum Problem: Equatable {
        case zero, badMagic, badChecksum, unsupportedVersion(UInt8), unknownFlags(UInt8), badField(String)

        /// The header is intact (its checksum holds) but written by a newer format than this code reads.
        var isNewerFormat: Bool {
            switch self {
            case .unsupportedVersion, .unknownFlags: return true
            default: return false
            }
        }
    }

    /// Decodes and checks a 36-byte header.
    static func decode(_ raw: UnsafeRawBufferPointer) -> Result<FrameHeader, ProblemBox> {
        precondition(raw.count >= SegmentFormat.frameHeaderSize)
        if raw.prefix(SegmentFormat.frameHeaderSize).allSatisfy({ $0 == 0 }) { return .failure(ProblemBox(.zero)) }
        guard loadLE(raw, 0, as: UInt32.self) == SegmentFormat.frameMagic else {
            return .failure(ProblemBox(.badMagic))
        }
        let stored = loadLE(raw, 32, as: UInt32.self)
        guard Checksum.masked(UnsafeRawBufferPointer(rebasing: raw[0..<32])) == stored else {
            return .failure(ProblemBox(.badChecksum))
        }
        let version = raw[4]
        guard version == SegmentFormat.frameVersion else {
            return .failure(ProblemBox(.unsupportedVersion(version)))
        }
        let header = FrameHeader(
            flags: raw[5], storedLength: loadLE(raw, 8, as: UInt32.self), rawLength: loadLE(raw, 12, as: UInt32.self),
            baseLSN: loadLE(raw, 16, as: UInt64.self), recordCount: loadLE(raw, 24, as: UInt32.self),
            payloadCRC: loadLE(raw, 28, as: UInt32.self))
        if header.flags & ~SegmentFormat.knownFlags != 0 { return .failure(ProblemBox(.unknownFlags(header.flags))) }
        if Int(header.rawLength) > SegmentFormat.maxFramePayload || Int(header.storedLength) > SegmentFormat.maxFramePayload {
            return .failure(ProblemBox(.badField("length over the 64 MiB frame limit")))
        }
        if !header.isCompressed && header.rawLength != header.storedLength {
            return .failure(ProblemBox(.badField("uncompressed frame with differing lengths")))
        }
        if header.recordCount == 0 { return .failure(ProblemBox(.badField("frame with no records"))) }
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
        case .unsupportedVersion(let v): return "frame version \(v) is newer than this code reads (\(SegmentFormat.frameVersion))"
        case .unknownFlags(let flags): return "frame flags \(flags) include bits this code does not know (a newer format)"
        case .badField(let what): return "invalid frame header (\(what))"
        }
    }
}
