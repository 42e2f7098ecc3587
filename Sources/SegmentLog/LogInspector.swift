// A storage-level picture of a log for people and tools (`cairn inspect`, `cairn stats`): what is on disk,
// segment by segment and kind by kind, gathered by one read-only pass over every frame.
//
// Live and dead here are an approximation: the inspection calls the newest record (highest LSN) of each key
// live and every older record of that key dead. The layer above decides what really stops mattering (it
// retires records with ``SegmentLog/retire(_:)``; a deletion marker, for example, may itself be dead), so
// its numbers can differ. Retirement is not stored on disk, which is why an inspection cannot know it.

/// What ``SegmentLog/inspect(at:fileSystem:)`` found in a log directory.
///
/// ```swift
/// let inspection = try SegmentLog.inspect(at: "/var/lib/app/cache")
/// for segment in inspection.segments {
///     print(segment.id, segment.fileBytes, segment.recordCount, segment.compressionRatio)
/// }
/// print("\(inspection.distinctKeys) keys, \(inspection.liveRecordBytes) of \(inspection.recordBytes) bytes live")
/// ```
public struct LogInspection: Sendable, Equatable {
    /// The log's directory.
    public var directory: String
    /// The format version the manifest was written with.
    public var formatVersion: UInt32
    /// The segments in log order; the last one is active.
    public var segments: [SegmentInspection]
    /// One entry per record kind present, by ascending kind.
    public var kinds: [KindInspection]
    /// Number of different keys.
    public var distinctKeys: Int
    /// Smallest and largest sequence number of the records, nil for an empty log.
    public var lsnRange: ClosedRange<UInt64>?
    /// The sequence number the next record will get.
    public var nextLSN: UInt64
    /// What the read-only open saw at the end of the active segment: a torn or unfinished tail is reported
    /// here but not cut (a writer's next open cuts it).
    public var recovery: RecoveryReport

    public var fileBytes: UInt64 { segments.reduce(0) { $0 + $1.fileBytes } }
    public var frameCount: Int { segments.reduce(0) { $0 + $1.frameCount } }
    public var compressedFrameCount: Int { segments.reduce(0) { $0 + $1.compressedFrameCount } }
    public var recordCount: UInt64 { segments.reduce(0) { $0 + $1.recordCount } }
    public var recordBytes: UInt64 { segments.reduce(0) { $0 + $1.recordBytes } }
    /// Records that are the newest of their key (equal to ``distinctKeys``).
    public var liveRecordCount: UInt64 { segments.reduce(0) { $0 + $1.liveRecordCount } }
    public var liveRecordBytes: UInt64 { segments.reduce(0) { $0 + $1.liveRecordBytes } }
    public var deadRecordBytes: UInt64 { recordBytes - liveRecordBytes }
}

/// One segment in a ``LogInspection``.
public struct SegmentInspection: Sendable, Equatable {
    public var id: UInt32
    public var isActive: Bool
    /// Bytes of the segment file holding data: header and intact frames (not an active segment's preallocated
    /// zeros or torn tail).
    public var fileBytes: UInt64
    public var frameCount: Int
    /// Frames stored LZ4-compressed (the rest were incompressible and stored raw).
    public var compressedFrameCount: Int
    public var recordCount: UInt64
    /// Encoded (uncompressed) bytes of the records.
    public var recordBytes: UInt64
    /// Records that are the newest of their key.
    public var liveRecordCount: UInt64
    public var liveRecordBytes: UInt64
    /// Smallest and largest sequence number in the segment, nil when it holds no records.
    public var lsnRange: ClosedRange<UInt64>?

    public var deadRecordCount: UInt64 { recordCount - liveRecordCount }
    public var deadRecordBytes: UInt64 { recordBytes - liveRecordBytes }
    /// Share of record bytes that are dead (0 for an empty segment).
    public var deadRatio: Double { recordBytes == 0 ? 0 : Double(deadRecordBytes) / Double(recordBytes) }
    /// Record bytes per file byte, headers included (as ``SegmentStatistics/compressionRatio``).
    public var compressionRatio: Double { fileBytes == 0 ? 0 : Double(recordBytes) / Double(fileBytes) }
}

/// The records of one kind in a ``LogInspection``.
public struct KindInspection: Sendable, Equatable {
    public var kind: UInt8
    public var recordCount: UInt64
    /// Encoded (uncompressed) bytes of the records.
    public var recordBytes: UInt64
    /// Records that are the newest of their key.
    public var liveRecordCount: UInt64
    public var liveRecordBytes: UInt64
}

