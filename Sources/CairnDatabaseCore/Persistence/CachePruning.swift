import Foundation

/// When the cache prunes (Firebase's `FLRUCachePolicy` constants), on the log's exact live bytes.
package struct CachePolicy: Sendable {
    /// `persistenceCacheSizeBytes`: 10 MiB by default.
    package var maxBytes: UInt64 = 10 << 20
    /// The check runs once more than this many server updates were stored since the last one.
    package var serverUpdatesBetweenChecks = 1000
    /// Pruning also runs while more queries than this are inactive.
    package var maxInactiveQueries = 1000
    /// Each round removes this share of the inactive queries (at least what brings them to the maximum).
    package var pruneShare = 0.2
    /// At most this many rounds per check, so one check stays short.
    package var maxRounds = 16

    package init(maxBytes: UInt64 = 10 << 20) { self.maxBytes = maxBytes }
}

/// Pruning (Firebase's `doPruneCheckAfterServerUpdate` and `pruneOldQueries`): while the cache's live bytes exceed
/// the size or too many queries are inactive, the least recently used share of the inactive queries is removed
/// with the server data at their paths, except what another tracked query keeps (keep wins: under a kept path
/// nothing is pruned, and a kept path below a pruned one survives). Active queries (listeners, `keepSynced`) are
/// never pruned, and pending writes are not server data. Each round is one deferred commit (durable with the next
/// durable commit or compaction: a power loss before can only bring pruned data back, never lose a write), then
/// one bounded step of compaction; the compaction goes on a step at a time with the next rounds and server
/// updates until it has shrunk the files to the live records, so no round waits for a whole compaction.
extension PersistenceManager {
    /// Runs pruning rounds while the policy asks for them (at most ``CachePolicy/maxRounds``); returns how many ran.
    @discardableResult
    package func pruneIfNeeded() -> Int {
        guard !isOff else { return 0 }
        var rounds = 0
        while rounds < policy.maxRounds {
            let inactive = cache.trackedQueries.values.filter { !$0.isActive }
            guard cache.liveBytes > policy.maxBytes || inactive.count > policy.maxInactiveQueries, !inactive.isEmpty else { break }
            let byShare = Int((Double(inactive.count) * policy.pruneShare).rounded(.up))
            let count = max(byShare, inactive.count - policy.maxInactiveQueries, 1)
            let ordered = inactive.sorted { ($0.lastUse, $0.id) < ($1.lastUse, $1.id) }
            let victims = Array(ordered.prefix(count))
            let kept = ordered.dropFirst(count).map(\.query.path) + cache.trackedQueries.values.filter(\.isActive).map(\.query.path)
            guard let records = pruneRecords(victims, kept: kept) else { return rounds }
            perform("prune") { try cache.commit(records, durable: false) }
            rounds += 1
            pruneRounds += 1
            if isOff { return rounds }
            perform("compact after pruning") { try cache.compactStep() }
        }
        return rounds
    }

    /// One round's records: the victims removed, each pruned path marked unknown, and the kept paths below it
    /// written back with what they held. Nil when the cache cannot be read.
    /// The kept and pruned paths are looked up in tries, so a round is linear in the number of queries.
    private func pruneRecords(_ victims: [TrackedQuery], kept: [DatabasePath]) -> [CacheRecord]? {
        var records: [CacheRecord] = victims.map { .trackedQueryRemoved(id: $0.id) }
        let keptPaths = PathTrie<Bool>()
        for path in kept { keptPaths.set(path, true) }
        let victimPaths = PathTrie<Bool>()
        for victim in victims { victimPaths.set(victim.query.path, true) }
        let prunePaths = Set(victims.map(\.query.path)).filter { path in
            // Keep wins over prune at or above; a path under another pruned path goes with it.
            keptPaths.firstAbove(path) { _, _ in true } == nil && victimPaths.firstAbove(path, includingSelf: false) { _, _ in true } == nil
        }
        do throws(PersistenceError) {
            for path in prunePaths.sorted(by: { $0.description < $1.description }) {
                // The kept paths below it that no other kept path below it contains.
                let maximal = keptPaths.descendants(of: path).map { path.child($0.0) }.filter { keptPath in
                    keptPaths.firstAbove(keptPath, includingSelf: false) { above, _ in above.count > path.count } == nil
                }
                var restored: [CacheRecord] = []
                for keptPath in maximal.sorted(by: { $0.description < $1.description }) {
                    let node = try cache.serverCache(at: keptPath)
                    if !node.isEmpty { restored.append(.serverOverwrite(keptPath, node)) }
                }
                if cache.hasServerData(at: path) || !restored.isEmpty { records.append(.serverPruned(path)) }
                records += restored
            }
        } catch {
            perform("read server data to prune") { throw error }
            return nil
        }
        return records
    }
}
