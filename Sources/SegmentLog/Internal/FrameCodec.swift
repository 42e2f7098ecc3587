// Packing records into frames, and reading them back. See SegmentFormat.swift for the grammar.

/// Builds the bytes of consecutive frames from records, applying the packing rule recovery relies on:
/// a frame that does not end a batch holds records of a single batch only.
struct FramePacker {
    let targetSize: Int
    let compress: Bool
    /// Absolute file offset where `output` will be written, so locations can be computed.
    private(set) var baseOffset: UInt64
    let segment: UInt32

    /// The encoded frames, ready to write.
    private(set) var output: [UInt8] = []
    /// One location per record added, in order.
    private(set) var locations: [RecordLocation] = []
    private(set) var frameCount = 0

    /// Written into every frame header: bytes of the segment durable before these frames (see FrameHeader).
    var syncedEnd: UInt32 = 0

    private var raw: [UInt8] = []
    private var frameBase: UInt64 = 0
    private var frameRecords: UInt32 = 0
    /// Whether the open frame's first record starts a batch (the `first` flag).
    private var frameStartsBatch = true
    private var pendingLocations: [RecordLocation] = []
    private var scratch: [UInt8] = []

    init(targetSize: Int, compress: Bool, baseOffset: UInt64, segment: UInt32) {
        self.targetSize = targetSize
        self.compress = compress
        self.baseOffset = baseOffset
        self.segment = segment
        raw.reserveCapacity(targetSize + 1024)
    }

    var isEmpty: Bool { output.isEmpty && frameRecords == 0 }
    /// Bytes of frames finished so far plus an estimate of the open frame.
    var estimatedSize: Int { output.count + raw.count + SegmentFormat.frameHeaderSize }

    /// Adds a whole batch whose first record gets `firstLSN`. A batch that fits goes into the open frame whole;
    /// a larger one starts a frame of its own, is split across frames without the commit flag, and its last
    /// frame is closed with it, so that every frame after it starts a batch again.
    mutating func addBatch(_ batch: WriteBatch, firstLSN: UInt64) {
        if frameRecords > 0 && raw.count + batch.encodedSize > targetSize { finishFrame(commit: true) }
        let startedFrame = frameRecords == 0
        var split = false
        for i in 0..<batch.count {
            let lsn = firstLSN + UInt64(i)
            let size = RecordCoding.encodedSize(
                lsnDelta: frameRecords == 0 ? 0 : zigzag(lsn, from: frameBase), keyCount: batch.keys[i].count,
                valueCount: batch.values[i].count)
            if startedFrame && frameRecords > 0 && raw.count + size > targetSize {
                finishFrame(commit: false)
                split = true
            }
            batch.keys[i].withUnsafeBytes { key in
                batch.values[i].withUnsafeBytes { value in
                    addRecord(kind: batch.kinds[i], lsn: lsn) { delta, bytes in
                        RecordCoding.append(kind: batch.kinds[i], lsnDelta: delta, key: key, value: value, to: &bytes)
                    }
                }
            }
        }
        if split { finishFrame(commit: true) }
    }

    /// Adds one already-committed record (compaction): every frame it closes is a commit frame.
    mutating func addCommitted(kind: UInt8, lsn: UInt64, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let size = RecordCoding.encodedSize(lsnDelta: 0, keyCount: key.count, valueCount: value.count)
        if frameRecords > 0 && raw.count + size + 9 > targetSize { finishFrame(commit: true) }
        addRecord(kind: kind, lsn: lsn) { delta, bytes in
            RecordCoding.append(kind: kind, lsnDelta: delta, key: key, value: value, to: &bytes)
        }
    }

    private mutating func addRecord(kind: UInt8, lsn: UInt64, encode: (UInt64, inout [UInt8]) -> Void) {
        if frameRecords == 0 { frameBase = lsn }
        let start = raw.count
        encode(zigzag(lsn, from: frameBase), &raw)
        pendingLocations.append(
            RecordLocation(segment: segment, frameOffset: 0, index: frameRecords, size: UInt32(raw.count - start)))
        frameRecords += 1
    }

