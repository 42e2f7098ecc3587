import CairnCore

/// Client-side index management of a persistent cache: turns automatic index creation on or off and deletes
/// the indexes. `db.persistentCacheIndexManager` is `nil` for memory caches.
///
/// ```swift
/// db.persistentCacheIndexManager?.enableIndexAutoCreation()
/// db.persistentCacheIndexManager?.deleteAllIndexes()
/// ```
///
/// An instance has one manager, returned each time; two managers are equal only when they are the same object, as
/// with Firebase's `NSObject`.
public final class PersistentCacheIndexManager: Sendable, Hashable {
    private let client: FirestoreClient

    init(client: FirestoreClient) {
        self.client = client
    }

    /// Lets the cache create an index for a query whose scan reads many more documents than it returns.
    public func enableIndexAutoCreation() { client.setIndexAutoCreationEnabled(true) }

    /// Stops automatic index creation (the default); existing indexes stay.
    public func disableIndexAutoCreation() { client.setIndexAutoCreationEnabled(false) }

    /// Deletes every client-side index, configured or created automatically.
    public func deleteAllIndexes() { client.deleteAllFieldIndexes() }

    public static func == (a: PersistentCacheIndexManager, b: PersistentCacheIndexManager) -> Bool { a === b }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension Firestore {
    /// The index manager of a persistent cache; `nil` for a memory cache or when the instance cannot start.
    /// Reading it starts the instance.
    public var persistentCacheIndexManager: PersistentCacheIndexManager? {
        guard case .success(let client) = client(), case .persistent = configuration.cache else { return nil }
        return indexManager(of: client)
    }
}
