// lru_gc_to_threshold: a copy of the loaded cache, with `rooms/lobby/messages` listened to (its documents are
// pinned), is brought from its size to half of it — a cache at 2x its threshold — by LRU garbage-collection
// rounds. Between rounds the listened query runs, as a listener's event would on the same serial queue; the
// stall it sees is the longest round. The time is the sum of the rounds. With a time cap (--gc-cap-seconds) a run
// that has not reached the threshold when the cap has passed stops there: the engine is reported as not finished
// in that many seconds and its later runs are skipped (SQLite's collector needs hours at 1M documents). A hidden
// --gc-round-pause-ms sleeps after each round, outside its time, so that tests can make a run outlast the cap.

import CairnLocalStore
import CairnModel
import Foundation

/// Collects a fresh copy of the cache down to half its size, per run.
final class GarbageCollectionWorkload: QueryWorkload {
    let name = "lru_gc_to_threshold"
    let secondaryLabel: String? = "max stall ms"
    var note: String { ([description] + outcomes.keys.sorted().compactMap { outcomes[$0] }).joined(separator: " ") }
    private let description: String
    /// Engine → what went wrong, for engines that could not reach the threshold.
    private var outcomes: [String: String] = [:]
    var failedEngines: Set<String> { Set(outcomes.keys) }
    private(set) var unfinishedEngines: [String: Int] = [:]
    private let fixture: QueryFixture
    private let query: Query
    /// Seconds after which a run stops unfinished; nil runs to the threshold (or ``maximumRounds``).
    private let timeCapSeconds: Int?
    /// Milliseconds slept after each round (tests of the cap); not counted in the round's time.
    private let roundPauseMilliseconds: Int
    /// Rounds after which a run stops (a collector that cannot reach the threshold): 2,000, or one per 100
    /// documents in larger caches (a round collects at most 1,000 sequence numbers, fewer when its time budget ends it).
    let maximumRounds: Int

    init(query: Query, fixture: QueryFixture, timeCapSeconds: Int? = nil, roundPauseMilliseconds: Int = 0) {
        self.query = query
        self.fixture = fixture
        self.timeCapSeconds = timeCapSeconds
        self.roundPauseMilliseconds = roundPauseMilliseconds
        maximumRounds = max(2000, fixture.corpus.count / 100)
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
        let clock = ContinuousClock()
        let start = clock.now
        var capped = false
        while try cache.cacheBytes() > threshold && stalls.count < maximumRounds {
            if let timeCapSeconds, clock.now - start >= .seconds(timeCapSeconds) {
                capped = true
                break
            }
            var collected = false
            let round = try QueryHarness.milliseconds { collected = try cache.collectGarbageRound(threshold: threshold) }
            total += round
            stalls.append(round)
            guard try cache.execute(query).count == listened else {
                throw BenchError("\(name): \(engine.name) collected documents of the listened query")
            }
            if !collected { break }
            if roundPauseMilliseconds > 0 { Thread.sleep(forTimeInterval: Double(roundPauseMilliseconds) / 1000) }
        }
        let after = try cache.cacheBytes()
        let outcome = after <= threshold ? "reached the threshold"
            : capped ? "did NOT finish in \(timeCapSeconds ?? 0) s" : "stopped OVER the threshold"
        Console.progress("\(name): \(engine.name) \(outcome) in \(stalls.count) rounds: \(Console.megabytes(Int(before))) → "
            + "\(Console.megabytes(Int(after))) (threshold \(Console.megabytes(Int(threshold))))" + Self.describeRounds(stalls))
        if after > threshold, capped, let timeCapSeconds {
            unfinishedEngines[engine.name] = timeCapSeconds
            outcomes[engine.name] = "\(engine.name) did not finish in \(timeCapSeconds) s (the time cap): \(stalls.count) "
                + "rounds took it from \(Console.megabytes(Int(before))) to \(Console.megabytes(Int(after))) (threshold "
                + "\(Console.megabytes(Int(threshold)))); its later runs were skipped, its time is that of the rounds it ran."
        } else if after > threshold {
            outcomes[engine.name] = "\(engine.name) stopped over the threshold after \(stalls.count) rounds "
                + "(\(Console.megabytes(Int(before))) → \(Console.megabytes(Int(after))), threshold "
                + "\(Console.megabytes(Int(threshold)))): its time is that of the rounds it ran."
        }
        try cache.close()
        try fixture.scratch.remove(directory)
        return QueryRun(values: [total], secondary: stalls)
    }

    /// The rounds' longest, median and 99th-percentile times and how many took over 16 ms (a frame at 60 Hz).
    static func describeRounds(_ stalls: [Double]) -> String {
        guard !stalls.isEmpty else { return "" }
        let sorted = stalls.sorted()
        func format(_ value: Double) -> String { QueryReport.format(value, unit: "ms") }
        return "; rounds: longest \(format(sorted[sorted.count - 1])), median \(format(Summary(sorted).median)), "
            + "p99 \(format(sorted[min(sorted.count - 1, sorted.count * 99 / 100)])), \(sorted.filter { $0 > 16 }.count) over 16 ms"
    }

    func secondary(of runs: [QueryRun]) -> Double? {
        runs.flatMap(\.secondary).max()
    }
}
