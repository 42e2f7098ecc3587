// Sequential reading of a segment's frames through a large buffer, so a scan costs one read call per
// megabyte instead of two per frame. Used by recovery, scans, verification, compaction and salvage.

final class FrameCursor {
    /// One step of the cursor.
    enum Step {
        /// An intact frame: checksums of header and payload verified. `stored` is valid until the next call.
        case frame(offset: UInt64, header: FrameHeader, stored: UnsafeRawBufferPointer)
        /// Something at `offset` is not an intact frame. `header` is set when the header itself was intact
        /// (so its record count and LSNs can be reported).
        case damage(offset: UInt64, problem: String, header: FrameHeader?)
        case end
    }

    let handle: any StorageFile
    let end: UInt64
    private(set) var offset: UInt64
    private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
    private var bufferStart: UInt64 = 0
    private var bufferCount = 0
    private let chunk: Int
    /// True when the last `.damage` was an intact header of a newer format version (not damage at all).
    private(set) var lastDamageIsNewerFormat = false

    init(handle: any StorageFile, start: UInt64 = UInt64(SegmentFormat.segmentHeaderSize), end: UInt64, chunk: Int = 1 << 20) {
        self.handle = handle
        self.offset = start
        self.end = end
        self.chunk = chunk
    }

    deinit { buffer.deallocate() }

    /// Makes bytes [at, at+count) available in the buffer; returns false if the file ends first.
    private func fill(_ at: UInt64, _ count: Int) throws -> Bool {
        if at >= bufferStart && at + UInt64(count) <= bufferStart + UInt64(bufferCount) { return true }
        guard at + UInt64(count) <= end else { return false }
        let want = Int(min(UInt64(max(chunk, count)), end - at))
        if buffer.count < want {
            buffer.deallocate()
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: want, alignment: 16)
        }
        bufferCount = 0
        let got = try handle.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: at)
        bufferStart = at
        bufferCount = got
        return got >= count
    }

    /// Bytes in the buffer; valid until the next `fill`.
    private func slice(_ at: UInt64, _ count: Int) -> UnsafeRawBufferPointer {
        let start = Int(at - bufferStart)
        return UnsafeRawBufferPointer(rebasing: buffer[start..<(start + count)])
    }

    /// Reads the next frame. After `.damage` the cursor does not move; call ``skip(to:)`` or stop.
    func next() throws -> Step {
        guard offset < end else { return .end }
        let headerSize = SegmentFormat.frameHeaderSize
        guard try fill(offset, headerSize) else {
            return .damage(offset: offset, problem: "\(end - offset) bytes too short for a frame header", header: nil)
        }
        let header: FrameHeader
        switch FrameHeader.decode(slice(offset, headerSize)) {
        case .failure(let box):
            lastDamageIsNewerFormat = box.problem.isNewerFormat
            return .damage(offset: offset, problem: box.problem.description, header: nil)
        case .success(let decoded): header = decoded
        }
        guard UInt64(header.syncedEnd) <= offset else {
            return .damage(offset: offset, problem: "synced mark \(header.syncedEnd) lies past the frame itself", header: nil)
        }
        let frameEnd = offset + UInt64(header.frameSize)
        guard frameEnd <= end, try fill(offset, header.frameSize) else {
            return .damage(offset: offset, problem: "frame runs past the end of the segment", header: header)
        }
        let stored = slice(offset + UInt64(headerSize), Int(header.storedLength))
        guard Checksum.masked(stored) == header.payloadCRC else {
            return .damage(offset: offset, problem: "payload checksum mismatch", header: header)
        }
        let at = offset
        offset = frameEnd
        return .frame(offset: at, header: header, stored: stored)
    }

    func skip(to newOffset: UInt64) { offset = newOffset }

    /// Finds the next offset after `from` where an intact frame starts (salvage), or nil.
    func findNextIntactFrame(after from: UInt64) throws -> UInt64? {
        var candidate = from + 1
        let magic = SegmentFormat.frameMagic
        while candidate + UInt64(SegmentFormat.frameHeaderSize) <= end {
            guard try fill(candidate, 4) else { return nil }
            if loadLE(slice(candidate, 4), 0, as: UInt32.self) == magic {
                let saved = offset
                offset = candidate
                if case .frame = try next() {
                    offset = candidate
                    return candidate
                }
                offset = saved
            }
            candidate += 1
        }
        return nil
    }
}
