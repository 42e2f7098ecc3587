import CairnModel

/// The read side of the local documents view (Firebase's `LocalDocumentsView`): cached server copies read
/// through the event store, and the same with the current user's overlays applied. The overlays must be
/// current (`LocalStore.prepareOverlays()`); the store keeps them so on every write, acknowledgement and
/// rejection. The query engine reads documents through it.
///
/// ```swift
/// let view = LocalDocumentsView(events: events, documents: documentCache, queue: mutationQueue)
/// try view.remoteDocument(key)      // the server's copy
/// try view.localView(key)           // with pending writes applied
/// ```
struct LocalDocumentsView {
    let events: any EventStore
    let documents: RemoteDocumentCache
    let queue: MutationQueue

    /// The cached server state of a document, or nil when the cache knows nothing about it.
    func remoteDocument(_ key: DocumentKey) throws -> Document? {
        guard let entry = documents.view.entry(for: key) else { return nil }
        return try document(key, entry)
    }

    /// The remote document an entry of the view describes, read from its event.
    func document(_ key: DocumentKey, _ entry: RemoteDocumentEntry) throws -> Document {
        try events.withValue(of: entry.reference) { try Self.document(key, entry, $0) }
    }

    /// The local view of `key`: the server copy with the overlay applied; nil when the cache knows nothing
    /// and no pending write changes it.
    func localView(_ key: DocumentKey) throws -> Document? {
        let remote = try remoteDocument(key)
        guard let overlay = queue.view.overlays[key] else { return remote }
        var document = remote
        // An overlay has no transforms (their results are values in it), so the write time is never read.
        overlay.mutation.applyToLocalView(&document, previousMask: FieldMask(), localWriteTime: LocalStore.noVersion)
        return document
    }

    /// A whole remote document from its event's value, with the read time the view holds.
    static func document(_ key: DocumentKey, _ entry: RemoteDocumentEntry, _ value: UnsafeRawBufferPointer) throws -> Document {
        var document = try RemoteDocumentEvent.decode(value, key: key)
        document.readTime = entry.readTime
        return document
    }
}
