/// Reads the document format described in `DocumentCodec.swift`, checking every byte it reads.
///
/// ```swift
/// var decoder = try DocumentDecoder(document: buffer)   // checks the version byte
/// let fields = try decoder.readMapBody(depth: 0)
/// ```
struct DocumentDecoder {
    var reader: ByteReader

    /// A decoder positioned after the version byte of a whole document.
    init(document bytes: UnsafeRawBufferPointer) throws(ModelError) {
        reader = ByteReader(bytes)
        let version = try reader.readByte("format version")
        guard version == DocumentCodec.formatVersion else {
            guard version > DocumentCodec.formatVersion else {
                throw reader.corrupt("format version byte \(version) (these bytes are not a Cairn document)")
            }
            throw ModelError(
                .dataLoss,
                "cannot decode stored document: format version \(version) is newer than the version "
                    + "\(DocumentCodec.formatVersion) this build reads; the cache was written by a newer Cairn "
                    + "(upgrade Cairn, or clear the cache) or is damaged"
            )
        }
    }

    private init(reader: ByteReader) {
        self.reader = reader
    }

    /// Reads an entry count and the entries; keys must be strictly ascending in UTF-8 order.
    mutating func readMapBody(depth: Int) throws(ModelError) -> ObjectValue {
        // An entry takes at least 3 bytes: key length, value length and a value tag.
        let count = try reader.readLength("map entry count", minimumBytesPerUnit: 3)
        var fields: [String: Value] = [:]
        fields.reserveCapacity(count)
        var previousKey: UnsafeRawBufferPointer?
        for _ in 0..<count {
            let keyLength = try reader.readLength("map key length", minimumBytesPerUnit: 1)
            let keyBytes = try reader.readBytes(keyLength, "map key")
            if let previousKey, BytewiseOrder.compare(previousKey, keyBytes) >= 0 {
                throw reader.corrupt("map keys out of UTF-8 order or repeated")
            }
            previousKey = keyBytes
            let key = try makeString(keyBytes, "map key")
            let valueLength = try reader.readLength("map value length", minimumBytesPerUnit: 1)
            let valueEnd = reader.offset + valueLength
            let value = try readValue(depth: depth)
            guard reader.offset == valueEnd else {
                throw reader.corrupt("map value length \(valueLength) does not match the value it prefixes")
            }
            if fields.updateValue(value, forKey: key) != nil {
                throw reader.corrupt("two map keys that differ only in Unicode normalisation")
            }
        }
        return ObjectValue(fields)
    }

