// The byte-level codings of the LevelDB baseline's keys: OrderedCode's string and signed-number encodings
// (`Firestore/core/src/util/ordered_code.cc`: both preserve order under bytewise comparison), and the labelled
// components of `leveldb_key.cc` built on them. Written for the benchmark from the encodings' descriptions.

import CairnModel

/// OrderedCode: strings escape 0x00 as 0x00 0xFF and 0xFF as 0xFF 0x00 and end with 0x00 0x01; signed numbers
/// take 1 to 10 bytes, the length in the leading bits (n bytes encode [-2^(7n-1), 2^(7n-1))).
enum OrderedCode {
    static func appendString(_ bytes: some Sequence<UInt8>, to output: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case 0x00: output += [0x00, 0xFF]
            case 0xFF: output += [0xFF, 0x00]
            default: output.append(byte)
            }
        }
        output += [0x00, 0x01]
    }

    static func appendSignedIncreasing(_ value: Int64, to output: inout [UInt8]) {
        let magnitude = UInt64(bitPattern: value < 0 ? ~value : value)
        let bits = magnitude == 0 ? 0 : 64 - magnitude.leadingZeroBitCount
        let length = min(bits / 7 + 1, 10)
        // Big-endian, sign-extended to 10 bytes; the header bits are XORed into the first one or two bytes.
        let sign: UInt8 = value < 0 ? 0xFF : 0x00
        var buffer = [sign, sign]
        withUnsafeBytes(of: UInt64(bitPattern: value).bigEndian) { buffer.append(contentsOf: $0) }
        var encoded = Array(buffer[(10 - length)...])
        let header: (UInt8, UInt8) = switch length {
        case 1: (0x80, 0)
        case 2: (0xC0, 0)
        case 3: (0xE0, 0)
        case 4: (0xF0, 0)
        case 5: (0xF8, 0)
        case 6: (0xFC, 0)
        case 7: (0xFE, 0)
        case 8: (0xFF, 0)
        case 9: (0xFF, 0x80)
        default: (0xFF, 0xC0)
        }
        encoded[0] ^= header.0
        if length > 1 { encoded[1] ^= header.1 }
        output += encoded
    }

    /// Reads a signed number written by ``appendSignedIncreasing(_:to:)`` at `offset`, advancing it.
    static func readSignedIncreasing(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) throws -> Int64 {
        guard offset < bytes.count else { throw BenchError("leveldb: a key ends inside a number") }
        let first = bytes[offset]
        // The length is the count of leading bits equal to the complement of the sign bit, plus one.
        let negative = first & 0x80 == 0
        var length = 0
        var header = UInt16(first) << 8 | UInt16(offset + 1 < bytes.count ? bytes[offset + 1] : 0)
        if negative { header = ~header }
        while length < 10, header & 0x8000 != 0 {
            length += 1
            header <<= 1
        }
        guard length >= 1, offset + length <= bytes.count else {
            throw BenchError("leveldb: a key holds a malformed number")
        }
        var value: UInt64 = negative ? ~0 : 0
        for index in 0..<length { value = value << 8 | UInt64(bytes[offset + index]) }
        // Clear the header bits: they are the leading `length + 1` bits of the encoding (sign included).
        let payloadBits = 8 * length - (length + 1) + 1
        let mask: UInt64 = payloadBits >= 64 ? ~0 : (1 << UInt64(payloadBits)) - 1
        value = negative ? (value | ~mask) : (value & mask)
        offset += length
        return Int64(bitPattern: value)
    }

    /// Reads a string written by ``appendString(_:to:)`` at `offset`, advancing it.
    static func readString(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) throws -> [UInt8] {
        var result: [UInt8] = []
        while offset + 1 < bytes.count {
            let byte = bytes[offset]
            let next = bytes[offset + 1]
            switch (byte, next) {
            case (0x00, 0x01):
                offset += 2
                return result
            case (0x00, 0xFF): result.append(0x00); offset += 2
            case (0xFF, 0x00): result.append(0xFF); offset += 2
            case (0x00, _), (0xFF, _): throw BenchError("leveldb: a key holds a malformed string")
            default: result.append(byte); offset += 1
            }
        }
        throw BenchError("leveldb: a key ends inside a string")
    }
}

/// The component labels of `leveldb_key.cc` (written as OrderedCode signed numbers; a terminator ends every
/// complete key, and path segments sort after every other label).
enum ComponentLabel: Int64 {
    case terminator = 0
    case tableName = 5
    case batchID = 10
    case canonicalID = 11
    case targetID = 12
    case userID = 13
    case collectionID = 14
    case documentID = 15
    case snapshotVersion = 16
    case indexID = 19
    case indexArrayValue = 20
    case indexDirectionalValue = 21
    case collectionGroup = 22
    /// The component `leveldb_key.h` lists as `ordered_document_key` of `index_entries`.
    case indexOrderedDocumentKey = 23
    case pathSegment = 62
}

