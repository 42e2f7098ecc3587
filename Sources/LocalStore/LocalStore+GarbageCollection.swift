import CairnModel
import SegmentLog

/// What one garbage collection did.
public struct GarbageCollectionResult: Sendable, Equatable {
    public var targetsRemoved = 0
    public var documentsEvicted = 0
    /// Bytes on disk (segment files) before and after.
    public var bytesBefore: UInt64 = 0
    public var bytesAfter: UInt64 = 0
    /// Collection rounds run (each removes at most 10% / 1,000 sequence numbers, then compacts).
    public var rounds = 0
}

extension LocalStore {
    /// `cacheSizeBytes` value that turns garbage collection off (Firebase's `FirestoreCacheSizeUnlimited`).
    public static let cacheSizeUnlimited: Int64 = -1

    /// Brings the bytes on disk under `threshold` (Firebase's LRU garbage collector, Docs/LocalStore.md §5).
    /// Each round takes the least-recently-used 10% (at most 1,000) of the sequence numbers of targets that are
    /// not active and of orphaned documents (in no target, under no pending write of any user), removes those
    /// targets and evicts those documents in their own appends, then compacts. Rounds stop when the log is
    /// under the threshold or nothing is left to collect. A memory cache and `cacheSizeUnlimited` do nothing.
    ///
    /// Known limit of this first version: finding orphaned documents visits every cached document once per
    /// round; an index of orphans by sequence number will bound that work.
    ///
    /// ```swift
    /// let result = try store.collectGarbage(threshold: 100 << 20)
    /// ```
    @discardableResult
    public func collectGarbage(threshold: Int64, maxRounds: Int = 64) throws -> GarbageCollectionResult {
        try checkOpen()
        var result = GarbageCollectionResult()
        guard threshold != Self.cacheSizeUnlimited, let log = (events as? LogEventStore)?.log else { return result }
        result.bytesBefore = log.statistics.fileBytes
        let limit = UInt64(max(threshold, 0))
        // Superseded events alone may be what is over the threshold.
        while try compact(minimumDeadRatio: 0.01) != nil {}
        result.bytesAfter = log.statistics.fileBytes
        while result.bytesAfter > limit && result.rounds < maxRounds {
            let (targetIDs, keys) = try leastRecentlyUsed()
            if targetIDs.isEmpty && keys.isEmpty { break }
            for id in targetIDs { try removeTarget(id) }
            try evictDocuments(keys)
            result.targetsRemoved += targetIDs.count
            result.documentsEvicted += keys.count
            while try compact(minimumDeadRatio: 0.01) != nil {}
            result.rounds += 1
            result.bytesAfter = log.statistics.fileBytes
        }
        return result
    }

    /// The inactive targets and orphaned documents whose sequence numbers are among the lowest 10% (at most
    /// 1,000) of all such sequence numbers.
    private func leastRecentlyUsed() throws -> (targets: [Int32], documents: [DocumentKey]) {
        var pinned = Set<DocumentKey>()
        for user in mutationQueue.usersWithPendingBatches {
            for batch in try pendingBatches(of: user) { pinned.formUnion(batch.keys) }
        }
        for id in targets.active.keys { pinned.formUnion(remoteKeys(forTarget: id)) }
        var targetSequences: [(sequence: UInt64, id: Int32)] = []
        for (id, entry) in targets.saved where targets.active[id] == nil {
            targetSequences.append((entry.data.sequenceNumber, id))
        }
        var orphanSequences: [(sequence: UInt64, key: DocumentKey)] = []
        for (key, entry) in remoteDocuments.allEntries() where !pinned.contains(key) && targetIDs(containing: key).isEmpty {
            orphanSequences.append((entry.sequence, key))
        }
        let all = (targetSequences.map(\.sequence) + orphanSequences.map(\.sequence)).sorted()
        guard !all.isEmpty else { return ([], []) }
        let count = min(max(all.count / 10, 1), 1000)
        let upperBound = all[count - 1]
        let targetsToRemove = targetSequences.filter { $0.sequence <= upperBound }.map(\.id)
        // Documents a removed target held become orphans too; they go when their own sequence is old enough.
        let removed = Set(targetsToRemove)
        var documents = orphanSequences.filter { $0.sequence <= upperBound }.map(\.key)
        for id in targetsToRemove {
            for key in remoteKeys(forTarget: id) where !pinned.contains(key) {
                guard targetIDs(containing: key).isSubset(of: removed),
                    let entry = remoteDocuments.entry(for: key), entry.sequence <= upperBound
                else { continue }
                documents.append(key)
            }
        }
        return (targetsToRemove, Array(Set(documents)))
    }
}
