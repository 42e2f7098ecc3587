import CairnModel
import Foundation
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Random documents, index configurations, queries and histories (remote updates and deletes, evictions,
/// local writes and acknowledgements, restarts, interrupted backfills, reconfigurations, compactions): the
/// query engine must answer exactly what the oracle (every local view, filtered) says, must use an index
/// whenever a ready one serves the query, and every ready index must hold exactly the entries of the cached
/// documents. `CAIRN_INDEX_SEED=<seed>` replays one run.
@Suite("Field indexes against scans")
struct IndexedQueryPropertyTests: IndexTesting {
    static let baseSeed = ProcessInfo.processInfo.environment["CAIRN_INDEX_SEED"].flatMap { UInt64($0) } ?? 20_261_122
    let universe = 42

    /// What the runs covered, so a generator that stops exploring fails the test.
    struct Coverage {
        var indexed = 0, scanned = 0, nonEmptyIndexed = 0, interruptedBackfills = 0, limitedInIndexOrder = 0
    }

    @Test("indexed results equal the oracle after updates, deletes, evictions, writes, restarts and reconfigurations")
    func randomHistories() throws {
        var coverage = Coverage()
        let seeds = ProcessInfo.processInfo.environment["CAIRN_INDEX_SEED"] != nil ? 1 : 10
        for seed in Self.baseSeed..<(Self.baseSeed + UInt64(seeds)) {
            if let failure = try run(seed: seed, &coverage) {
                Issue.record(Comment(rawValue: "seed \(seed) (CAIRN_INDEX_SEED=\(seed)): \(failure)"))
                return
            }
        }
        print("IndexedQueryPropertyTests: base seed \(Self.baseSeed), \(coverage)")
        guard seeds > 1 else { return }
        #expect(coverage.indexed > 120, "too few queries ran on an index: \(coverage)")
        #expect(coverage.nonEmptyIndexed > 50, "too few indexed queries had results: \(coverage)")
        #expect(coverage.scanned > 80, "too few queries fell back to a scan: \(coverage)")
        #expect(coverage.limitedInIndexOrder > 10, "too few limit queries stopped early in index order: \(coverage)")
        #expect(coverage.interruptedBackfills > 4, "too few backfills were interrupted by a restart: \(coverage)")
    }

    /// One random history; returns the first problem found.
    private func run(seed: UInt64, _ coverage: inout Coverage) throws -> String? {
        var rng = SeededRandom(seed: seed)
        let mode: StoreMode = seed % 4 == 0 ? .memory : .persistent
        let cache = try RestartableStore(mode)
        var version: Int64 = 1
        try cache.store.applyRemoteDocuments((0..<universe).map { randomRemoteDocument($0, version: version, tombstones: true, &rng) })
        let queries = (0..<5).map { _ in randomQuery(&rng) }
        try cache.store.setIndexConfiguration(json: configurationJSON(randomIndexes(for: queries, &rng)))
        var history: [String] = []
        for _ in 0..<10 {
            let step = Int.random(in: 0..<9, using: &rng)
            history.append(try apply(step, to: cache, mode: mode, version: &version, queries: queries, &coverage, &rng))
            if Int.random(in: 0..<3, using: &rng) > 0 {
                while try cache.store.backfillIndexes(maxDocuments: 17) > 0 {}
            }
            if let problem = try indexProblems(cache.store, universe: universe) {
                return "\(problem) after \(history)"
            }
            for query in queries {
                if let problem = try check(query, cache.store, &coverage) { return "\(problem) after \(history)" }
            }
        }
        return nil
    }

    /// Applies one random step; returns its name for failure messages.
    private func apply(
        _ step: Int, to cache: RestartableStore, mode: StoreMode, version: inout Int64, queries: [Query],
        _ coverage: inout Coverage, _ rng: inout SeededRandom
    ) throws -> String {
        let store = cache.store
        switch step {
        case 0, 1:
            version += 1
            let numbers = (0..<Int.random(in: 1...8, using: &rng)).map { _ in Int.random(in: 0..<universe, using: &rng) }
            try store.applyRemoteDocuments(numbers.map { randomRemoteDocument($0, version: version, tombstones: true, &rng) })
            return "update \(numbers)"
        case 2:
            let numbers = (0..<Int.random(in: 1...4, using: &rng)).map { _ in Int.random(in: 0..<universe, using: &rng) }
            try store.evictDocuments(numbers.map(documentKey))
            return "evict \(numbers)"
        case 3:
            guard mode == .persistent else { return "no restart (memory)" }
            try cache.restart()
            // Entries are rebuilt after open: interrupt that backfill too.
            let count = Int.random(in: 0...30, using: &rng)
            try cache.store.backfillIndexes(maxDocuments: count)
            guard cache.store.fieldIndexStatuses.contains(where: { !$0.isReady }) else { return "restart, backfill \(count)" }
            coverage.interruptedBackfills += 1
            try cache.restart()
            return "restart, backfill \(count), restart"
        case 4:
            let count = Int.random(in: 0...30, using: &rng)
            try store.backfillIndexes(maxDocuments: count)
            guard mode == .persistent, store.fieldIndexStatuses.contains(where: { !$0.isReady }) else { return "backfill \(count)" }
            coverage.interruptedBackfills += 1
            try cache.restart()
            return "backfill \(count), interrupted by a restart"
        case 5:
            let numbers = (0..<Int.random(in: 1...2, using: &rng)).map { _ in Int.random(in: 0..<universe, using: &rng) }
            try store.writeLocally(numbers.map { randomMutation($0, &rng) }, localWriteTime: time(1000))
            return "write \(numbers)"
        case 6:
            guard let batch = try store.nextMutationBatch(after: nil) else { return "no batch to acknowledge" }
            version += 1
            let results = batch.mutations.map { _ in MutationResult(version: time(version), transformResults: []) }
            try store.acknowledgeBatch(try MutationBatchResult(batch: batch, commitVersion: time(version), mutationResults: results))
            return "acknowledge \(batch.batchID)"
        case 7:
            let indexes = randomIndexes(for: queries, &rng) + store.fieldIndexes.filter { _ in Bool.random(using: &rng) }
            try store.setIndexConfiguration(json: configurationJSON(indexes))
            return "reconfigure \(store.fieldIndexes.count)"
        default:
            guard mode == .persistent else { return "no compaction (memory)" }
            try store.compact(minimumDeadRatio: 0.01)
            return "compact"
        }
    }

    /// Runs `query` without previous results and compares it with the oracle and the expected path.
    private func check(_ query: Query, _ store: LocalStore, _ coverage: inout Coverage) throws -> String? {
        let result = try store.executeQuery(query, usePreviousResults: false)
        let expected = try expectedResults(store, query, universe: universe)
        if lines(result.documents) != lines(expected) {
            return "\(query): got \(lines(result.documents)), expected \(lines(expected)); indexes \(store.fieldIndexStatuses)"
        }
        let ready = store.fieldIndexStatuses.filter(\.isReady).map(\.index)
        let served = !query.matchesAllDocuments && IndexPlanner.plan(for: query, among: ready) != nil
        let path = store.lastQueryReport?.path
        if path != (served ? .index : .scan) {
            return "\(query) ran on \(String(describing: path)); a ready index serves it: \(served)"
        }
        if store.lastQueryReport?.readInQueryOrder == true { coverage.limitedInIndexOrder += 1 }
        if served {
            coverage.indexed += 1
            if !expected.isEmpty { coverage.nonEmptyIndexed += 1 }
        } else {
            coverage.scanned += 1
        }
        return nil
    }

    @Test("an index narrows the read: only the documents in its ranges are decoded, and only once it is ready")
    func indexNarrowsTheRead() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments((0..<200).map { number in
            found("c/d\(number)", version: 1, ["a": .integer(Int64(number % 20)), "b": .integer(Int64(number))])
        })
        let query = try Query(path: ResourcePath(segments: ["c"])).filtered(by: filter("a", .equal, .integer(3)))
        let expected = try store.executeQuery(query, usePreviousResults: false).documents
        #expect(store.lastQueryReport?.path == .scan && store.lastQueryReport?.documentsRead == 200)

        try store.setIndexConfiguration(json: configurationJSON([try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending)])]))
        #expect(try store.backfillIndexes(maxDocuments: 150) == 150)
        _ = try store.executeQuery(query, usePreviousResults: false)
        #expect(store.lastQueryReport?.path == .scan, "an index that is not backfilled must not serve queries")

        #expect(try store.backfillIndexes(maxDocuments: 150) == 50)
        #expect(try store.backfillIndexes(maxDocuments: 150) == 0)
        let indexed = try store.executeQuery(query, usePreviousResults: false).documents
        let report = try #require(store.lastQueryReport)
        #expect(report.path == .index)
        #expect(report.documentsRead == 10 && report.entriesRead == 10)
        #expect(lines(indexed) == lines(expected) && indexed.count == 10)

        // A limit query on an index in its order stops after the limit.
        try store.setIndexConfiguration(json: configurationJSON([
            try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending), .init(field("b"), .descending)]),
            try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending)]),
        ]))
        while try store.backfillIndexes(maxDocuments: 150) > 0 {}
        let top = try query.ordered(by: OrderBy(field("b"), descending: true)).limited(to: 3)
        let topThree = try store.executeQuery(top, usePreviousResults: false).documents
        #expect(store.lastQueryReport?.readInQueryOrder == true && store.lastQueryReport?.documentsRead == 3)
        #expect(topThree.map { $0.data.fields["b"] } == [.integer(183), .integer(163), .integer(143)])

        // Keys descending while the index stores them ascending: the order differs, so every candidate is read.
        let lastKeys = try query.ordered(by: .documentKey(descending: true)).limited(to: 3)
        let byKey = try store.executeQuery(lastKeys, usePreviousResults: false).documents
        #expect(store.lastQueryReport?.path == .index && store.lastQueryReport?.readInQueryOrder == false)
        #expect(byKey.map(\.key) == [key("c/d83"), key("c/d63"), key("c/d43")])
    }

    @Test("a backfill run stops at its deadline after at least one document, and the next run goes on from there")
    func backfillStopsAtItsDeadline() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments((0..<40).map { number in found("c/d\(number)", version: 1, ["a": .integer(Int64(number % 4))]) })
        try store.setIndexConfiguration(json: configurationJSON([try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending)])]))
        let passed = ContinuousClock.now - .seconds(1)
        #expect(try store.backfillIndexes(maxDocuments: 1_000, deadline: passed) == 1)
        #expect(try store.backfillIndexes(maxDocuments: 1_000, deadline: passed) == 1)
        #expect(try store.backfillIndexes(maxDocuments: 1_000, deadline: ContinuousClock.now + .seconds(3_600)) == 38)
        #expect(try store.backfillIndexes(maxDocuments: 1_000, deadline: passed) == 0)
        let query = try Query(path: ResourcePath(segments: ["c"])).filtered(by: filter("a", .equal, .integer(1)))
        let indexed = try store.executeQuery(query, usePreviousResults: false).documents
        #expect(store.lastQueryReport?.path == .index && indexed.count == 10)
    }

    @Test("a backfill run stops as soon as its caller says other work waits, after at least one document")
    func backfillYieldsToWaitingWork() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments((0..<40).map { number in found("c/d\(number)", version: 1, ["a": .integer(Int64(number % 4))]) })
        try store.setIndexConfiguration(json: configurationJSON([try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending)])]))
        let later = ContinuousClock.now + .seconds(3_600)
        #expect(try store.backfillIndexes(maxDocuments: 1_000, deadline: later) { true } == 1)
        var asked = 0
        let processed = try store.backfillIndexes(maxDocuments: 1_000, deadline: later) {
            asked += 1
            return asked == 5
        }
        #expect(processed == 5 && asked == 5)
        #expect(try store.backfillIndexes(maxDocuments: 1_000) == 34)
    }
}
