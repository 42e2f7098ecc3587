import CairnModel

extension LocalStore {
    /// The number of cached documents that exist.
    public var documentCount: Int { remoteDocuments.foundCount }

    /// Stores server versions of documents, in one atomic append. A document replaces the cached one when it
    /// is newer (a higher version), when the cached one came from an acknowledged write
    /// (`hasCommittedMutations`) and the versions are equal, or when nothing is cached; older versions are
    /// ignored, as Firebase's `PopulateDocumentChanges` does. Returns the keys that changed.
    @discardableResult
    public func applyRemoteDocuments(_ documents: [Document]) throws -> [DocumentKey] {
        try checkOpen()
        let accepted = documents.filter { document in
            guard let cached = remoteDocuments.entry(for: document.key) else { return true }
            return document.version > cached.version || (document.version == cached.version && cached.hasCommittedMutations)
        }
        guard !accepted.isEmpty else { return [] }
        let written = try events.append(accepted.map(RemoteDocumentEvent.encode))
        noteRemoteDocuments(accepted, written: written)
        let keys = accepted.map(\.key)
        // An overlay depends on the server copy under it (a patch of a missing document does nothing).
        try recalculateOverlays(for: keys)
        return keys
    }

    /// Puts written remote-document events into the view, retiring the events they replace.
    func noteRemoteDocuments(_ documents: [Document], written: [(reference: EventReference, sequence: UInt64)]) {
        for (document, (reference, sequence)) in zip(documents, written) {
            let entry = RemoteDocumentEntry(
                reference: reference, state: document.state, version: document.version, readTime: document.readTime,
                hasCommittedMutations: document.hasCommittedMutations, sequence: sequence)
            if let previous = remoteDocuments.set(entry, for: document.key) { events.retire(previous.reference) }
        }
    }

    /// The cached documents (found or not) that may be in `query`'s scope: one collection's bucket, the
    /// buckets of a collection group, or the one document of a document query.
    func remoteCandidates(for query: Query) -> [(key: DocumentKey, entry: RemoteDocumentEntry)] {
        if let group = query.collectionGroup { return remoteDocuments.candidates(group: group) }
        if query.path.isDocumentPath {
            let key = DocumentKey(path: query.path)
            return remoteDocuments.entry(for: key).map { [(key, $0)] } ?? []
        }
        return remoteDocuments.candidates(collection: query.path)
    }

    /// Drops documents from the cache (garbage collection, or a removed target's orphans).
    public func evictDocuments(_ keys: [DocumentKey]) throws {
        try checkOpen()
        let present = keys.filter { remoteDocuments.entry(for: $0) != nil }
        guard !present.isEmpty else { return }
        _ = try events.append(present.map { EncodedEvent(kind: .documentEvicted, key: RemoteDocumentEvent.key($0), value: []) })
        for key in present {
            if let previous = remoteDocuments.remove(key) { events.retire(previous.reference) }
        }
    }

    /// The cached server state of a document, or nil when the cache knows nothing about it.
    public func remoteDocument(_ key: DocumentKey) throws -> Document? {
        try checkOpen()
        guard let entry = remoteDocuments.entry(for: key) else { return nil }
        return try document(key, entry)
    }

    func document(_ key: DocumentKey, _ entry: RemoteDocumentEntry) throws -> Document {
        var document = try events.withValue(of: entry.reference) { try RemoteDocumentEvent.decode($0, key: key) }
        document.readTime = entry.readTime
        return document
    }

    /// Answers a query from the cached server state by scanning the collection (or the collection group's
    /// collections): matching, ordering and limit as the query says.
    public func executeQuery(_ query: Query) throws -> [Document] {
        try checkOpen()
        let candidates = remoteCandidates(for: query)
        var documents: [Document] = []
        documents.reserveCapacity(candidates.count)
        for (key, entry) in candidates where entry.state == .found {
            documents.append(try document(key, entry))
        }
        return query.results(from: documents)
    }
}
