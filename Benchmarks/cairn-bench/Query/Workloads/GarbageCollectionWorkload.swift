// lru_gc_to_threshold: a copy of the loaded cache, with `rooms/lobby/messages` listened to (its documents are
// pinned), is brought from its size to half of it — a cache at 2x its threshold — by LRU garbage-collection
// rounds. Between rounds the listened query runs, as a listener's event would on the same serial queue; the
// stall it sees is the longest round. The time is the sum of the rounds.

import CairnLocalStore
import CairnModel

/// Collects a fresh copy of the cache down to half its size, per run.
final class GarbageCollectionWorkload: QueryWorkload {
    let name = "lru_gc_to_threshold"
    let secondaryLabel: String? = "max stall ms"
    var note: String { ([description] + outcomes.keys.sorted().compactMap { outcomes[$0] }).joined(separator: " ") }
    private let description: String
    /// Engine → what went wrong, for engines that could not reach the threshold.
    private var outcomes: [String: String] = [:]
    var failedEngines: Set<String> { Set(outcomes.keys) }
    private let fixture: QueryFixture
    private let query: Query
    /// Rounds after which a run stops (a collector that cannot reach the threshold).
    static let maximumRounds = 2000

    init(query: Query, fixture: QueryFixture) {
        self.query = query
        self.fixture = fixture
        description = "A cache of \(Console.compact(Double(fixture.corpus.count))) documents, every one orphaned but the "
            + "\(QueryCorpus.lobbySize) of a listened query, collected to half its size in rounds of the "
            + "least-recently-used 10% (at most 1,000) sequence numbers. Cairn: collectGarbage(maxRounds: 1, roundBudget: "
            + "\(LocalStore.defaultRoundBudget)) per round as the client schedules it (eviction slices, then "
            + "compaction steps, until the budget is spent), size = segment file bytes; SQLite: Android's LruGarbageCollector "
            + "SQL, size = live pages (Android's own measure, page_count x page_size, never shrinks without "
            + "VACUUM); LevelDB: iOS's sentinel walk of document_target and RemoveOrphanedDocuments, one write "
            + "batch per round, size = the LevelDB directory's file bytes (iOS's CalculateByteSize: deletions are "
            + "tombstones until LevelDB compacts). Stall: the longest round, which a listened query waits for."
    }

    func prepare(_ engine: any QueryEngine) throws {
        _ = try fixture.directory(for: engine)
    }

    func run(_ engine: any QueryEngine, number: Int) throws -> QueryRun {
        let directory = try fixture.copy(for: engine, name: "gc/\(engine.name)")
        let cache = try engine.open(directory)
        try cache.listen(query)
        let listened = try cache.execute(query).count
        let before = try cache.cacheBytes()
        let threshold = before / 2
        var total = 0.0
        var stalls: [Double] = []
        while try cache.cacheBytes() > threshold && stalls.count < Self.maximumRounds {
            var collected = false
            let round = try QueryHarness.milliseconds { collected = try cache.collectGarbageRound(threshold: threshold) }
            total += round
            stalls.append(round)
            guard try cache.execute(query).count == listened else {
                throw BenchError("\(name): \(engine.name) collected documents of the listened query")
            }
            if !collected { break }
        }
        let after = try cache.cacheBytes()
        let outcome = after <= threshold ? "reached the threshold" : "stopped OVER the threshold"
        Console.progress("\(name): \(engine.name) \(outcome) in \(stalls.count) rounds: \(Console.megabytes(Int(before))) → "
            + "\(Console.megabytes(Int(after))) (threshold \(Console.megabytes(Int(threshold))))")
        if after > threshold {
            outcomes[engine.name] = "\(engine.name) stopped over the threshold after \(stalls.count) rounds "
                + "(\(Console.megabytes(Int(before))) → \(Console.megabytes(Int(after))), threshold "
                + "\(Console.megabytes(Int(threshold)))): its time is that of the rounds it ran."
        }
        try cache.close()
        try fixture.scratch.remove(directory)
        return QueryRun(values: [total], secondary: stalls)
    }

    func secondary(of runs: [QueryRun]) -> Double? {
        runs.flatMap(\.secondary).max()
    }
}
