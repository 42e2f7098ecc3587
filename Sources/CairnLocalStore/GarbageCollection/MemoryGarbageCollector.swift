import CairnModel

/// How a memory cache lets go of documents (Firebase's `MemoryEagerGCSetting` / `MemoryLRUGCSettings`).
///
/// ```swift
/// let eager = LocalStore.inMemory()                                          // .eager
/// let lru = LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: 10 << 20))
/// try lru.collectGarbage(threshold: 10 << 20)                                // the core calls this periodically
/// ```
package enum MemoryGarbageCollector: Sendable, Equatable {
    /// A document leaves the cache as soon as nothing references it: when a target is released (the target is
    /// removed with it), when a batch is acknowledged or rejected, and when a local view stops showing it, every
    /// document concerned that is in no target, under no pending write of any user and in no local view is
    /// removed. Documents stored while nothing referenced them stay until one of those events concerns them.
    case eager
    /// Documents and targets stay until ``LocalStore/collectGarbage(threshold:maxRounds:roundBudget:)`` runs, which removes
    /// the least-recently-used ones until the cache's estimated size (``LocalStore/estimatedMemoryBytes``) is
    /// under the threshold. `thresholdBytes` is the size the owner asked for, kept for the scheduler to pass;
    /// `LocalStore.cacheSizeUnlimited` (-1) turns collection off.
    case lru(thresholdBytes: Int64)
}

extension LocalStore {
    /// A cache that lives in memory only (Firebase's memory cache), with eager garbage collection unless told
    /// otherwise.
    ///
    /// ```swift
    /// let store = LocalStore.inMemory()
    /// let sized = LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: 100 << 20))
    /// ```
    package static func inMemory(garbageCollector: MemoryGarbageCollector = .eager) -> LocalStore {
        LocalStore(events: MemoryEventStore(), memoryGarbageCollector: garbageCollector)
    }

    /// The estimated size of a memory cache: for every live event (document states, targets and their
    /// membership, pending batches, globals), its encoded key and value plus
    /// ``MemoryEventStore/entryOverhead`` bytes for the entry that holds it. `nil` for a persistent cache,
    /// whose size is its segment files.
    package var estimatedMemoryBytes: Int64? { events.estimatedMemoryBytes }

    /// Removes, in eager memory mode, the documents the ``ReferenceDelegate`` names that nothing
    /// references any more (Firebase's `MemoryEagerReferenceDelegate` at commit): each operation that may drop
    /// a last reference calls this once its own changes are applied.
    func collectEagerly() throws {
        let candidates = collector.referenceDelegate.takeCandidates()
        guard !candidates.isEmpty else { return }
        let pinned = try keysUnderPendingWrites()
        let unreferenced = candidates.filter { collector.isOrphan($0) && !pinned.contains($0) }
        try evictDocuments(unreferenced.sorted())
    }
}
