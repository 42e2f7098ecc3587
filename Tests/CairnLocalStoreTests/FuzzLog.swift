import Foundation
@testable import SegmentLog

/// Writes the fuzz suite's records to a new log.
enum FuzzLog {
    /// The LSN the first record gets with `highLSNs`: the last few hundred below SegmentLog's limit of 2^62.
    static let highFirstLSN: UInt64 = (1 << 62) - 500

    /// Writes `records` in order to a new log in `directory`, `batchSize` records per committed batch, their
    /// LSNs starting at 1 or (`highLSNs`) at ``highFirstLSN``, set through the manifest's LSN floor.
    static func write(_ records: [FuzzCorpus.Record], to directory: String, batchSize: Int, highLSNs: Bool) throws {
        let configuration = FuzzCorpus.configuration
        if highLSNs {
            try SegmentLog.open(at: directory, configuration: configuration).close()
            var manifest = try Manifest.read(from: directory, fileSystem: configuration.fileSystem)
            manifest.lsnFloor = highFirstLSN
            try manifest.write(to: directory, fileSystem: configuration.fileSystem)
        }
        let log = try SegmentLog.open(at: directory, configuration: configuration)
        defer { try? log.close() }
        var batch = WriteBatch()
        for record in records {
            batch.append(kind: record.kind, key: record.key, value: record.value)
            if batch.count >= batchSize {
                _ = try log.commit(batch)
                batch.removeAll()
            }
        }
        if !batch.isEmpty { _ = try log.commit(batch) }
    }
}
