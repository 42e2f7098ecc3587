// Reading: point reads by location through the frame cache, and scans that stream every frame in log order.

import Synchronization

/// A frame cache lookup: the frame, or where to read it from.
private enum FrameLookup {
    case hit(DecodedFrame)
    case miss(FrameSource)
}

/// What a frame cache miss needs of its segment, taken under the lock: not the whole ``SegmentEntry``, whose copy
/// would retain its handle, retired-record bitsets and frame offsets on every miss.
private struct FrameSource {
    var segment: UInt32
    var handle: any StorageFile
    /// Bytes of the segment from the frame's offset on.
    var available: UInt64
    /// Bytes the first read asks for: the frame's exact size when known, else a guess (``SegmentLog/firstReadSize(of:)``).
    var readSize: Int
}

extension SegmentLog {
    /// Reads the record at `location`.
    ///
    /// - Throws: `.notFound` when the segment no longer exists (compacted away) or the location points past
    ///   the frame's records, `.corruption` when the frame fails its checksum.
    public func read(_ location: RecordLocation) throws -> Record {
        try withRecord(at: location) { $0.record }
    }

    /// Calls `body` with the record at `location` without copying it: the view's key and value point into
    /// the cached frame and are valid only inside `body`. Same errors as ``read(_:)``.
    ///
    /// ```swift
    /// let size = try log.withRecord(at: location) { $0.value.count }
    /// ```
    public func withRecord<T>(at location: RecordLocation, _ body: (RecordView) throws -> T) throws -> T {
        try withFrame(FrameKey(segment: location.segment, offset: location.frameOffset), through: Int(location.index)) { frame in
            try Self.withRecord(at: location, in: frame, body)
        }
    }

    /// Calls `body` with the record at each of `locations` (its position in the array and a view valid only
    /// inside `body`), fetching each frame once for a run of locations in the same frame: pass locations in
    /// log order (sorted) and every frame is decompressed at most once. Frames found in the frame cache are
    /// used; with `fillCache` false, frames read here are not added to it, so a scan does not push out the
    /// frames point reads use (LevelDB's `fill_cache = false`). Same errors as ``read(_:)``.
    ///
    /// ```swift
    /// try log.forEachRecord(at: locations.sorted(), fillCache: false) { position, record in total += record.value.count }
    /// ```
    public func forEachRecord(at locations: [RecordLocation], fillCache: Bool = true, _ body: (Int, RecordView) throws -> Void) throws {
        var position = 0
        while position < locations.count {
            let key = FrameKey(segment: locations[position].segment, offset: locations[position].frameOffset)
            try withFrame(key, fillCache: fillCache) { frame in
                repeat {
                    try Self.withRecord(at: locations[position], in: frame) { try body(position, $0) }
                    position += 1
                } while position < locations.count && locations[position].segment == key.segment
                    && locations[position].frameOffset == key.offset
            }
        }
    }

    private static func withRecord<T>(at location: RecordLocation, in frame: DecodedFrame, _ body: (RecordView) throws -> T) throws -> T {
        guard Int(location.index) < frame.count else {
            throw StorageError(
                .notFound, "frame \(location.segment):\(location.frameOffset) has \(frame.count) records, not \(location.index + 1)")
        }
        return try frame.withRecord(at: Int(location.index), body)
    }

