// The integer encodings shared by the model's codecs (documents, mutations, queries) and the cache's events: unsigned LEB128 varints
// (7 bits per byte, low bits first, high bit set on all but the last byte) and zigzag for signed values.

extension Array where Element == UInt8 {
    /// Appends `value` as an unsigned LEB128 varint (1 to 10 bytes).
    package mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    /// Appends `value` zigzag-encoded (0, -1, 1, -2, … → 0, 1, 2, 3, …) as a varint.
    package mutating func appendSignedVarint(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }
}
