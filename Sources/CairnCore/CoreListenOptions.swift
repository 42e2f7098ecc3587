/// How a query listener filters and gates its events (Firebase's `core::ListenOptions`).
///
/// ```swift
/// let options = ListenOptions(includeDocumentMetadataChanges: true, includeQueryMetadataChanges: true)
/// ```
package struct ListenOptions: Sendable, Equatable {
    /// Deliver document changes that only change a document's metadata (its pending writes).
    package var includeDocumentMetadataChanges = false
    /// Deliver snapshots whose only change is `isFromCache` or `hasPendingWrites`.
    package var includeQueryMetadataChanges = false
    /// Hold back a from-cache first snapshot while the client may be online (`getDocuments` with the default
    /// source: answer from the server when it can).
    package var waitForSyncWhenOnline = false
    package var source = ListenSource.default

    package init(
        includeDocumentMetadataChanges: Bool = false, includeQueryMetadataChanges: Bool = false,
        waitForSyncWhenOnline: Bool = false, source: ListenSource = .default
    ) {
        self.includeDocumentMetadataChanges = includeDocumentMetadataChanges
        self.includeQueryMetadataChanges = includeQueryMetadataChanges
        self.waitForSyncWhenOnline = waitForSyncWhenOnline
        self.source = source
    }

    /// Both kinds of metadata changes, as `addSnapshotListener(includeMetadataChanges: true)` asks.
    package static func includingMetadataChanges(_ include: Bool, source: ListenSource = .default) -> ListenOptions {
        ListenOptions(includeDocumentMetadataChanges: include, includeQueryMetadataChanges: include, source: source)
    }
}