    /// Reads one tagged value. `depth` counts the arrays and maps around it.
    mutating func readValue(depth: Int) throws(ModelError) -> Value {
        let tag = try reader.readByte("value tag")
        switch tag {
        case DocumentTag.null:
            return .null
        case DocumentTag.falseValue:
            return .boolean(false)
        case DocumentTag.trueValue:
            return .boolean(true)
        case DocumentTag.integer:
            return .integer(try reader.readSignedVarint("integer"))
        case DocumentTag.double:
            return .double(Double(bitPattern: try reader.readUInt64("double")))
        case DocumentTag.timestamp:
            return .timestamp(try readTimestamp())
        case DocumentTag.serverTimestamp:
            return .serverTimestamp(localWriteTime: try readTimestamp(), previous: nil)
        case DocumentTag.serverTimestampWithPrevious:
            let localWriteTime = try readTimestamp()
            try checkDepth(depth + 1)
            return .serverTimestamp(localWriteTime: localWriteTime, previous: try readValue(depth: depth + 1))
        case DocumentTag.string:
            return .string(try readString("string"))
        case DocumentTag.bytes:
            let count = try reader.readLength("bytes length", minimumBytesPerUnit: 1)
            return .bytes(Array(try reader.readBytes(count, "bytes")))
        case DocumentTag.reference:
            return try readReference()
        case DocumentTag.geoPoint:
            let latitude = Double(bitPattern: try reader.readUInt64("geopoint latitude"))
            let longitude = Double(bitPattern: try reader.readUInt64("geopoint longitude"))
            return .geoPoint(GeoPoint(latitude: latitude, longitude: longitude))
        case DocumentTag.array:
            try checkDepth(depth + 1)
            let count = try reader.readLength("array count", minimumBytesPerUnit: 1)
            var values: [Value] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try readValue(depth: depth + 1)) }
            return .array(values)
        case DocumentTag.map:
            try checkDepth(depth + 1)
            return .map(try readMapBody(depth: depth + 1))
        default:
            throw reader.corrupt("unknown value tag \(tag)")
        }
    }

    /// Walks down the map at the reader's position to the value at `segments`, skipping other entries unread.
    mutating func findValue(at segments: ArraySlice<String>, depth: Int) throws(ModelError) -> Value? {
        let target = Array(segments.first!.utf8)
        let count = try reader.readLength("map entry count", minimumBytesPerUnit: 3)
        for _ in 0..<count {
            let keyLength = try reader.readLength("map key length", minimumBytesPerUnit: 1)
            let keyBytes = try reader.readBytes(keyLength, "map key")
            let order = target.withUnsafeBytes { BytewiseOrder.compare(keyBytes, $0) }
            let valueLength = try reader.readLength("map value length", minimumBytesPerUnit: 1)
            if order < 0 {
                try reader.skip(valueLength, "map value")
                continue
            }
            // Keys are sorted: once past the target, it is not there.
            guard order == 0 else { return nil }
            let valueRange = reader.offset..<reader.offset + valueLength
            var value = DocumentDecoder(reader: ByteReader(reader.buffer, range: valueRange))
            let rest = segments.dropFirst()
            if rest.isEmpty {
                let result = try value.readValue(depth: depth)
                guard value.reader.isAtEnd else {
                    throw value.reader.corrupt("map value length \(valueLength) does not match the value it prefixes")
                }
                return result
            }
            let tag = try value.reader.readByte("value tag")
            guard tag == DocumentTag.map else {
                guard tag <= DocumentTag.map else { throw value.reader.corrupt("unknown value tag \(tag)") }
                return nil
            }
            try checkDepth(depth + 1)
            return try value.findValue(at: rest, depth: depth + 1)
        }
        return nil
    }

    private func checkDepth(_ depth: Int) throws(ModelError) {
        guard depth <= DocumentCodec.maxNestingDepth else {
            throw reader.corrupt("values nested deeper than \(DocumentCodec.maxNestingDepth) levels")
        }
    }

    private mutating func readTimestamp() throws(ModelError) -> Timestamp {
        let seconds = try reader.readSignedVarint("timestamp seconds")
        guard let nanoseconds = Int32(exactly: try reader.readSignedVarint("timestamp nanoseconds")) else {
            throw reader.corrupt("timestamp nanoseconds outside the 32-bit range")
        }
        return Timestamp(seconds: seconds, nanoseconds: nanoseconds)
    }

    private mutating func readReference() throws(ModelError) -> Value {
        let projectID = try readString("reference project id")
        let databaseID = try readString("reference database id")
        // A segment takes at least its length byte.
        let count = try reader.readLength("reference segment count", minimumBytesPerUnit: 1)
        guard count >= 2, count % 2 == 0 else {
            throw reader.corrupt("reference path with \(count) segments (a document path has an even number)")
        }
        var segments: [String] = []
        segments.reserveCapacity(count)
        for _ in 0..<count { segments.append(try readString("reference path segment")) }
        let key = DocumentKey(path: ResourcePath(segments: segments))
        return .reference(DatabaseID(projectID: projectID, databaseID: databaseID), key)
    }

    private mutating func readString(_ what: StaticString) throws(ModelError) -> String {
        let length = try reader.readLength(what, minimumBytesPerUnit: 1)
        return try makeString(try reader.readBytes(length, what), what)
    }

    private func makeString(_ bytes: UnsafeRawBufferPointer, _ what: StaticString) throws(ModelError) -> String {
        // Most keys and strings are ASCII, which is valid UTF-8: a word-at-a-time check then skips the generic
        // (and much slower) validating initialiser.
        if Self.isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw reader.corrupt("invalid UTF-8 in \(what)")
        }
        return string
    }

    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
