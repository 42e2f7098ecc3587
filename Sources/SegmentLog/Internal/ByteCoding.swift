// Little-endian fixed-width integers and LEB128 varints, the only two integer encodings of the on-disk format.
// Fixed-width fields are little-endian; varints are unsigned LEB128 (7 bits per byte, low bits first, high bit
// set on every byte but the last), at most 10 bytes for a UInt64.

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        var little = value.littleEndian
        Swift.withUnsafeBytes(of: &little) { self.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }
}

/// The number of bytes `appendVarint` uses for `value`.
@inline(__always)
func varintSize(_ value: UInt64) -> Int {
    var v = value
    var size = 1
    while v >= 0x80 {
        v >>= 7
        size += 1
    }
    return size
}

/// A forward reader over a raw buffer that never reads past its end: every accessor returns nil instead.
struct ByteReader {
    let base: UnsafeRawBufferPointer
    var position: Int

    init(_ base: UnsafeRawBufferPointer, position: Int = 0) {
        self.base = base
        self.position = position
    }

    var remaining: Int { base.count - position }

    @inline(__always)
    mutating func readLE<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        let value = base.loadUnaligned(fromByteOffset: position, as: T.self)
        position += size
        return T(littleEndian: value)
    }

    @inline(__always)
    mutating func readVarint() -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < base.count {
            let byte = base[position]
            position += 1
            if shift == 63 && byte > 1 { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { return nil }
        }
        return nil
    }

    @inline(__always)
    mutating func readSlice(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: base[position..<(position + count)])
        position += count
        return slice
    }
}

@inline(__always)
func loadLE<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, _ offset: Int, as: T.Type) -> T {
    T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
}
