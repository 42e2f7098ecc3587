/// A bounds-checked cursor over bytes being decoded: every read either stays inside `start..<end` or throws
/// ``ModelError/Code/dataLoss``, and every length read from the bytes is checked against what is left, so a
/// corrupt length can neither read past the end nor make the decoder allocate more than the input's size.
///
/// ```swift
/// try bytes.withUnsafeBytes { buffer in
///     var reader = ByteReader(buffer)
///     let tag = try reader.readByte("value tag")
///     let count = try reader.readLength("array count", minimumBytesPerUnit: 1)
/// }
/// ```
struct ByteReader {
    /// What the bytes hold and what to do when they are damaged, for error messages.
    struct Subject {
        var name: String
        var remedy: String

        static let document = Subject(
            name: "stored document", remedy: "the stored bytes are damaged (re-fetch the document or clear the cache)")
        static let query = Subject(
            name: "stored query", remedy: "the stored target is damaged (clear the cache to rebuild it)")
        static let mutationBatch = Subject(
            name: "stored mutation batch",
            remedy: "the outbox record is damaged (clear the cache to drop the pending writes it holds)")
    }

    let buffer: UnsafeRawBufferPointer
    private(set) var offset: Int
    let end: Int
    let subject: Subject

    init(_ buffer: UnsafeRawBufferPointer, subject: Subject = .document) {
        self.buffer = buffer
        self.offset = 0
        self.end = buffer.count
        self.subject = subject
    }

    /// A reader over `range` of `buffer` (used to decode one length-prefixed value on its own).
    init(_ buffer: UnsafeRawBufferPointer, range: Range<Int>, subject: Subject = .document) {
        self.buffer = buffer
        self.offset = range.lowerBound
        self.end = range.upperBound
        self.subject = subject
    }

    var remaining: Int { end - offset }
    var isAtEnd: Bool { offset == end }

    /// Reads one byte; `what` names it in the error.
    mutating func readByte(_ what: StaticString) throws(ModelError) -> UInt8 {
        guard offset < end else { throw truncated(what) }
        let byte = buffer[offset]
        offset += 1
        return byte
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes.
    mutating func readVarint(_ what: StaticString) throws(ModelError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw truncated(what) }
            let byte = buffer[offset]
            offset += 1
            if shift == 63 && byte > 1 { throw corrupt("\(what) overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads a zigzag-encoded signed varint.
    mutating func readSignedVarint(_ what: StaticString) throws(ModelError) -> Int64 {
        let raw = try readVarint(what)
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// Reads a count or length and checks that the input still holds at least `minimumBytesPerUnit` bytes for
    /// each unit, so that nothing is ever allocated or skipped on the word of a corrupt length.
    mutating func readLength(_ what: StaticString, minimumBytesPerUnit: Int) throws(ModelError) -> Int {
        let value = try readVarint(what)
        guard value <= UInt64(remaining / minimumBytesPerUnit) else {
            throw corrupt("\(what) \(value) exceeds the \(remaining) bytes left")
        }
        return Int(value)
    }

    /// Reads `count` raw bytes (the caller has bounded `count` with ``readLength(_:minimumBytesPerUnit:)``).
    mutating func readBytes(_ count: Int, _ what: StaticString) throws(ModelError) -> UnsafeRawBufferPointer {
        guard count <= remaining else { throw truncated(what) }
        let slice = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
        offset += count
        return slice
    }

    /// Reads 8 bytes as a little-endian `UInt64`.
    mutating func readUInt64(_ what: StaticString) throws(ModelError) -> UInt64 {
        guard remaining >= 8 else { throw truncated(what) }
        let value = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return UInt64(littleEndian: value)
    }

    /// Moves past `count` bytes.
    mutating func skip(_ count: Int, _ what: StaticString) throws(ModelError) {
        guard count <= remaining else { throw truncated(what) }
        offset += count
    }

    /// A `dataLoss` error for input that ends in the middle of `what`.
    func truncated(_ what: StaticString) -> ModelError {
        corrupt("input ends inside \(what)")
    }

    /// A `dataLoss` error saying what is wrong and where.
    func corrupt(_ problem: String) -> ModelError {
        ModelError(.dataLoss, "cannot decode \(subject.name): \(problem) at byte \(offset) of \(buffer.count); \(subject.remedy)")
    }
}
