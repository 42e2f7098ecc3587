import CairnModel
import SegmentLog

/// Sizes of a cache per segment and per collection, with the LRU threshold they are measured against
/// (`cairn stats`, and the chart `cairn stats --svg` draws).
///
/// Live and dead bytes are exact: replay retires every record a newer event superseded, as the running
/// cache does, so "dead" is what compaction would drop.
///
/// ```swift
/// let statistics = try inspector.statistics(threshold: 100 << 20)
/// for collection in statistics.collections { print(collection.path, collection.documents, collection.bytes) }
/// ```
package struct CacheStatistics: Sendable, Equatable, Codable {
    /// The segments in log order; the last one is active.
    package var segments: [SegmentReport]
    /// Collections holding documents, by path.
    package var collections: [CollectionReport]
    /// The cache-size threshold the report compares with (``LocalStore/cacheSizeUnlimited`` for none).
    package var thresholdBytes: Int64
    /// The sequence number the next event will get: a document's age is this minus its sequence number.
    package var nextSequence: UInt64

    /// Bytes of segment files on disk, what the threshold is measured against.
    package var bytesOnDisk: UInt64 { segments.reduce(0) { $0 + $1.fileBytes } }
    package var liveRecordBytes: UInt64 { segments.reduce(0) { $0 + $1.liveRecordBytes } }
    package var deadRecordBytes: UInt64 { segments.reduce(0) { $0 + $1.deadRecordBytes } }
}

/// One segment: its file, frames, records and their live and dead bytes.
package struct SegmentReport: Sendable, Equatable, Codable {
    package var id: UInt32
    package var isActive: Bool
    /// Bytes of the file holding data (header and committed frames).
    package var fileBytes: UInt64
    package var frames: Int
    /// Frames stored LZ4-compressed; the rest were incompressible.
    package var compressedFrames: Int
    package var records: UInt64
    /// Encoded (uncompressed) bytes of the records.
    package var recordBytes: UInt64
    /// Record bytes the cache still needs; the rest was superseded.
    package var liveRecordBytes: UInt64
    package var firstSequence: UInt64?
    package var lastSequence: UInt64?

    package var deadRecordBytes: UInt64 { recordBytes - liveRecordBytes }
    /// Share of record bytes that are dead (0 for an empty segment).
    package var deadRatio: Double { recordBytes == 0 ? 0 : Double(deadRecordBytes) / Double(recordBytes) }
    /// Record bytes per file byte, headers included.
    package var compressionRatio: Double { fileBytes == 0 ? 0 : Double(recordBytes) / Double(fileBytes) }
    /// File bytes in proportion to the live share of the records (what compaction would keep, roughly).
    package var liveFileBytes: UInt64 { UInt64((Double(fileBytes) * (1 - deadRatio)).rounded()) }
}

/// The cached documents of one collection.
package struct CollectionReport: Sendable, Equatable, Codable {
    /// The collection path, such as `users` or `users/ada/posts`.
    package var path: String
    /// Existing documents.
    package var documents: Int
    /// Documents known not to exist (tombstones) or with unknown contents.
    package var absentDocuments: Int
    /// Encoded bytes of the documents' latest events (header and body).
    package var bytes: UInt64
    /// The LRU sequence numbers (LSNs of their latest events) of the least and the most recently used document.
    package var oldestSequence: UInt64
    package var newestSequence: UInt64
    /// The median sequence number.
    package var medianSequence: UInt64
}

extension CacheInspector {
    /// Per-segment and per-collection sizes. `threshold` is the cache-size threshold to compare with (the
    /// app's setting; the cache does not store it).
    package func statistics(threshold: Int64) throws -> CacheStatistics {
        let store = try replayed()
        return CacheStatistics(
            segments: try segmentReports(), collections: collectionReports(store), thresholdBytes: threshold,
            nextSequence: log.nextLSN)
    }

    /// Segments with their frame counts (one pass over the frames) and exact live bytes (from replay's retirements).
    func segmentReports() throws -> [SegmentReport] {
        let frames = Dictionary(uniqueKeysWithValues: try logInspection().segments.map { ($0.id, $0) })
        return log.statistics.segments.map { s in
            SegmentReport(
                id: s.id, isActive: s.isActive, fileBytes: s.fileBytes, frames: frames[s.id]?.frameCount ?? 0,
                compressedFrames: frames[s.id]?.compressedFrameCount ?? 0, records: s.recordCount,
                recordBytes: s.recordBytes, liveRecordBytes: s.liveRecordBytes,
                firstSequence: s.recordCount == 0 ? nil : s.minLSN, lastSequence: s.recordCount == 0 ? nil : s.maxLSN)
        }
    }

    func collectionReports(_ store: LocalStore) -> [CollectionReport] {
        var found: [String: [(bytes: UInt64, sequence: UInt64)]] = [:]
        var absent: [String: Int] = [:]
        store.remoteDocuments.forEachEntry { key, entry in
            let path = key.collectionPath.canonicalString
            guard entry.state == .found else {
                absent[path, default: 0] += 1
                return
            }
            let bytes: UInt64 = if case .log(let location) = entry.reference { UInt64(location.size) } else { 0 }
            found[path, default: []].append((bytes, entry.sequence))
        }
        return Set(found.keys).union(absent.keys).sorted().map { path in
            let documents = found[path] ?? []
            let sequences = documents.map(\.sequence).sorted()
            return CollectionReport(
                path: path, documents: documents.count, absentDocuments: absent[path] ?? 0,
                bytes: documents.reduce(0) { $0 + $1.bytes }, oldestSequence: sequences.first ?? 0,
                newestSequence: sequences.last ?? 0, medianSequence: sequences.isEmpty ? 0 : sequences[sequences.count / 2])
        }
    }
}