    /// Calls `body` with the decoded frame at `key`, loading it when needed (and caching it unless
    /// `fillCache` is false). A miss reads and decodes the frame outside the lock, so other readers and
    /// writers do not wait for its I/O. With `through`, a point read's record index, the frame may be only
    /// decoded (and cached) as far as that record (FramePrefix.swift); without it, the frame is whole.
    func withFrame<T>(_ key: FrameKey, fillCache: Bool = true, through index: Int? = nil, _ body: (DecodedFrame) throws -> T) throws -> T {
        let lookup: FrameLookup = try state.withLock { state in
            if state.isClosed { throw StorageError(.closed, "the log is closed") }
            if let cached = state.cache.get(key, usable: { frame in index.map(frame.holds) ?? frame.isComplete }) {
                return .hit(cached)
            }
            guard let position = state.segments.index(forKey: key.segment) else {
                throw StorageError(.notFound, "segment \(key.segment) does not exist (compacted away?)")
            }
            return .miss(try frameSource(state.segments.values[position], offset: key.offset))
        }
        switch lookup {
        case .hit(let frame):
            return try body(frame)
        case .miss(let source):
            // Frames below the segment's length never change, so reading without the lock is safe.
            let frame = try loadFrame(source, offset: key.offset, through: index)
            guard fillCache else { return try body(frame) }
            state.withLock { state in
                if state.segments[key.segment] != nil { state.cache.insert(frame, for: key) }
            }
            return try body(frame)
        }
    }

    /// Reads and decodes the frame at `offset` of `segment` for a point read: the header and the stored payload
    /// come in one read, of the frame's exact size when a scan noted where the segment's frames start, else of
    /// the size frames of this segment typically take (``firstReadSize(of:)``), and then a second read fetches
    /// the rest of a larger frame. The error path alone builds the segment's path.
    private func loadFrame(_ source: FrameSource, offset: UInt32, through index: Int?) throws -> DecodedFrame {
        func damaged(_ what: String) -> StorageError {
            StorageError(
                .corruption, "segment \(source.segment), frame at offset \(offset): \(what)", path: segmentPath(source.segment),
                offset: UInt64(offset))
        }
        let headerSize = SegmentFormat.frameHeaderSize
        let available = source.available
        var bytes = try Self.read(source.handle, at: UInt64(offset), count: Int(min(UInt64(source.readSize), available)))
        guard bytes.count >= headerSize else { throw damaged("header cut short") }
        let header: FrameHeader
        switch bytes.withUnsafeBytes({ FrameHeader.decode($0) }) {
        case .failure(let box): throw damaged(box.problem.description)
        case .success(let decoded): header = decoded
        }
        guard UInt64(header.frameSize) <= available else { throw damaged("frame runs past the segment") }
        if bytes.count < header.frameSize {
            bytes += try Self.read(source.handle, at: UInt64(offset) + UInt64(bytes.count), count: header.frameSize - bytes.count)
        }
        let result = bytes.withUnsafeBytes { frame in
            // A short read (the file shrank under us) leaves fewer bytes than storedLength: decoding reports it.
            let stored = UnsafeRawBufferPointer(rebasing: frame[headerSize..<min(frame.count, header.frameSize)])
            return if let index {
                FrameDecoding.decodePrefix(header: header, stored: stored, segment: source.segment, offset: offset, through: index)
            } else {
                FrameDecoding.decode(header: header, stored: stored, segment: source.segment, offset: offset)
            }
        }
        switch result {
        case .failure(let problem): throw damaged(problem.what)
        case .success(let frame): return frame
        }
    }

    /// Where to read the frame at `offset` of `segment` from, and how many bytes to ask for first.
    private func frameSource(_ segment: borrowing SegmentEntry, offset: UInt32) throws -> FrameSource {
        guard UInt64(offset) + UInt64(SegmentFormat.frameHeaderSize) <= segment.length,
            offset >= UInt32(SegmentFormat.segmentHeaderSize)
        else {
            throw StorageError(.notFound, "offset \(offset) is outside segment \(segment.id)")
        }
        return FrameSource(
            segment: segment.id, handle: segment.handle, available: segment.length - UInt64(offset),
            readSize: segment.frameOffsets.frameSize(at: offset) ?? firstReadSize(of: segment))
    }

    /// Bytes the first read of a frame cache miss asks for: a frame header and a quarter more than the payload a
    /// full frame of `segment` stores on average (the frame target size times the segment's ratio of file bytes
    /// to record bytes), so that one read fetches most frames whole without copying much of the next one.
    private func firstReadSize(of segment: borrowing SegmentEntry) -> Int {
        let target = Double(configuration.frameTargetSize)
        let ratio = segment.recordBytes > 0 ? min(Double(segment.length) / Double(segment.recordBytes), 1.1) : 1.1
        return SegmentFormat.frameHeaderSize + Int(target * ratio * 1.25)
    }

