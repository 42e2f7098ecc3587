// The raw payload of each frame a sequential walk visits (scans, verification, compaction, salvage, recovery's
// look past the tail), without an allocation or a copy per frame: a frame stored raw is handed out where the
// cursor's buffer holds it, a compressed one is decompressed into one buffer that only grows.

/// Decompresses the frames of one walk, one at a time, into memory it keeps from frame to frame.
final class PayloadBuffer {
    private var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)

    deinit { storage.deallocate() }

    /// Bytes held for decompression: the largest raw payload met so far.
    var capacity: Int { storage.count }

    /// The raw records of a frame whose stored payload ``FrameCursor`` verified: `stored` itself when the frame
    /// is stored raw, else its decompression here. Valid until the next call, and while `stored` is.
    func raw(header: FrameHeader, stored: UnsafeRawBufferPointer) -> Result<UnsafeRawBufferPointer, FrameProblem> {
        guard stored.count == Int(header.storedLength) else { return .failure(FrameProblem("payload cut short")) }
        guard header.isCompressed else { return .success(stored) }
        let count = Int(header.rawLength)
        if storage.count < count {
            // No copy of the old bytes and no zero-fill: LZ4 writes every byte it reports, or the frame is rejected.
            storage.deallocate()
            storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        }
        let target = UnsafeMutableRawBufferPointer(rebasing: storage[0..<count])
        guard LZ4.decompress(stored, into: target) else { return .failure(FrameProblem("payload does not decompress")) }
        return .success(UnsafeRawBufferPointer(target))
    }
}
