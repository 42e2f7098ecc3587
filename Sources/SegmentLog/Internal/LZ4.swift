import CLZ4

/// The LZ4 block API (liblz4): raw blocks without LZ4's frame format; Cairn's own frame header stores the
/// lengths and checksums. Decompression always uses the bounds-checked `LZ4_decompress_safe` (or its
/// `_partial` form for the first bytes of a block).
enum LZ4 {
    /// The worst-case compressed size of `count` input bytes.
    static func bound(_ count: Int) -> Int { Int(LZ4_compressBound(Int32(count))) }

    /// Compresses `source` into `destination` (which must hold `bound(source.count)` bytes); returns the
    /// compressed size, or 0 when LZ4 fails.
    static func compress(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) -> Int {
        guard source.count > 0 else { return 0 }
        let result = LZ4_compress_default(
            source.baseAddress!.assumingMemoryBound(to: CChar.self),
            destination.baseAddress!.assumingMemoryBound(to: CChar.self),
            Int32(source.count), Int32(destination.count))
        return Int(result)
    }

    /// Decompresses exactly `destination.count` bytes; returns false when the input is malformed or does not
    /// decompress to exactly that many bytes.
    static func decompress(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) -> Bool {
        if destination.count == 0 { return source.count == 0 }
        guard source.count > 0 else { return false }
        let result = LZ4_decompress_safe(
            source.baseAddress!.assumingMemoryBound(to: CChar.self),
            destination.baseAddress!.assumingMemoryBound(to: CChar.self),
            Int32(source.count), Int32(destination.count))
        return Int(result) == destination.count
    }

    /// Decompresses the first `destination.count` bytes of a block (all of it when it is shorter); returns the
    /// bytes written, or nil when the input is malformed. A point read decodes a frame only up to its record.
    static func decompressPrefix(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) -> Int? {
        guard destination.count > 0 else { return 0 }
        guard source.count > 0 else { return nil }
        let result = LZ4_decompress_safe_partial(
            source.baseAddress!.assumingMemoryBound(to: CChar.self),
            destination.baseAddress!.assumingMemoryBound(to: CChar.self),
            Int32(source.count), Int32(destination.count), Int32(destination.count))
        return result < 0 ? nil : Int(result)
    }
}