/// Builds a key component by component.
struct OrderedKeyWriter {
    private(set) var bytes: [UInt8] = []

    init(table: String) {
        bytes.reserveCapacity(96)
        string(.tableName, table)
    }

    mutating func label(_ label: ComponentLabel) { OrderedCode.appendSignedIncreasing(label.rawValue, to: &bytes) }

    mutating func string(_ label: ComponentLabel, _ value: String) { string(label, value.utf8) }

    mutating func string(_ label: ComponentLabel, _ value: some Sequence<UInt8>) {
        self.label(label)
        OrderedCode.appendString(value, to: &bytes)
    }

    mutating func number(_ label: ComponentLabel, _ value: Int64) {
        self.label(label)
        OrderedCode.appendSignedIncreasing(value, to: &bytes)
    }

    mutating func path(_ path: ResourcePath) {
        for segment in path.segments { string(.pathSegment, segment) }
    }

    mutating func snapshotVersion(_ version: Timestamp) {
        label(.snapshotVersion)
        OrderedCode.appendSignedIncreasing(version.seconds, to: &bytes)
        OrderedCode.appendSignedIncreasing(Int64(version.nanoseconds), to: &bytes)
    }

    /// The complete key: the components and the terminator.
    func terminated() -> [UInt8] {
        var key = self
        key.label(.terminator)
        return key.bytes
    }
}

/// Reads the components of a key in order.
struct OrderedKeyReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Skips `count` bytes already known (a prefix the caller matched).
    mutating func skip(_ count: Int) throws {
        guard offset + count <= bytes.count else { throw BenchError("leveldb: a key is shorter than its prefix") }
        offset += count
    }

    mutating func expect(_ label: ComponentLabel) throws {
        let read = try OrderedCode.readSignedIncreasing(bytes, at: &offset)
        guard read == label.rawValue else {
            throw BenchError("leveldb: a key has component label \(read) where \(label) belongs")
        }
    }

    mutating func number(_ label: ComponentLabel) throws -> Int64 {
        try expect(label)
        return try OrderedCode.readSignedIncreasing(bytes, at: &offset)
    }

    /// A number whose label was already read (or skipped as part of a prefix).
    mutating func number() throws -> Int64 { try OrderedCode.readSignedIncreasing(bytes, at: &offset) }

    mutating func string(_ label: ComponentLabel) throws -> String {
        try expect(label)
        return String(decoding: try OrderedCode.readString(bytes, at: &offset), as: UTF8.self)
    }

    /// Path segments up to the next component that is not one.
    mutating func path() throws -> ResourcePath {
        var segments: [String] = []
        while offset < bytes.count {
            var next = offset
            guard try OrderedCode.readSignedIncreasing(bytes, at: &next) == ComponentLabel.pathSegment.rawValue else {
                break
            }
            offset = next
            segments.append(String(decoding: try OrderedCode.readString(bytes, at: &offset), as: UTF8.self))
        }
        return ResourcePath(segments: segments)
    }

    /// A snapshot version whose label was already read (or skipped as part of a prefix).
    mutating func snapshotVersion() throws -> Timestamp {
        try checkedTimestamp(seconds: try number(), nanoseconds: try number())
    }

    mutating func documentKey() throws -> DocumentKey {
        let path = try path()
        guard !path.segments.isEmpty, path.segments.count % 2 == 0 else {
            throw BenchError("leveldb: a key holds \(path), which is not a document path")
        }
        return DocumentKey(path: path)
    }
}

/// A timestamp read from the cache, its nanoseconds checked to be in `0..<1_000_000_000`.
func checkedTimestamp(seconds: Int64, nanoseconds: Int64) throws -> Timestamp {
    guard (0..<1_000_000_000).contains(nanoseconds) else {
        throw BenchError("leveldb: a stored timestamp has \(nanoseconds) nanoseconds, outside 0..<1000000000")
    }
    return Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
}

/// Fixed-width little-endian fields for the baseline's small values (read times, globals, index state).
struct BinaryRecord {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func append(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func append(_ value: [UInt8]) { bytes += value }

    struct Reader {
        private let bytes: UnsafeRawBufferPointer
        private(set) var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func int64() throws -> Int64 {
            guard offset + 8 <= bytes.count else { throw BenchError("leveldb: a value is truncated") }
            defer { offset += 8 }
            return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
        }

        mutating func int32() throws -> Int32 {
            guard offset + 4 <= bytes.count else { throw BenchError("leveldb: a value is truncated") }
            defer { offset += 4 }
            return Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self))
        }

        /// A timestamp: seconds (Int64) and nanoseconds (Int32, checked to be below one second).
        mutating func timestamp() throws -> Timestamp {
            try checkedTimestamp(seconds: try int64(), nanoseconds: Int64(try int32()))
        }

        /// The bytes after the fields read so far.
        var rest: [UInt8] { Array(bytes[offset...]) }
    }
}
