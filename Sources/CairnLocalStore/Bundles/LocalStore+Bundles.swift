import CairnModel

/// The bundle cache's operations (Firebase's `LocalStore::HasNewerBundle`, `SaveBundle`, `SaveNamedQuery`'s
/// cache half and `GetNamedQuery`): loaded bundles and named queries are events in the log, so they are back
/// after a restart; a memory cache keeps them for its lifetime. The bundle's documents and the named queries'
/// targets go through the remote-document and target operations (the core's `SyncEngine+Bundles.swift`).
///
/// ```swift
/// try store.saveNamedQuery(NamedQuery(name: "open-rooms", query: openRooms, readTime: readTime))
/// try store.saveBundleMetadata(metadata)                    // last: the bundle counts as loaded
/// store.hasNewerBundle(metadata)                            // true from now on, also after a restart
/// store.namedQuery("open-rooms")?.query
/// ```
extension LocalStore {
    /// The loaded bundle with this id, or nil.
    package func bundleMetadata(_ id: String) -> BundleMetadata? { bundleCache.view.bundles[id]?.value }

    /// Whether a bundle with `metadata`'s id and a creation time at least as new was loaded: then loading
    /// `metadata`'s bundle changes nothing (Firebase's `HasNewerBundle`).
    package func hasNewerBundle(_ metadata: BundleMetadata) -> Bool {
        guard let cached = bundleMetadata(metadata.id) else { return false }
        return cached.createTime >= metadata.createTime
    }

    /// Remembers a loaded bundle; replaces what the cache had for its id.
    package func saveBundleMetadata(_ metadata: BundleMetadata) throws {
        try checkOpen()
        try save(.bundleSaved(metadata))
    }

    /// The named query saved under `name`, or nil.
    package func namedQuery(_ name: String) -> NamedQuery? { bundleCache.view.namedQueries[name]?.value }

    /// Saves a named query; replaces the one of the same name.
    package func saveNamedQuery(_ named: NamedQuery) throws {
        try checkOpen()
        try save(.namedQuerySaved(named))
    }

    private func save(_ event: BundleCacheEvent) throws {
        try commit([event.encoded]) { written in
            bundleCache.apply(event, reference: written[0].reference, sequence: written[0].sequence, events: events)
        }
    }
}
