import CairnModel

extension LocalStore {
    /// The number of cached documents that exist.
    package var documentCount: Int { remoteDocuments.foundCount }

    /// Stores server versions of documents, in one atomic append. A document replaces the cached one when it
    /// is newer (a higher version), when the cached one came from an acknowledged write
    /// (`hasCommittedMutations`) and the versions are equal, or when nothing is cached; older versions are
    /// ignored, as Firebase's `PopulateDocumentChanges` does. When `documents` holds several versions of one
    /// document, the newest counts. A `noDocument` at version 0 means the client lost access: the document
    /// leaves the cache. Returns the keys that changed.
    @discardableResult
    package func applyRemoteDocuments(_ documents: [Document]) throws -> [DocumentKey] {
        try checkOpen()
        let (accepted, lostAccess) = documentCache.changes(in: documents)
        guard !accepted.isEmpty || !lostAccess.isEmpty else { return [] }
        let keys = accepted.map(\.key) + lostAccess
        try commit(accepted.map(RemoteDocumentEvent.encode) + lostAccess.map(RemoteDocumentEvent.evicted)) { written in
            noteRemoteDocuments(accepted, written: Array(written.prefix(accepted.count)))
            noteEvictions(lostAccess, written: Array(written.dropFirst(accepted.count)))
            // An overlay depends on the server copy under it (a patch of a missing document does nothing).
            refreshOverlays(after: keys)
        }
        return keys
    }




    /// Removes evicted documents from the view (and the orphan queue). In memory mode the eviction events are dropped at once
    /// (nothing replays them); in the log they stay until they shadow nothing (`RemovalRecords`, §4).
    func noteEvictions(_ keys: [DocumentKey], written: [(reference: EventReference, sequence: UInt64)]) {
        var removed: [RemoteDocumentEntry?] = []
        for (key, (reference, _)) in zip(keys, written) {
            removed.append(remoteDocuments.remove(key))
            events.removalApplied(reference)
            if case .log(let location) = reference { compactionCoordinator.removals.track(location) }
        }
        // The indexes read the removed versions for their entries, so those events are retired after.
        indexManager.remove(keys, removed: removed, events: events)
        for case let previous? in removed { events.retire(previous.reference) }
    }

    /// Puts written remote-document events into the view, retiring the events they replace.
    func noteRemoteDocuments(_ documents: [Document], written: [(reference: EventReference, sequence: UInt64)]) {
        var replaced: [RemoteDocumentEntry?] = []
        for (document, (reference, sequence)) in zip(documents, written) {
            let entry = RemoteDocumentEntry(
                reference: reference, state: document.state, version: document.version, readTime: document.readTime,
                hasCommittedMutations: document.hasCommittedMutations, sequence: sequence)
            replaced.append(remoteDocuments.set(entry, for: document.key))
        }
        collector.noteDocumentsWritten(documents.map(\.key), sequences: written.map(\.sequence))
        // The indexes read the replaced versions for their old entries, so those events are retired after.
        indexManager.update(documents, replaced: replaced, events: events)
        for case let previous? in replaced { events.retire(previous.reference) }
    }

    /// Drops documents from the cache (garbage collection, or a removed target's orphans). A document with a
    /// pending write keeps its local view: its overlay is recomputed against the now missing server copy.
    package func evictDocuments(_ keys: [DocumentKey]) throws {
        try checkOpen()
        var present: [DocumentKey] = []
        var seen: Set<DocumentKey> = []
        for key in keys where remoteDocuments.entry(for: key) != nil && seen.insert(key).inserted { present.append(key) }
        guard !present.isEmpty else { return }
        try commit(present.map(RemoteDocumentEvent.evicted)) { written in
            noteEvictions(present, written: written)
            refreshOverlays(after: present)
        }
    }

    /// The cached server state of a document, or nil when the cache knows nothing about it.
    package func remoteDocument(_ key: DocumentKey) throws -> Document? {
        try checkOpen()
        return try localDocuments.remoteDocument(key)
    }

    /// Answers a query from the cached server state by scanning the collection (or the collection group's
    /// collections): matching, ordering and limit as the query says.
    package func executeQuery(_ query: Query) throws -> [Document] {
        try checkOpen()
        var report = QueryExecutionReport(path: .scan)
        let documents = try queryEngine.scanRemoteDocuments(
            remoteDocuments.candidates(for: query), filters: QueryEngine.prefilters(of: query), report: &report)
        return query.results(from: documents)
    }
}
