import CairnModel

// The primitives of the target and globals event values (TargetEvents.swift, GlobalsEvent.swift):
//
//   u8                one byte
//   i32, i64          little-endian two's complement
//   timestamp         seconds i64, nanoseconds i32 (as in RemoteDocumentEvent.swift)
//   varint            unsigned LEB128, at most 10 bytes
//   blob              varint length, then that many bytes
//   string            blob of UTF-8
//   document-key      string: the document path, segments joined with "/"

/// Builds an event value from the primitives listed at the top of this file.
///
/// ```swift
/// var writer = EventWriter()
/// writer.byte(1)                     // format version
/// writer.blob(resumeToken)
/// let value = writer.bytes
/// ```
struct EventWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ byte: UInt8) { bytes.append(byte) }

    mutating func int32(_ value: Int32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func int64(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func timestamp(_ timestamp: Timestamp) { appendTimestamp(timestamp, to: &bytes) }

    mutating func varint(_ value: UInt64) { bytes.appendVarint(value) }

    mutating func blob(_ blob: [UInt8]) {
        varint(UInt64(blob.count))
        bytes.append(contentsOf: blob)
    }

    mutating func string(_ string: String) { blob(Array(string.utf8)) }

    mutating func documentKey(_ key: DocumentKey) { string(key.path.canonicalString) }

    /// Appends raw bytes that run to the end of the value (such as an encoded query).
    mutating func rest(_ rest: [UInt8]) { bytes.append(contentsOf: rest) }
}

/// Reads an event value, checking every length against the bytes left: damaged values throw `dataLoss` naming
/// the event and the offset, and never read out of bounds or allocate on the word of a damaged length.
///
/// ```swift
/// var reader = EventReader(value, event: "targetSaved event of target 2")
/// try reader.formatVersion(1)
/// let token = try reader.blob("resume token")
/// try reader.expectEnd()
/// ```
struct EventReader {
    let buffer: UnsafeRawBufferPointer
    private(set) var offset = 0
    /// Names the event in error messages.
    let event: String

    init(_ buffer: UnsafeRawBufferPointer, event: String) {
        self.buffer = buffer
        self.event = event
    }

    var remaining: Int { buffer.count - offset }

    /// Reads the format version byte and refuses any other version.
    mutating func formatVersion(_ expected: UInt8) throws {
        let version = try byte("format version")
        guard version == expected else {
            throw LocalStoreError.dataLoss(
                "the \(event) has format version \(version); this build reads version \(expected) "
                    + "(a newer Cairn wrote it: upgrade Cairn, or clear the cache)")
        }
    }

    mutating func byte(_ what: String) throws -> UInt8 {
        guard remaining >= 1 else { throw damaged("input ends inside \(what)") }
        defer { offset += 1 }
        return buffer[offset]
    }

    mutating func int32(_ what: String) throws -> Int32 {
        guard remaining >= 4 else { throw damaged("input ends inside \(what)") }
        defer { offset += 4 }
        return Int32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self))
    }

    mutating func int64(_ what: String) throws -> Int64 {
        guard remaining >= 8 else { throw damaged("input ends inside \(what)") }
        defer { offset += 8 }
        return Int64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    }

    mutating func timestamp(_ what: String) throws -> Timestamp {
        guard remaining >= 12 else { throw damaged("input ends inside \(what)") }
        defer { offset += 12 }
        return loadTimestamp(buffer, at: offset)
    }

    mutating func varint(_ what: String) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte(what)
            if shift == 63 && byte > 1 { throw damaged("\(what) overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads a count of items that take at least `minimumBytesPerItem` bytes each, checked against the bytes left.
    mutating func count(_ what: String, minimumBytesPerItem: Int) throws -> Int {
        let count = try varint(what)
        guard count <= UInt64(remaining / minimumBytesPerItem) else {
            throw damaged("\(what) \(count) exceeds the \(remaining) bytes left")
        }
        return Int(count)
    }

    mutating func blob(_ what: String) throws -> [UInt8] {
        let length = try count(what, minimumBytesPerItem: 1)
        defer { offset += length }
        return Array(buffer[offset..<offset + length])
    }

    mutating func string(_ what: String) throws -> String {
        let length = try count(what, minimumBytesPerItem: 1)
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + length])
        guard let string = String(validating: bytes, as: UTF8.self) else { throw damaged("invalid UTF-8 in \(what)") }
        offset += length
        return string
    }

    mutating func documentKey(_ what: String) throws -> DocumentKey {
        let path = try string(what)
        do {
            return try DocumentKey(parsing: path)
        } catch {
            throw damaged("\(what) is not a document path (\(error.message))")
        }
    }

    /// The bytes from here to the end of the value.
    mutating func rest() -> UnsafeRawBufferPointer {
        defer { offset = buffer.count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset...])
    }

    func expectEnd() throws {
        guard remaining == 0 else { throw damaged("\(remaining) unexpected bytes after the value") }
    }

    func damaged(_ problem: String) -> LocalStoreError {
        LocalStoreError.dataLoss(
            "the \(event) is damaged: \(problem) at byte \(offset) of \(buffer.count); clear the cache to rebuild it")
    }
}
