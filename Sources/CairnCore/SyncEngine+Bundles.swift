import CairnModel
import CairnLocalStore

/// Loading data bundles (Firebase's `SyncEngine::LoadBundle` with `LocalStore::ApplyBundledDocuments` and
/// `SaveNamedQuery`): the bundle's documents enter the cache as server data (newer versions only), held by an
/// umbrella target so that garbage collection keeps them; each named query's target starts from the bundle's
/// read time; then the views are recomputed.
///
/// Known limit: the loaded bundles and named queries are remembered for the session only (Firebase keeps
/// them in its bundle cache), so after a restart the same bundle is applied again, which changes nothing.
extension SyncEngine {
    /// Applies `bundle`; a bundle with the same id and a creation time not newer than a loaded one is skipped.
    package func loadBundle(_ bundle: LoadedBundle) throws(FirestoreErrorCode) {
        verifyOnQueue()
        if let loaded = loadedBundles[bundle.id], loaded >= bundle.createTime { return }
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
            try emitNewSnapshots(changed, remoteEvent: nil)
        } catch {
            throw FirestoreErrorCode.fromCache(error)
        }
        loadedBundles[bundle.id] = bundle.createTime
    }

    /// The named query of a loaded bundle, or nil.
    package func namedQuery(_ name: String) -> LoadedBundle.NamedQuery? { namedQueries[name] }

    /// Allocates the named query's target and, when the bundle is newer than what the target has, sets its
    /// snapshot version to the bundle's read time and its membership to the bundle's documents, so a listen to
    /// the query resumes from there.
    private func saveNamedQuery(_ named: LoadedBundle.NamedQuery, matching keys: Set<DocumentKey>) throws {
        var data = try localStore.allocateTarget(named.query)
        if named.readTime > data.snapshotVersion {
            data.resumeToken = []
            data.snapshotVersion = named.readTime
            let previous = localStore.remoteKeys(forTarget: data.targetID)
            try localStore.updateTarget(data, added: keys, removed: previous.subtracting(keys))
        }
        namedQueries[named.name] = named
    }
}
