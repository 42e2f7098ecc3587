/// Order-preserving byte encodings of primitives: for two inputs of the same kind, the encodings compare
/// (lexicographically, as unsigned bytes) the way the inputs do, and no encoding is a proper prefix of another
/// of the same kind, so encodings can be concatenated into tuples.
///
/// - escaped bytes: `0x00` → `00 FF`, `0xFF` → `FF 00`, any other byte as is, then the terminator `00 01`
///   (below every escaped byte, so a proper prefix sorts first);
/// - signed integers: the two's-complement bits with the sign bit flipped, big-endian;
/// - doubles: the bits, all flipped for negatives and only the sign bit flipped otherwise, big-endian, after
///   folding -0.0 into 0.0 and every NaN into one value below -infinity;
/// - numbers (integers and doubles together, exactly): see ``appendNumber(_:to:)-(Int64,_)``.
///
/// ```swift
/// var bytes: [UInt8] = []
/// OrderedCode.appendEscaped(Array("a\u{0}".utf8), to: &bytes)   // 61 00 FF 00 01
/// ```
enum OrderedCode {
    static func appendEscaped(_ input: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + input.count + 2)
        for byte in input {
            switch byte {
            case 0x00: output.append(contentsOf: [0x00, 0xFF])
            case 0xFF: output.append(contentsOf: [0xFF, 0x00])
            default: output.append(byte)
            }
        }
        output.append(contentsOf: [0x00, 0x01])
    }

    static func appendEscaped(_ input: [UInt8], to output: inout [UInt8]) {
        input.withUnsafeBytes { appendEscaped($0, to: &output) }
    }

    /// The string's UTF-8 bytes, escaped: strings then order by UTF-8 bytes.
    static func appendEscaped(_ string: String, to output: inout [UInt8]) {
        BytewiseOrder.withUTF8(string) { appendEscaped($0, to: &output) }
    }

    static func appendInt64(_ value: Int64, to output: inout [UInt8]) {
        appendBigEndian(UInt64(bitPattern: value) ^ (1 << 63), to: &output)
    }

    static func appendInt32(_ value: Int32, to output: inout [UInt8]) {
        let bits = UInt32(bitPattern: value) ^ (1 << 31)
        for shift in stride(from: 24, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: bits >> shift)) }
    }

    /// Eight bytes that order doubles as `NumberOrder.compare` does: NaN first, -0.0 == 0.0.
    static func appendDouble(_ value: Double, to output: inout [UInt8]) {
        appendBigEndian(orderedBits(value), to: &output)
    }

    /// Eight or ten bytes that order integers and doubles together by exact value, as `NumberOrder` does
    /// (NaN is not a number here: the caller gives it a label of its own).
    ///
    /// Firestore's own index writer turns integers into doubles, which merges the integers above 2^53 that
    /// round to the same double. Here a number n is written as D, the double nearest to n (8 bytes, as
    /// ``appendDouble(_:to:)``), followed, only when |D| >= 2^53, by a 2-byte tiebreak: n - D + 0x8000,
    /// big-endian. Rounding to nearest is monotonic, so D orders numbers except among those sharing a D: integers
    /// above 2^53 and at most one double (D itself, difference 0), which the tiebreak orders exactly. The
    /// difference is small: |n - D| <= 512 for every Int64 (doubles below 2^63 are at most 1024 apart). Whether
    /// a tiebreak follows depends on D alone, so encodings that agree up to the end of D have the same length,
    /// and an integer and a double of equal value (1 and 1.0, 2^60 and 0x1p60) encode identically.
    static func appendNumber(_ integer: Int64, to output: inout [UInt8]) {
        let nearest = Double(integer)
        appendDouble(nearest, to: &output)
        if nearest.magnitude >= 0x1p53 {
            // Double(Int64.max) rounds up to 2^63, which is not an Int64: subtract it in two steps.
            let difference = nearest == 0x1p63 ? integer &- Int64.max &- 1 : integer - Int64(nearest)
            appendTiebreak(difference, to: &output)
        }
    }

    /// A double in the number encoding of ``appendNumber(_:to:)-(Int64,_)`` (not NaN: the caller labels it).
    static func appendNumber(_ double: Double, to output: inout [UInt8]) {
        appendDouble(double, to: &output)
        if double.magnitude >= 0x1p53 { appendTiebreak(0, to: &output) }
    }

    private static func appendTiebreak(_ difference: Int64, to output: inout [UInt8]) {
        let biased = UInt16(difference + 0x8000)
        output.append(UInt8(biased >> 8))
        output.append(UInt8(truncatingIfNeeded: biased))
    }

    private static func orderedBits(_ value: Double) -> UInt64 {
        if value.isNaN { return 0 }
        let bits = (value == 0 ? 0.0 : value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    private static func appendBigEndian(_ value: UInt64, to output: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
