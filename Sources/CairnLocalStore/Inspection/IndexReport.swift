import CairnModel
import SegmentLog

/// The field-index configuration of a cache as `cairn inspect` shows it (``CacheInspector/indexReport()``):
/// the configured and automatically created indexes, the auto-creation switch, and per index how much a
/// backfill has to do and how many entries it makes.
///
/// Index entries are not stored (Docs/LocalStore.md §8): every open rebuilds them by a backfill, so an app's
/// progress is never on disk. What the report gives instead is exact for the directory as it is: the documents
/// a backfill reads after the next open, and the entries each index holds once that backfill is done (the
/// inspector runs it in memory; nothing is written).
///
/// ```swift
/// let indexes = try inspector.indexReport()
/// for index in indexes.indexes { print(index.id, index.documentsToBackfill, index.entryCount) }
/// print(indexes.isAutoCreationEnabled)
/// ```
package struct IndexReport: Sendable, Equatable {
    /// Whether queries that scan many documents for few results create indexes.
    package var isAutoCreationEnabled: Bool
    /// `indexConfigurationChanged` records in the log (the newest is the configuration, the others retired).
    package var configurationRecords: Int
    /// The indexes, in configuration order.
    package var indexes: [FieldIndexReport]
}

/// One field index of an ``IndexReport``.
package struct FieldIndexReport: Sendable, Equatable {
    package var index: FieldIndex
    /// The index's canonical id, such as `users|age:asc,tags:contains`.
    package var id: String { index.canonicalID }
    /// Documents of its collection group that the backfill after an open reads before the index serves queries.
    package var documentsToBackfill: Int
    /// Entries the index holds once backfilled (one per document, or one per distinct array element with a
    /// contains segment; documents without the indexed fields have none).
    package var entryCount: Int
}

extension CacheInspector {
    /// The field indexes, their backfill work after an open, and their entries once backfilled.
    ///
    /// - Throws: ``InspectionError`` `.corruption` when replay failed or a document cannot be decoded.
    package func indexReport() throws -> IndexReport {
        if let indexReportCache { return indexReportCache }
        let store = try replayed()
        let atOpen = store.fieldIndexStatuses
        do {
            // Only the in-memory view changes: a backfill writes nothing.
            while try store.backfillIndexes(maxDocuments: 1000) > 0 {}
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
        let entries = Dictionary(store.fieldIndexStatuses.map { ($0.index, $0.entryCount) }, uniquingKeysWith: max)
        var records = 0
        do {
            try log.scan(matching: RecordFilter(kinds: [EventKind.indexConfigurationChanged.rawValue])) { _ in records += 1 }
        } catch {
            throw InspectionError.wrap(error, directory: directory)
        }
        let report = IndexReport(
            isAutoCreationEnabled: store.isIndexAutoCreationEnabled, configurationRecords: records,
            indexes: atOpen.map { status in
                FieldIndexReport(
                    index: status.index, documentsToBackfill: status.documentsToBackfill + status.documentsBackfilled,
                    entryCount: entries[status.index] ?? 0)
            })
        indexReportCache = report
        return report
    }
}
