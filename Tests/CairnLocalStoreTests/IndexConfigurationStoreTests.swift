import CairnModel
import SegmentLog
import Testing
@testable import CairnLocalStore

/// `setIndexConfiguration(json:)`, `deleteAllFieldIndexes()` and the configuration event: rejected input,
/// persistence across restarts and compaction, replacement semantics, damaged events.
@Suite("Field-index configuration")
struct IndexConfigurationStoreTests: IndexTesting {
    func index(_ group: String, _ segments: (String, FieldIndex.Segment.Kind)...) -> FieldIndex {
        try! FieldIndex(collectionGroup: group, segments: segments.map { FieldIndex.Segment(field($0.0), $0.1) })
    }

    @Test(
        "malformed JSON is rejected with invalidArgument naming the problem, and the configuration stays",
        arguments: [
            ("{\"indexes\": [", "not valid JSON"),
            (#"{"indexes": [{"fields": [{"fieldPath": "a", "order": "ASCENDING"}]}]}"#, "indexes[0]: missing 'collectionGroup'"),
            (#"{"indexes": [{"collectionGroup": "c", "fields": [{"fieldPath": "a", "order": "UP"}]}]}"#, "'order' must be ASCENDING or DESCENDING, not 'UP'"),
            (#"{"indexes": {}}"#, "'indexes' must be an array"),
        ])
    func malformed(json: String, fragment: String) throws {
        let store = LocalStore.inMemory()
        try store.setIndexConfiguration(json: configurationJSON([index("c", ("a", .ascending))]))
        do {
            try store.setIndexConfiguration(json: json)
            Issue.record("accepted \(json)")
        } catch let error as LocalStoreError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        #expect(store.fieldIndexes == [index("c", ("a", .ascending))])
    }

    @Test("the configuration survives restarts and compaction; replacing it keeps, drops and adds indexes")
    func persistence() throws {
        let cache = try RestartableStore(.persistent)
        try cache.store.applyRemoteDocuments((0..<30).map { found("c/d\($0)", version: 1, ["a": .integer(Int64($0)), "b": .string("x")]) })
        let byA = index("c", ("a", .ascending))
        let byB = index("c", ("b", .descending), ("a", .ascending))
        let tags = index("posts", ("tags", .contains), ("a", .descending))
        try cache.store.setIndexConfiguration(json: configurationJSON([byA, byB]))
        while try cache.store.backfillIndexes(maxDocuments: 7) > 0 {}
        let entriesOfA = cache.store.fieldIndexView.entries(of: byA).map(\.sortKey)
        #expect(entriesOfA.count == 30)

        try cache.store.setIndexConfiguration(json: configurationJSON([tags, byA]))
        #expect(cache.store.fieldIndexes == [tags, byA])
        #expect(cache.store.fieldIndexStatuses.map(\.isReady) == [true, true], "an unchanged index keeps its entries")
        #expect(cache.store.fieldIndexView.entries(of: byA).map(\.sortKey) == entriesOfA)

        try cache.store.setIndexAutoCreationEnabled(true)
        while try cache.store.compact(minimumDeadRatio: 0.01) != nil {}
        try cache.restart()
        #expect(cache.store.fieldIndexes == [tags, byA])
        #expect(cache.store.isIndexAutoCreationEnabled)
        #expect(cache.store.fieldIndexStatuses.map(\.documentsToBackfill) == [0, 30], "entries are rebuilt after open")
        while try cache.store.backfillIndexes(maxDocuments: 7) > 0 {}
        #expect(cache.store.fieldIndexView.entries(of: byA).map(\.sortKey) == entriesOfA)

        try cache.store.deleteAllFieldIndexes()
        #expect(cache.store.fieldIndexes.isEmpty)
        try cache.restart()
        #expect(cache.store.fieldIndexes.isEmpty && cache.store.isIndexAutoCreationEnabled)
    }

    @Test("the configuration event round-trips, and damaged bytes are dataLoss, never a crash")
    func eventBytes() throws {
        let event = IndexConfigurationEvent(
            indexes: [index("c", ("a.b", .ascending), ("tags", .contains)), index("posts", ("__name__", .descending))],
            autoCreationEnabled: true)
        let bytes = event.encoded.value
        #expect(try bytes.withUnsafeBytes(IndexConfigurationEvent.decode) == event)
        for length in 0..<bytes.count {
            #expect(throws: LocalStoreError.self) { try Array(bytes.prefix(length)).withUnsafeBytes(IndexConfigurationEvent.decode) }
        }
        var badKind = bytes
        badKind[badKind.firstIndex(of: UInt8(ascii: "c"))! + 2] = 7
        do {
            _ = try badKind.withUnsafeBytes(IndexConfigurationEvent.decode)
            Issue.record("a segment kind of 7 was accepted")
        } catch let error as LocalStoreError {
            #expect(error.code == .dataLoss && error.message.contains("segment kind"), "\(error)")
        }
    }
}
