import CairnModel
import CairnLocalStore

/// Loading data bundles (Firebase's `SyncEngine::LoadBundle` with `LocalStore::ApplyBundledDocuments` and
/// `SaveNamedQuery`): the bundle's documents enter the cache as server data (newer versions only), held by an
/// umbrella target so that garbage collection keeps them; each named query's target starts from the bundle's
/// read time; then the views are recomputed. The bundle cache (CairnLocalStore's `Bundles/`) remembers the
/// loaded bundles and the named queries, also across restarts: a bundle loaded before (same id, creation time
/// not newer) reports success at once and changes nothing.
extension SyncEngine {
    /// Reads a bundle from `reader` and applies it, calling `progress` with the initial progress and after each
    /// document; returns the final, successful progress. Nothing is applied when reading fails.
    package func loadBundle(
        from reader: BundleReader, progress: (BundleLoadProgress) -> Void
    ) throws(FirestoreErrorCode) -> BundleLoadProgress {
        verifyOnQueue()
        let metadata = try reader.readMetadata()
        if localStore.hasNewerBundle(metadata) { return .success(metadata) }
        progress(.initial(metadata))
        var loader = BundleLoader(metadata: metadata)
        while let element = try reader.nextElement() {
            if let update = try loader.add(element, bytesRead: reader.bytesRead) { progress(update) }
        }
        try apply(try loader.finish())
        return .success(metadata)
    }

    /// Applies a bundle read whole; one with the same id and a creation time not newer than a loaded one is
    /// skipped.
    package func loadBundle(_ bundle: LoadedBundle) throws(FirestoreErrorCode) {
        verifyOnQueue()
        if localStore.hasNewerBundle(bundle.metadata) { return }
        try apply(bundle)
    }

    /// The named query of a loaded bundle (in this run or a previous one), or nil.
    package func namedQuery(_ name: String) -> NamedQuery? {
        verifyOnQueue()
        return localStore.namedQuery(name)
    }

    /// Firebase's `BundleLoader::ApplyChanges` and the snapshots after it: the documents, then the named
    /// queries, then the bundle's metadata (so an interrupted load is applied again next time), then the views.
    private func apply(_ bundle: LoadedBundle) throws(FirestoreErrorCode) {
        do {
            let umbrella = try localStore.allocateTarget(
                Query(path: ResourcePath(segments: ["__bundle__", "docs", bundle.id])))
            let keys = Set(bundle.documents.map(\.key))
            let previous = localStore.remoteKeys(forTarget: umbrella.targetID)
            try localStore.updateTarget(umbrella, added: keys, removed: previous.subtracting(keys))
            let changedKeys = try localStore.applyRemoteDocuments(bundle.documents)
            var changed: [DocumentKey: Document?] = [:]
            for key in changedKeys { changed.updateValue(try localStore.localDocument(key), forKey: key) }
            for named in bundle.namedQueries {
                let members = bundle.queriesByDocument.filter { $0.value.contains(named.name) }.map(\.key)
                try saveNamedQuery(named, matching: Set(members).intersection(keys))
            }
            try localStore.saveBundleMetadata(bundle.metadata)
            try emitNewSnapshots(changed, remoteEvent: nil)
        } catch {
            throw FirestoreErrorCode.fromCache(error)
        }
    }

    /// Allocates the named query's target and, when the bundle is newer than what the target has, sets its
    /// snapshot version to the bundle's read time and its membership to the bundle's documents, so a listen to
    /// the query resumes from there; then saves the named query.
    private func saveNamedQuery(_ named: NamedQuery, matching keys: Set<DocumentKey>) throws {
        var data = try localStore.allocateTarget(named.query)
        if named.readTime > data.snapshotVersion {
            data.resumeToken = []
            data.snapshotVersion = named.readTime
            let previous = localStore.remoteKeys(forTarget: data.targetID)
            try localStore.updateTarget(data, added: keys, removed: previous.subtracting(keys))
        }
        try localStore.saveNamedQuery(named)
    }
}
