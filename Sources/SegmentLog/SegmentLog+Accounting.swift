// Exact live/dead accounting. The log cannot know what a record means, so the layer above tells it when a
// record stops mattering (``SegmentLog/retire(_:)``) — typically when a newer record for the same key
// supersedes it, during replay and on every write. Per segment the log keeps a bitset of retired records per
// frame, so retiring is idempotent and the counts are exact, and compaction can drop retired records.

extension SegmentLog {
    /// Marks the record at `location` as dead: it no longer counts as live bytes and compaction drops it.
    /// Retiring a record twice, or a location in a segment that no longer exists, changes nothing.
    public func retire(_ location: RecordLocation) {
        state.withLock { state in
            _ = state.segments[location.segment]?.retire(location)
        }
    }

    /// Whether `location` was retired.
    public func isRetired(_ location: RecordLocation) -> Bool {
        state.withLock { $0.segments[location.segment]?.isRetired(location) ?? false }
    }

    /// The sequence number the next record will get (cheap, unlike ``statistics``).
    public var nextLSN: UInt64 { state.withLock { $0.nextLSN } }

    /// Per-segment and total sizes: what is on disk, and how much of it is live.
    public var statistics: LogStatistics {
        state.withLock { state in
            LogStatistics(
                segments: state.order.map { id in
                    let s = state.segments[id]!
                    return SegmentStatistics(
                        id: id, isActive: s.isActive, fileBytes: s.length, recordCount: s.recordCount,
                        recordBytes: s.recordBytes, deadRecordCount: s.deadRecords, deadRecordBytes: s.deadBytes,
                        minLSN: s.minLSN, maxLSN: s.maxLSN)
                },
                nextLSN: state.nextLSN, cachedFrameBytes: state.cache.bytes,
                frameOffsetBytes: state.cache.reservedBytes, cacheHits: state.cache.hits, cacheMisses: state.cache.misses)
        }
    }
}

/// Sizes of one segment.
public struct SegmentStatistics: Sendable, Equatable {
    public var id: UInt32
    public var isActive: Bool
    /// Bytes of the segment file holding data (header and frames).
    public var fileBytes: UInt64
    public var recordCount: UInt64
    /// Encoded (uncompressed) bytes of all records.
    public var recordBytes: UInt64
    public var deadRecordCount: UInt64
    /// Encoded bytes of retired records.
    public var deadRecordBytes: UInt64
    public var minLSN: UInt64
    public var maxLSN: UInt64

    /// Records not retired. The dead counts come from ``SegmentLog/retire(_:)`` with locations the layer above
    /// read from disk, so a damaged manifest's record count may be below them: the difference saturates at 0.
    public var liveRecordCount: UInt64 { recordCount > deadRecordCount ? recordCount - deadRecordCount : 0 }
    public var liveRecordBytes: UInt64 { recordBytes > deadRecordBytes ? recordBytes - deadRecordBytes : 0 }
    /// Share of record bytes that are dead (0 for an empty segment).
    public var deadRatio: Double { recordBytes == 0 ? 0 : Double(deadRecordBytes) / Double(recordBytes) }
    /// File bytes that compaction would free, in proportion to the dead share of the records.
    public var reclaimableFileBytes: UInt64 { UInt64(Double(fileBytes) * deadRatio) }
    /// Record bytes per file byte (the compression ratio, headers included).
    public var compressionRatio: Double { fileBytes == 0 ? 0 : Double(recordBytes) / Double(fileBytes) }
}

/// Sizes of the whole log.
public struct LogStatistics: Sendable, Equatable {
    public var segments: [SegmentStatistics]
    /// The sequence number the next record will get.
    public var nextLSN: UInt64
    /// Bytes of decoded frames in the frame cache.
    public var cachedFrameBytes: Int
    /// Bytes that the offsets of scanned segments' frames hold in the frame cache's budget (at most half of it).
    public var frameOffsetBytes: Int
    public var cacheHits: Int
    public var cacheMisses: Int

    /// Bytes on disk in segment files (what a cache-size threshold is measured against).
    public var fileBytes: UInt64 { segments.reduce(0) { $0 + $1.fileBytes } }
    public var recordCount: UInt64 { segments.reduce(0) { $0 + $1.recordCount } }
    public var recordBytes: UInt64 { segments.reduce(0) { $0 + $1.recordBytes } }
    public var liveRecordBytes: UInt64 { segments.reduce(0) { $0 + $1.liveRecordBytes } }
    public var deadRecordBytes: UInt64 { segments.reduce(0) { $0 + $1.deadRecordBytes } }
    public var liveRecordCount: UInt64 { segments.reduce(0) { $0 + $1.liveRecordCount } }
}
