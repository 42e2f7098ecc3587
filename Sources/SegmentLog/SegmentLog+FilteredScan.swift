// A scan that selects records by kind, key prefix and segment, for inspection tools (`cairn dump`), and the
// frame-by-frame walk under it and under ``SegmentLog/inspect(at:fileSystem:)``.

/// Which records ``SegmentLog/scan(matching:_:)`` visits. A `nil` field matches everything; the fields combine
/// with "and".
///
/// ```swift
/// let filter = RecordFilter(kinds: [1], keyPrefix: Array("users/".utf8))
/// try log.scan(matching: filter) { view in print(view.lsn, view.location) }
/// ```
public struct RecordFilter: Sendable, Equatable {
    /// Record kinds to keep.
    public var kinds: Set<UInt8>?
    /// Keys must start with these bytes.
    public var keyPrefix: [UInt8]?
    /// Only this segment is read; the others are skipped without reading them.
    public var segment: UInt32?

    public init(kinds: Set<UInt8>? = nil, keyPrefix: [UInt8]? = nil, segment: UInt32? = nil) {
        self.kinds = kinds
        self.keyPrefix = keyPrefix
        self.segment = segment
    }

    /// Whether `view` passes the kind and key-prefix tests (the segment is chosen before reading).
    public func matches(_ view: RecordView) -> Bool {
        if let kinds, !kinds.contains(view.kind) { return false }
        if let keyPrefix {
            guard view.key.count >= keyPrefix.count else { return false }
            return keyPrefix.withUnsafeBytes { prefix in
                prefix.elementsEqual(UnsafeRawBufferPointer(rebasing: view.key[0..<keyPrefix.count]))
            }
        }
        return true
    }
}

extension SegmentLog {
    /// Calls `body` for every record that `filter` matches, in log order (as ``scan(_:)``, retired records
    /// included). Never changes a byte.
    ///
    /// - Throws: `.notFound` when `filter.segment` is not part of the log; `.corruption` at the first damaged
    ///   frame, as ``scan(_:)``.
    public func scan(matching filter: RecordFilter, _ body: (RecordView) throws -> Void) throws {
        try walkIntactFrames(segment: filter.segment, frame: { _, _, _ in }) { view in
            if filter.matches(view) { try body(view) }
        }
    }

    /// Visits the frames (`frame`: segment, offset, header) and their records (`record`) in log order, of one
    /// segment or of all. Throws like ``scan(_:)`` at the first damaged frame.
    func walkIntactFrames(
        segment only: UInt32?, frame: (UInt32, UInt64, FrameHeader) -> Void, record: (RecordView) throws -> Void
    ) throws {
        var plan = try scanPlan()
        if let only {
            guard plan.contains(where: { $0.id == only }) else {
                throw StorageError(
                    .notFound, "segment \(only) is not part of the log; its segments are "
                        + plan.map { String($0.id) }.joined(separator: ", "), path: directory)
            }
            plan.removeAll { $0.id != only }
        }
        let payloads = PayloadBuffer()
        for (id, handle, length) in plan {
            let cursor = FrameCursor(handle: handle, end: length)
            walking: while true {
                switch try cursor.next() {
                case .end:
                    break walking
                case .damage(let offset, let problem, let header):
                    throw StorageError(
                        cursor.lastDamageIsNewerFormat ? .formatVersion : .corruption,
                        "segment \(id), frame at offset \(offset): \(problem); " + SegmentLog.describeLoss(header)
                            + "; run `cairn verify` for every damaged range", path: segmentPath(id), offset: offset)
                case .frame(let offset, let header, let stored):
                    let raw: UnsafeRawBufferPointer
                    switch payloads.raw(header: header, stored: stored) {
                    case .failure(let problem):
                        throw StorageError(
                            .corruption, "segment \(id), frame at offset \(offset): \(problem.what); " + SegmentLog.describeLoss(header),
                            path: segmentPath(id), offset: offset)
                    case .success(let bytes): raw = bytes
                    }
                    frame(id, offset, header)
                    let problem = try FrameDecoding.forEachRecord(in: raw, header: header, segment: id, frameOffset: UInt32(offset)) { _, view in
                        try record(view)
                    }
                    if let problem {
                        throw StorageError(
                            .corruption, "segment \(id), frame at offset \(offset): \(problem)", path: segmentPath(id), offset: offset)
                    }
                }
            }
        }
    }
}
