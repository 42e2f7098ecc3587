import CairnModel
import Foundation
import Testing
@testable import CairnLocalStore

/// Field indexes through the inspection layer: `dump` decodes the configuration records (kind 9) and
/// ``CacheInspector/indexReport()`` counts each index's backfill work and entries from the documents.
@Suite("cairn and field indexes")
struct IndexInspectionTests {
    @Test("the index report lists the configured indexes, their backfill work and entries, and the switch")
    func indexReport() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let before = try snapshot(of: directory.path)
        let inspector = try CacheInspector.open(at: directory.path)
        defer { inspector.close() }
        let report = try inspector.indexReport()
        let configured = try IndexConfiguration.parse(SampleCache.indexConfiguration)
        #expect(report.indexes.map(\.index) == configured)
        #expect(report.isAutoCreationEnabled)
        #expect(report.configurationRecords == 3)
        // Expected values computed from the documents, without the index view.
        let store = try inspector.replayed()
        var foundKeys: [DocumentKey] = []
        store.remoteDocuments.forEachEntry { key, entry in if entry.state == .found { foundKeys.append(key) } }
        let found = try foundKeys.map { try #require(try store.remoteDocument($0)) }
        for index in report.indexes {
            let group = found.filter { $0.key.collectionGroup == index.index.collectionGroup }
            #expect(!group.isEmpty)
            #expect(index.documentsToBackfill == group.count, "\(index.id)")
            let entries = group.reduce(0) { $0 + Set(index.index.entries(for: $1).map(\.sortKey)).count }
            #expect(index.entryCount == entries, "\(index.id)")
        }
        #expect(report.indexes.contains { $0.entryCount > 0 })
        // The report is made once: asking again gives the same values.
        #expect(try inspector.report(threshold: -1).indexes == report)
        #expect(try snapshot(of: directory.path) == before, "the inspector's backfill writes nothing")
    }

    @Test("dump decodes every index configuration record: indexes, fields and the auto-creation switch")
    func dumpIndexConfiguration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let run = try Cairn.run(["dump", directory.path, "--json", "--type", "indexConfigurationChanged"])
        #expect(run.status == 0, "\(run.stderr)")
        let records = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        try #require(records.count == 3, "\(run.stdout)")
        #expect(records.map { $0["retired"] as? Bool } == [true, true, false])
        #expect(records.allSatisfy { $0["key"] as? String == "indexes" && $0["problem"] == nil })
        let values = try records.map { try #require($0["value"] as? [String: Any]) }
        #expect(values.map { $0["autoCreation"] as? Bool } == [false, true, true])
        let last = try #require(values.last?["indexes"] as? [[String: Any]])
        let configured = try IndexConfiguration.parse(SampleCache.indexConfiguration)
        #expect(last.map { $0["id"] as? String } == configured.map(\.canonicalID))
        #expect(last.map { $0["collectionGroup"] as? String } == configured.map(\.collectionGroup))
        // The fields read back through the parser give the same indexes: dump prints what setIndexConfiguration reads.
        let definitions = last.map { ["collectionGroup": $0["collectionGroup"]!, "fields": $0["fields"]!] }
        let reparsed = try JSONSerialization.data(withJSONObject: ["indexes": definitions])
        #expect(try IndexConfiguration.parse(String(decoding: reparsed, as: UTF8.self)) == configured)
    }
}