    /// Closes the open frame (if any). `commit` marks it as ending a batch.
    mutating func finishFrame(commit: Bool) {
        guard frameRecords > 0 else { return }
        let frameOffset = UInt32(baseOffset + UInt64(output.count))
        var flags = commit ? SegmentFormat.flagCommit : 0
        if frameStartsBatch { flags |= SegmentFormat.flagFirst }
        var storedLength = raw.count
        var useCompressed = false
        if compress {
            let bound = LZ4.bound(raw.count)
            if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
            let compressed = raw.withUnsafeBytes { src in
                scratch.withUnsafeMutableBytes { LZ4.compress(src, into: $0) }
            }
            // Keep the compressed form only when it saves at least 1/32 of the bytes.
            if compressed > 0 && compressed < raw.count - raw.count / 32 {
                useCompressed = true
                storedLength = compressed
                flags |= SegmentFormat.flagCompressed
            }
        }
        let payloadCRC = useCompressed
            ? scratch.withUnsafeBytes { Checksum.masked(UnsafeRawBufferPointer(rebasing: $0[0..<storedLength])) }
            : Checksum.masked(raw)
        let header = FrameHeader(
            flags: flags, storedLength: UInt32(storedLength), rawLength: UInt32(raw.count), baseLSN: frameBase,
            recordCount: frameRecords, syncedEnd: syncedEnd, payloadCRC: payloadCRC)
        header.encode(into: &output)
        if useCompressed {
            scratch.withUnsafeBytes { output.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<storedLength])) }
        } else {
            output.append(contentsOf: raw)
        }
        for var location in pendingLocations {
            location.frameOffset = frameOffset
            locations.append(location)
        }
        pendingLocations.removeAll(keepingCapacity: true)
        raw.removeAll(keepingCapacity: true)
        frameRecords = 0
        frameCount += 1
        frameStartsBatch = commit
    }

    /// Hands out the finished frames and their records' locations; the open frame, if any, stays and will
    /// be placed right after them.
    mutating func take() -> (bytes: [UInt8], locations: [RecordLocation]) {
        defer {
            baseOffset += UInt64(output.count)
            output = []
            locations = []
        }
        return (output, locations)
    }
}

/// A frame's records, decompressed and indexed, as kept in the frame cache: all of them, or for a point read
/// the first ones up to the record it wanted (``isComplete`` false; FramePrefix.swift).
final class DecodedFrame: @unchecked Sendable {
    let segment: UInt32
    let offset: UInt32
    let baseLSN: UInt64
    let payload: [UInt8]
    /// Start offset of each record in `payload`, plus its end as the last element.
    let starts: [UInt32]
    let isCommit: Bool
    /// Bytes this frame occupies in the file.
    let frameSize: Int
    /// Whether every record of the frame is here; a prefix holds the first ``count`` only.
    let isComplete: Bool

    init(segment: UInt32, offset: UInt32, header: FrameHeader, payload: [UInt8], starts: [UInt32], isComplete: Bool = true) {
        self.segment = segment
        self.offset = offset
        self.baseLSN = header.baseLSN
        self.payload = payload
        self.starts = starts
        self.isCommit = header.isCommit
        self.frameSize = header.frameSize
        self.isComplete = isComplete
    }

    /// The records decoded: all of the frame's when it is complete.
    var count: Int { starts.count - 1 }

    /// Whether the record at `index` can be read here, or the frame must be decoded further.
    func holds(_ index: Int) -> Bool { isComplete || index < count }
    var memoryCost: Int { payload.count + starts.count * 4 + 96 }

    func withRecord<T>(at index: Int, _ body: (RecordView) throws -> T) rethrows -> T {
        try payload.withUnsafeBytes { raw in
            let start = Int(starts[index])
            let end = Int(starts[index + 1])
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
            // The frame was validated when decoded, so these reads succeed.
            let kind = reader.readLE(UInt8.self)!
            let delta = reader.readVarint()!
            let keyCount = Int(reader.readVarint()!)
            let valueCount = Int(reader.readVarint()!)
            let key = reader.readSlice(keyCount)!
            let value = reader.readSlice(valueCount)!
            let location = RecordLocation(segment: segment, frameOffset: offset, index: UInt32(index), size: UInt32(end - start))
            return try body(RecordView(kind: kind, lsn: unzigzag(delta, from: baseLSN), location: location, key: key, value: value))
        }
    }
}

