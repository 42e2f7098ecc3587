import CCRC32C

/// CRC32C (Castagnoli) as stored on disk: computed over the bytes, then masked the way LevelDB masks it,
/// so that a checksum of data which itself contains checksums does not degenerate.
enum Checksum {
    static let maskDelta: UInt32 = 0xA282_EAD8

    @inline(__always)
    static func crc32c(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        cairn_crc32c_extend(crc, bytes.baseAddress, bytes.count)
    }

    @inline(__always)
    static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ maskDelta
    }

    @inline(__always)
    static func masked(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        mask(crc32c(bytes))
    }

    static func masked(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { masked($0) }
    }
}
