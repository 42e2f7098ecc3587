import CairnModel
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The index view follows garbage collection and compaction: documents the LRU collector evicts leave every
/// index, documents it keeps keep their entries, and indexed queries still equal the oracle.
@Suite("Field indexes under garbage collection")
struct IndexMaintenanceTests: IndexTesting {
    @Test("LRU garbage collection with compaction evicts orphans from the indexes and keeps the rest exact")
    func lruCollection() throws {
        let cache = try RestartableStore(.persistent)
        let store = cache.store
        let universe = 70
        var rng = SeededRandom(seed: 7)
        for version in Int64(1)...3 {
            try store.applyRemoteDocuments((0..<universe).map { randomRemoteDocument($0, version: version, tombstones: false, &rng) })
        }
        let held = try Query(path: ResourcePath(segments: ["c"])).filtered(by: filter("b", .equal, .integer(1)))
        var target = try store.allocateTarget(held)
        target.resumeToken = [1]
        target.snapshotVersion = time(3)
        let members = Set(try store.executeQuery(held, usePreviousResults: false).documents.map(\.key))
        try store.updateTarget(target, added: members, removed: [])
        let byA = try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending)])
        let tags = try FieldIndex(collectionGroup: "c", segments: [.init(field("tags"), .contains), .init(field("b"), .descending)])
        try store.setIndexConfiguration(json: configurationJSON([byA, tags]))
        while try store.backfillIndexes(maxDocuments: 20) > 0 {}
        let entriesBefore = store.fieldIndexStatuses.map(\.entryCount)

        let result = try store.collectGarbage(threshold: 1, maxRounds: 2)
        #expect(result.documentsEvicted > 0 && result.documentsEvicted < universe - members.count)
        #expect(try indexProblems(store, universe: universe) == nil)
        #expect(zip(store.fieldIndexStatuses.map(\.entryCount), entriesBefore).allSatisfy { $0.0 < $0.1 }, "evicted documents left the indexes")
        for member in members { #expect(try store.remoteDocument(member) != nil, "a target's document is kept") }

        let queries = [
            try Query(path: ResourcePath(segments: ["c"])).filtered(by: filter("a", .greaterThanOrEqual, .integer(1))),
            try Query(path: .root, collectionGroup: "c").filtered(by: filter("tags", .arrayContains, .string("a")))
                .ordered(by: OrderBy(field("b"), descending: true)),
        ]
        for query in queries {
            let answer = try store.executeQuery(query, usePreviousResults: false)
            #expect(store.lastQueryReport?.path == .index)
            #expect(lines(answer.documents) == lines(try expectedResults(store, query, universe: universe)), "\(query)")
        }
    }
}