/// Why a frame could not be decoded, in words for an error message.
struct FrameProblem: Error {
    let what: String
    init(_ what: String) { self.what = what }
}

enum FrameDecoding {
    /// Decompresses a payload into `raw` (resized to `rawLength`), verifying its checksum first unless the
    /// caller already did (`FrameCursor` verifies every payload it returns). Returns a description of the
    /// problem, or nil when the payload is intact.
    static func payload(
        header: FrameHeader, stored: UnsafeRawBufferPointer, into raw: inout [UInt8], checksumVerified: Bool = false
    ) -> String? {
        guard stored.count == Int(header.storedLength) else { return "payload cut short" }
        guard checksumVerified || Checksum.masked(stored) == header.payloadCRC else { return "payload checksum mismatch" }
        if header.isCompressed {
            let count = Int(header.rawLength)
            if raw.count != count {
                // No zero-fill: LZ4 writes every byte, or the frame is rejected.
                raw = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
            }
            let ok = raw.withUnsafeMutableBytes { LZ4.decompress(stored, into: $0) }
            if !ok { return "payload does not decompress" }
        } else {
            raw = Array(stored)
        }
        return nil
    }

    /// Walks the records of a raw payload, checking the structure. Calls `body` with each record's start
    /// offset, size and view. Returns a description of the problem, or nil when the records are well-formed.
    static func forEachRecord(
        in raw: UnsafeRawBufferPointer, header: FrameHeader, segment: UInt32, frameOffset: UInt32,
        _ body: (Int, RecordView) throws -> Void
    ) rethrows -> String? {
        var reader = ByteReader(raw)
        for index in 0..<Int(header.recordCount) {
            let start = reader.position
            guard let kind = reader.readLE(UInt8.self), let delta = reader.readVarint(),
                let keyCount = reader.readVarint(), let valueCount = reader.readVarint(),
                keyCount > 0, keyCount <= UInt64(reader.remaining), valueCount <= UInt64(reader.remaining),
                let key = reader.readSlice(Int(keyCount)), let value = reader.readSlice(Int(valueCount))
            else { return "record \(index) is malformed" }
            let lsn = unzigzag(delta, from: header.baseLSN)
            guard lsn > 0 && lsn < SegmentFormat.lsnLimit else { return "record \(index) has LSN \(lsn), out of range" }
            let location = RecordLocation(
                segment: segment, frameOffset: frameOffset, index: UInt32(index), size: UInt32(reader.position - start))
            try body(start, RecordView(kind: kind, lsn: lsn, location: location, key: key, value: value))
        }
        return reader.remaining == 0 ? nil : "\(reader.remaining) stray bytes after the last record"
    }

    /// Decodes a frame for the cache: verified (unless the caller did), decompressed, records indexed.
    static func decode(
        header: FrameHeader, stored: UnsafeRawBufferPointer, segment: UInt32, offset: UInt32, checksumVerified: Bool = false
    ) -> Result<DecodedFrame, FrameProblem> {
        var raw: [UInt8] = []
        if let problem = payload(header: header, stored: stored, into: &raw, checksumVerified: checksumVerified) {
            return .failure(FrameProblem(problem))
        }
        var starts: [UInt32] = []
        starts.reserveCapacity(Int(header.recordCount) + 1)
        let problem = raw.withUnsafeBytes { buffer in
            forEachRecord(in: buffer, header: header, segment: segment, frameOffset: offset) { start, _ in
                starts.append(UInt32(start))
            }
        }
        if let problem { return .failure(FrameProblem(problem)) }
        starts.append(UInt32(raw.count))
        return .success(DecodedFrame(segment: segment, offset: offset, header: header, payload: raw, starts: starts))
    }
}

/// A record's LSN is stored as the zigzag-encoded signed distance from its frame's base LSN, so frames of
/// records in key order (compaction clustering) stay compact too.
@inline(__always)
func zigzag(_ lsn: UInt64, from base: UInt64) -> UInt64 {
    let distance = Int64(bitPattern: lsn &- base)
    return UInt64(bitPattern: (distance << 1) ^ (distance >> 63))
}

@inline(__always)
func unzigzag(_ value: UInt64, from base: UInt64) -> UInt64 {
    let distance = Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    return base &+ UInt64(bitPattern: distance)
}
