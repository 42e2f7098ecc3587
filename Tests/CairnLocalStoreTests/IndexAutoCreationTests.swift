import CairnModel
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Automatic index creation (Firebase's `createCacheIndexes`): only when enabled, only after a scan that read
/// at least 100 documents and more than `relativeIndexReadCostPerDocument` per match, only for queries one index
/// per term can serve; created indexes are persisted, backfilled, then used.
@Suite("Automatic index creation")
struct IndexAutoCreationTests: IndexTesting {
    let collection = Query(path: ResourcePath(segments: ["c"]))

    /// A cache with `count` documents in `c`: `a` = number, `b` = number mod 10, `tags` = [number mod 3].
    func store(_ count: Int, autoCreation: Bool) throws -> LocalStore {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments((0..<count).map { number in
            found("c/d\(number)", version: 1, [
                "a": .integer(Int64(number)), "b": .integer(Int64(number % 10)), "tags": .array([.integer(Int64(number % 3))]),
            ])
        })
        try store.setIndexAutoCreationEnabled(autoCreation)
        return store
    }

    @Test("a selective query on a large collection creates its index, which serves it once backfilled")
    func createsAndUses() throws {
        let store = try store(150, autoCreation: true)
        let query = try collection.filtered(by: filter("b", .equal, .integer(4))).ordered(by: OrderBy(field("a"), descending: true))
        let expected = try store.executeQuery(query, usePreviousResults: false).documents
        let report = try #require(store.lastQueryReport)
        #expect(report.path == .scan && report.documentsRead == 150 && report.matches == 15)
        let built = try #require(try TargetIndexMatcher(query).buildTargetIndex())
        #expect(report.createdIndexes == [built] && store.fieldIndexes == [built])

        _ = try store.executeQuery(query, usePreviousResults: false)
        #expect(store.lastQueryReport?.path == .scan && store.lastQueryReport?.createdIndexes == [], "not ready yet, not created twice")
        while try store.backfillIndexes(maxDocuments: 50) > 0 {}
        let indexed = try store.executeQuery(query, usePreviousResults: false).documents
        #expect(store.lastQueryReport?.path == .index && store.lastQueryReport?.documentsRead == 15)
        #expect(lines(indexed) == lines(expected))
    }

    @Test("nothing is created when disabled, for small collections, unselective queries or several inequality fields")
    func heuristic() throws {
        let selective = try collection.filtered(by: filter("a", .equal, .integer(7)))
        let disabled = try store(150, autoCreation: false)
        _ = try disabled.executeQuery(selective, usePreviousResults: false)
        #expect(disabled.fieldIndexes.isEmpty)

        let small = try store(99, autoCreation: true)
        _ = try small.executeQuery(selective, usePreviousResults: false)
        #expect(small.fieldIndexes.isEmpty, "a scan of 99 documents is below the minimum")

        let enabled = try store(150, autoCreation: true)
        // The fewest matches for which 150 reads are not more than k per match: no index; one match fewer: index.
        let atThreshold = Int((150 / QueryEngine.relativeIndexReadCostPerDocument).rounded(.up))
        let unselective = try collection.filtered(by: filter("a", .greaterThanOrEqual, .integer(Int64(150 - atThreshold))))
        _ = try enabled.executeQuery(unselective, usePreviousResults: false)
        #expect(enabled.fieldIndexes.isEmpty && enabled.lastQueryReport?.matches == atThreshold)
        let twoRanges = try collection.filtered(by: filter("a", .greaterThan, .integer(140))).filtered(by: filter("b", .lessThan, .integer(2)))
        _ = try enabled.executeQuery(twoRanges, usePreviousResults: false)
        #expect(enabled.fieldIndexes.isEmpty, "a query with two inequality fields gets no index")
        let selectiveEnough = try collection.filtered(by: filter("a", .greaterThanOrEqual, .integer(Int64(151 - atThreshold))))
        _ = try enabled.executeQuery(selectiveEnough, usePreviousResults: false)
        #expect(enabled.lastQueryReport?.matches == atThreshold - 1)
        #expect(enabled.fieldIndexes.count == 1)
    }

    @Test("an OR query gets one index per term; created indexes survive a restart until deleteAll")
    func disjunctionAndRestart() throws {
        let cache = try RestartableStore(.persistent)
        try cache.store.applyRemoteDocuments((0..<120).map { found("c/d\($0)", version: 1, ["a": .integer(Int64($0)), "tags": .array([.integer(Int64($0 % 40))])]) })
        try cache.store.setIndexAutoCreationEnabled(true)
        let query = try collection.filtered(by: .or([filter("a", .equal, .integer(3)), filter("tags", .arrayContains, .integer(5))]))
        let expected = try cache.store.executeQuery(query, usePreviousResults: false).documents
        #expect(expected.count == 4)
        let created = Set(cache.store.fieldIndexes)
        #expect(created == [
            try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending)]),
            try FieldIndex(collectionGroup: "c", segments: [.init(field("tags"), .contains)]),
        ])
        try cache.restart()
        #expect(Set(cache.store.fieldIndexes) == created)
        while try cache.store.backfillIndexes(maxDocuments: 50) > 0 {}
        #expect(lines(try cache.store.executeQuery(query, usePreviousResults: false).documents) == lines(expected))
        #expect(cache.store.lastQueryReport?.path == .index && cache.store.lastQueryReport?.documentsRead == 4)
        try cache.store.deleteAllFieldIndexes()
        try cache.restart()
        #expect(cache.store.fieldIndexes.isEmpty)
        _ = try cache.store.executeQuery(query, usePreviousResults: false)
        #expect(cache.store.lastQueryReport?.path == .scan)
    }
}
