/// Writes values in the document format described in `DocumentCodec.swift`.
///
/// ```swift
/// var encoder = DocumentEncoder()
/// encoder.writeValue(.string("x"))   // buffer == [0x08, 0x01, 0x78]
/// ```
struct DocumentEncoder {
    var buffer: [UInt8] = []

    init() {
        buffer.reserveCapacity(256)
    }

    mutating func writeValue(_ value: Value) {
        switch value {
        case .null:
            buffer.append(DocumentTag.null)
        case .boolean(let flag):
            buffer.append(flag ? DocumentTag.trueValue : DocumentTag.falseValue)
        case .integer(let integer):
            buffer.append(DocumentTag.integer)
            writeSignedVarint(integer)
        case .double(let double):
            buffer.append(DocumentTag.double)
            writeDouble(double)
        case .timestamp(let time):
            buffer.append(DocumentTag.timestamp)
            writeTimestamp(time)
        case .serverTimestamp(let localWriteTime, let previous):
            if let previous {
                buffer.append(DocumentTag.serverTimestampWithPrevious)
                writeTimestamp(localWriteTime)
                writeValue(previous)
            } else {
                buffer.append(DocumentTag.serverTimestamp)
                writeTimestamp(localWriteTime)
            }
        case .string(let string):
            buffer.append(DocumentTag.string)
            writeString(string)
        case .bytes(let bytes):
            buffer.append(DocumentTag.bytes)
            writeVarint(UInt64(bytes.count))
            buffer.append(contentsOf: bytes)
        case .reference(let database, let key):
            buffer.append(DocumentTag.reference)
            writeString(database.projectID)
            writeString(database.databaseID)
            writeVarint(UInt64(key.path.count))
            for segment in key.path.segments { writeString(segment) }
        case .geoPoint(let point):
            buffer.append(DocumentTag.geoPoint)
            writeDouble(point.latitude)
            writeDouble(point.longitude)
        case .array(let values):
            buffer.append(DocumentTag.array)
            writeVarint(UInt64(values.count))
            for element in values { writeValue(element) }
        case .map(let object):
            buffer.append(DocumentTag.map)
            writeMapBody(object)
        }
    }

    /// The entry count, then each entry in UTF-8 key order with its value length-prefixed.
    mutating func writeMapBody(_ object: ObjectValue) {
        let count = object.fields.count
        writeVarint(UInt64(count))
        guard count > 0 else { return }
        var keys: [String] = []
        var values: [Value] = []
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        for (key, value) in object.fields {
            keys.append(key)
            values.append(value)
        }
        for index in BytewiseOrder.sortedPositions(keys) {
            writeString(keys[index])
            writeLengthPrefixed(values[index])
        }
    }

    /// Writes `value` after its length. The length is not known in advance, so one byte is reserved (enough
    /// for values under 128 bytes, the common case) and widened afterwards when the value turned out longer.
    private mutating func writeLengthPrefixed(_ value: Value) {
        let lengthOffset = buffer.count
        buffer.append(0)
        writeValue(value)
        let length = buffer.count - lengthOffset - 1
        if length < 0x80 {
            buffer[lengthOffset] = UInt8(length)
        } else {
            var size = 1
            while length >> (7 * size) != 0 { size += 1 }
            buffer.insert(contentsOf: repeatElement(0, count: size - 1), at: lengthOffset + 1)
            for index in 0..<size {
                let group = UInt8(truncatingIfNeeded: length >> (7 * index)) & 0x7F
                buffer[lengthOffset + index] = index == size - 1 ? group : group | 0x80
            }
        }
    }

    private mutating func writeString(_ string: String) {
        BytewiseOrder.withUTF8(string) { bytes in
            writeVarint(UInt64(bytes.count))
            buffer.append(contentsOf: bytes)
        }
    }

    private mutating func writeTimestamp(_ time: Timestamp) {
        writeSignedVarint(time.seconds)
        writeSignedVarint(Int64(time.nanoseconds))
    }

    private mutating func writeDouble(_ double: Double) {
        withUnsafeBytes(of: double.bitPattern.littleEndian) { buffer.append(contentsOf: $0) }
    }

    private mutating func writeSignedVarint(_ value: Int64) { buffer.appendSignedVarint(value) }

    private mutating func writeVarint(_ value: UInt64) { buffer.appendVarint(value) }
}
