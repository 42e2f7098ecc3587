import CairnModel
import Foundation
import Testing
@testable import CairnLocalStore

/// The previous-results path (Firebase's `performQueryUsingRemoteKeys`): a target in sync at a limbo-free
/// snapshot version, then remote changes (with or without membership updates) and local writes; the engine
/// must answer what the oracle says, reuse the previous results when it may, and refill limit queries whose
/// edge may have moved. `CAIRN_PREVIOUS_SEED=<seed>` replays one run.
@Suite("Query engine: previous results")
struct QueryEnginePreviousResultsTests: IndexTesting {
    static let baseSeed = ProcessInfo.processInfo.environment["CAIRN_PREVIOUS_SEED"].flatMap { UInt64($0) } ?? 20_261_123
    let universe = 36

    /// Makes `query`'s target hold exactly the server's current result, as of `version`, and marks it limbo-free
    /// there.
    func synchronize(_ store: LocalStore, _ query: Query, at version: Int64) throws {
        var data = try #require(store.targetData(for: query))
        let remote = try (0..<universe).compactMap { try store.remoteDocument(documentKey($0)) }
        let serverResult = Set(query.results(from: remote).map(\.key))
        let held = store.remoteKeys(forTarget: data.targetID)
        data.resumeToken = Array("token\(version)".utf8)
        data.snapshotVersion = time(version)
        data.lastLimboFreeSnapshotVersion = time(version)
        try store.updateTarget(data, added: serverResult.subtracting(held), removed: held.subtracting(serverResult))
    }

    @Test("previous results plus documents read since the limbo-free version equal the oracle")
    func randomHistories() throws {
        var reused = 0, refilled = 0, nonEmptyReused = 0
        let seeds = ProcessInfo.processInfo.environment["CAIRN_PREVIOUS_SEED"] != nil ? 1 : 40
        for seed in Self.baseSeed..<(Self.baseSeed + UInt64(seeds)) {
            var rng = SeededRandom(seed: seed)
            let store = LocalStore.inMemory()
            var version: Int64 = 1
            try store.applyRemoteDocuments((0..<universe).map { randomRemoteDocument($0, version: version, tombstones: true, &rng) })
            var query = randomQuery(&rng)
            if query.limit == nil && Int.random(in: 0..<3, using: &rng) > 0 {
                query = (try? query.limited(to: Int.random(in: 1...4, using: &rng))) ?? query
            }
            _ = try store.allocateTarget(query)
            try synchronize(store, query, at: version)
            var history: [String] = []
            for _ in 0..<6 {
                switch Int.random(in: 0..<4, using: &rng) {
                case 0, 1:
                    version += 1
                    let numbers = (0..<Int.random(in: 1...5, using: &rng)).map { _ in Int.random(in: 0..<universe, using: &rng) }
                    let documents = numbers.map { randomRemoteDocument($0, version: version, tombstones: true, &rng) }
                    try store.applyRemoteEvent(RemoteEvent(snapshotVersion: time(version), documentUpdates: byKey(documents)))
                    history.append("remote \(numbers) at \(version)")
                case 2:
                    let number = Int.random(in: 0..<universe, using: &rng)
                    try store.writeLocally([randomMutation(number, &rng)], localWriteTime: time(1000))
                    history.append("write \(number)")
                default:
                    try synchronize(store, query, at: version)
                    history.append("in sync at \(version)")
                }
                let result = try store.executeQuery(query, usePreviousResults: true)
                let expected = try expectedResults(store, query, universe: universe)
                guard lines(result.documents) == lines(expected) else {
                    Issue.record(Comment(rawValue:
                        "seed \(seed) (CAIRN_PREVIOUS_SEED=\(seed)): \(query) after \(history): got \(lines(result.documents)), "
                            + "expected \(lines(expected))"))
                    return
                }
                let target = try #require(store.targetData(for: query))
                #expect(result.remoteKeys == store.remoteKeys(forTarget: target.targetID))
                switch store.lastQueryReport?.path {
                case .previousResults?:
                    reused += 1
                    if !expected.isEmpty { nonEmptyReused += 1 }
                case .scan? where !query.matchesAllDocuments:
                    #expect(query.limit != nil, "only a limit query may fall back to a scan: \(query)")
                    refilled += 1
                default: break
                }
            }
        }
        print("QueryEnginePreviousResultsTests: base seed \(Self.baseSeed), reused \(reused), refilled \(refilled)")
        guard seeds > 1 else { return }
        #expect(reused > 80 && nonEmptyReused > 30, "too few queries reused previous results")
        #expect(refilled > 5, "too few limit queries needed a refill")
    }

    @Test("the previous-results path reads the target's documents and the changed ones, not the collection")
    func readsOnlyWhatChanged() throws {
        let store = LocalStore.inMemory()
        let documents = (0..<100).map { found("c/d\($0)", version: 1, ["a": .integer(Int64($0 % 10))]) }
        try store.applyRemoteDocuments(documents)
        let query = try Query(path: ResourcePath(segments: ["c"])).filtered(by: filter("a", .equal, .integer(4)))
        var data = try store.allocateTarget(query)
        let matching = Set(documents.filter(query.matches).map(\.key))
        data.resumeToken = [1]
        data.snapshotVersion = time(1)
        data.lastLimboFreeSnapshotVersion = time(1)
        try store.updateTarget(data, added: matching, removed: [])
        try store.applyRemoteEvent(RemoteEvent(snapshotVersion: time(2), documentUpdates: byKey([
            found("c/d3", version: 2, ["a": .integer(4)]), found("c/d4", version: 2, ["a": .integer(5)]),
        ])))

        let result = try store.executeQuery(query, usePreviousResults: true)
        let report = try #require(store.lastQueryReport)
        #expect(report.path == .previousResults)
        #expect(report.documentsRead == matching.count + 1, "the 10 previous keys and the one changed non-member")
        #expect(Set(result.documents.map(\.key)) == matching.subtracting([key("c/d4")]).union([key("c/d3")]))
        #expect(result.remoteKeys == matching)

        _ = try store.executeQuery(query, usePreviousResults: false)
        #expect(store.lastQueryReport?.path == .scan && store.lastQueryReport?.documentsRead == 100)
    }

    @Test("a limit query whose edge document changed after the limbo-free version is refilled by a scan")
    func limitEdgeRefill() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments((0..<5).map { found("c/d\($0)", version: 1, ["a": .integer(Int64($0))]) })
        let query = try Query(path: ResourcePath(segments: ["c"])).ordered(by: OrderBy(field("a"))).limited(to: 2)
        var data = try store.allocateTarget(query)
        data.resumeToken = [1]
        data.snapshotVersion = time(1)
        data.lastLimboFreeSnapshotVersion = time(1)
        try store.updateTarget(data, added: [key("c/d0"), key("c/d1")], removed: [])
        #expect(try store.executeQuery(query, usePreviousResults: true).documents.map(\.key) == [key("c/d0"), key("c/d1")])
        #expect(store.lastQueryReport?.path == .previousResults)

        // The edge document moves beyond the limit: d2 takes its place, which only a scan can find.
        try store.applyRemoteEvent(RemoteEvent(snapshotVersion: time(2), documentUpdates: byKey([found("c/d1", version: 2, ["a": .integer(9)])])))
        #expect(try store.executeQuery(query, usePreviousResults: true).documents.map(\.key) == [key("c/d0"), key("c/d2")])
        #expect(store.lastQueryReport?.path == .scan)
    }
}