    /// Up to `count` bytes of `handle` at `offset`, fewer only where the file ends, without zero-filling the
    /// buffer first.
    private static func read(_ handle: any StorageFile, at offset: UInt64, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = try handle.read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
        }
    }

    /// A consistent list of what to scan: each segment's handle and the length to read.
    func scanPlan() throws -> [(id: UInt32, handle: any StorageFile, length: UInt64)] {
        try state.withLock { state in
            if state.isClosed { throw StorageError(.closed, "the log is closed") }
            return state.order.map { id in
                let segment = state.segments[id]!
                return (id, segment.handle, segment.length)
            }
        }
    }

    /// Calls `body` for every record in log order (segment by segment as the manifest lists them, frames in
    /// file order). This is how a layer above rebuilds its views on open. Records that compaction moved keep
    /// their sequence numbers, so a view that needs LSN order must compare `view.lsn`. Retired records are
    /// included (the log does not know what they meant).
    ///
    /// - Throws: `.corruption` naming the segment, offset and records lost at the first damaged frame.
    public func scan(_ body: (RecordView) throws -> Void) throws {
        let payloads = PayloadBuffer()
        for (id, handle, length) in try scanPlan() {
            let cursor = FrameCursor(handle: handle, end: length)
            var starts: [UInt32] = []
            while true {
                switch try cursor.next() {
                case .end:
                    noteFrameOffsets(starts, end: UInt32(length), of: id)
                    break
                case .damage(let offset, let problem, let header):
                    throw StorageError(
                        cursor.lastDamageIsNewerFormat ? .formatVersion : .corruption, "segment \(id), frame at offset \(offset): \(problem); "
                            + SegmentLog.describeLoss(header) + "; run salvage to keep every intact frame",
                        path: segmentPath(id), offset: offset)
                case .frame(let offset, let header, let stored):
                    starts.append(UInt32(offset))
                    let raw: UnsafeRawBufferPointer
                    switch payloads.raw(header: header, stored: stored) {
                    case .failure(let problem):
                        throw StorageError(
                            .corruption, "segment \(id), frame at offset \(offset): \(problem.what); " + SegmentLog.describeLoss(header),
                            path: segmentPath(id), offset: offset)
                    case .success(let bytes): raw = bytes
                    }
                    let problem = try FrameDecoding.forEachRecord(in: raw, header: header, segment: id, frameOffset: UInt32(offset)) { _, view in
                        try body(view)
                    }
                    if let problem {
                        throw StorageError(
                            .corruption, "segment \(id), frame at offset \(offset): \(problem)", path: segmentPath(id), offset: offset)
                    }
                    continue
                }
                break
            }
        }
    }

    /// Keeps where a scan found the frames of segment `id` start, unless more of it is known already or the
    /// frame cache's budget has no room for them (FrameOffsets.swift).
    /// The exact-size copy of `starts` is made only when it is kept (a sealed segment is scanned again on every
    /// scan, and its offsets are known after the first).
    private func noteFrameOffsets(_ starts: [UInt32], end: UInt32, of id: UInt32) {
        state.withLock { state in
            guard let known = state.segments[id]?.frameOffsets, known.end < end else { return }
            let offsets = FrameOffsets(starts: starts, end: end)
            guard state.cache.reserve(offsets.memoryCost - known.memoryCost) else { return }
            state.segments[id]!.frameOffsets = offsets
        }
    }

    static func describeLoss(_ header: FrameHeader?) -> String {
        guard let header else { return "the frame header is unreadable, so the number of records lost is unknown" }
        return "the frame held \(header.recordCount) record(s) from LSN \(header.baseLSN)"
    }
}