extension SegmentLog {
    /// Opens the log in `directory` read-only (no lock, no recovery, not a byte changed), reads every frame and
    /// returns what it found. Works while another process writes the log: it sees the commits made up to the
    /// moment it opened. Memory grows with the number of distinct keys (one entry per key).
    ///
    /// - Throws: ``StorageError`` with `.notALog` when the directory holds no log (no MANIFEST),
    ///   `.formatVersion` when a newer version wrote it, `.corruption` at the first damaged frame
    ///   (`cairn verify` lists every damaged range).
    public static func inspect(at directory: String, fileSystem: any FileSystem = PosixFileSystem()) throws -> LogInspection {
        var configuration = Configuration()
        configuration.readOnly = true
        configuration.fileSystem = fileSystem
        configuration.frameCacheBytes = 0
        let log = try open(at: directory, configuration: configuration)
        defer { try? log.close() }
        return try log.inspection(formatVersion: try manifestFormatVersion(in: directory, fileSystem: fileSystem))
    }

    /// The format version field of the MANIFEST (checked by the open that preceded this call).
    private static func manifestFormatVersion(in directory: String, fileSystem: any FileSystem) throws -> UInt32 {
        let path = joinPath(directory, Manifest.fileName)
        let handle = try fileSystem.open(path, .readOnly)
        defer { try? handle.close() }
        let bytes = try handle.read(at: 8, count: 4)
        guard bytes.count == 4 else { throw StorageError(.corruption, "MANIFEST is cut short", path: path, offset: 8) }
        return bytes.withUnsafeBytes { loadLE($0, 0, as: UInt32.self) }
    }

    /// One pass over every frame: sizes per segment and kind, and the newest record of every key.
    private func inspection(formatVersion: UInt32) throws -> LogInspection {
        struct Newest {
            var lsn: UInt64
            var size: UInt32
            var kind: UInt8
            var segment: UInt32
        }
        let statistics = self.statistics
        var segments: [UInt32: SegmentInspection] = [:]
        for s in statistics.segments {
            segments[s.id] = SegmentInspection(
                id: s.id, isActive: s.isActive, fileBytes: s.fileBytes, frameCount: 0, compressedFrameCount: 0,
                recordCount: 0, recordBytes: 0, liveRecordCount: 0, liveRecordBytes: 0, lsnRange: nil)
        }
        var kinds: [UInt8: KindInspection] = [:]
        var newest: [[UInt8]: Newest] = [:]
        try walkIntactFrames(segment: nil, frame: { id, _, header in
            segments[id]!.frameCount += 1
            if header.isCompressed { segments[id]!.compressedFrameCount += 1 }
        }) { view in
            let size = UInt64(view.location.size)
            let id = view.location.segment
            segments[id]!.recordCount += 1
            segments[id]!.recordBytes += size
            segments[id]!.lsnRange = segments[id]!.lsnRange.map { min($0.lowerBound, view.lsn)...max($0.upperBound, view.lsn) }
                ?? view.lsn...view.lsn
            var kind = kinds[view.kind]
                ?? KindInspection(kind: view.kind, recordCount: 0, recordBytes: 0, liveRecordCount: 0, liveRecordBytes: 0)
            kind.recordCount += 1
            kind.recordBytes += size
            kinds[view.kind] = kind
            // Compaction moves records but keeps their LSNs, so "newest" is decided by LSN, not by position.
            let key = view.keyBytes
            if let current = newest[key], current.lsn > view.lsn { return }
            newest[key] = Newest(lsn: view.lsn, size: view.location.size, kind: view.kind, segment: id)
        }
        for record in newest.values {
            segments[record.segment]!.liveRecordCount += 1
            segments[record.segment]!.liveRecordBytes += UInt64(record.size)
            kinds[record.kind]!.liveRecordCount += 1
            kinds[record.kind]!.liveRecordBytes += UInt64(record.size)
        }
        let ordered = statistics.segments.map { segments[$0.id]! }
        let ranges = ordered.compactMap(\.lsnRange)
        return LogInspection(
            directory: directory, formatVersion: formatVersion, segments: ordered,
            kinds: kinds.values.sorted { $0.kind < $1.kind }, distinctKeys: newest.count,
            lsnRange: ranges.isEmpty ? nil : ranges.map(\.lowerBound).min()!...ranges.map(\.upperBound).max()!,
            nextLSN: statistics.nextLSN, recovery: recoveryReport)
    }
}
