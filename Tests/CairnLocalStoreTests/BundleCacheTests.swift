import CairnModel
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The bundle cache: loaded bundles and named queries as `bundleSaved` / `namedQuerySaved` events, rebuilt by
/// replay, kept by compaction, the newest save of a key winning; memory caches keep them for their lifetime.
@Suite("Bundle cache")
struct BundleCacheTests {
    static let open = NamedQuery(
        name: "open rooms", query: try! roomsQuery().filtered(by: .field(FieldFilter(FieldPath(segments: ["open"]), .equal, .boolean(true)))),
        readTime: time(10))
    static let latest = NamedQuery(
        name: "latest", query: try! roomsQuery().ordered(by: OrderBy(FieldPath(segments: ["n"]), descending: true)).limitedToLast(2),
        readTime: time(11))

    func metadata(_ id: String, created seconds: Int64) -> BundleMetadata {
        BundleMetadata(id: id, createTime: time(seconds), version: 1, totalDocuments: 3, totalBytes: 1234)
    }

    @Test("bundles and named queries survive restarts and compaction; the newest save of an id or a name wins")
    func persistence() throws {
        let cache = try RestartableStore(.persistent)
        try cache.store.saveNamedQuery(Self.open)
        try cache.store.saveNamedQuery(Self.latest)
        try cache.store.saveBundleMetadata(metadata("b1", created: 20))
        try cache.store.applyRemoteDocuments((0..<60).map { found("rooms/r\($0)", version: 1, ["n": .integer(Int64($0))]) })
        var newer = Self.open
        newer.readTime = time(30)
        try cache.store.saveNamedQuery(newer)
        try cache.store.saveBundleMetadata(metadata("b1", created: 31))
        try cache.restart()
        #expect(cache.store.namedQuery("open rooms") == newer)
        #expect(cache.store.namedQuery("latest") == Self.latest)
        #expect(cache.store.namedQuery("latest")?.query.limitType == .last)
        #expect(cache.store.bundleMetadata("b1") == metadata("b1", created: 31))
        #expect(cache.store.namedQuery("missing") == nil && cache.store.bundleMetadata("b2") == nil)

        while try cache.store.compact(minimumDeadRatio: 0.01) != nil {}
        try cache.restart()
        #expect(cache.store.namedQuery("open rooms") == newer)
        #expect(cache.store.bundleMetadata("b1")?.createTime == time(31))
        let log = try #require(cache.store.events.log)
        var bundleRecords = 0
        try log.scan { record in
            if record.kind >= EventKind.bundleSaved.rawValue && !log.isRetired(record.location) { bundleRecords += 1 }
        }
        #expect(bundleRecords == 3, "one live record per bundle id and query name")
    }

    @Test("a bundle counts as loaded when one with its id and a creation time at least as new was saved")
    func newerBundle() throws {
        let store = LocalStore.inMemory()
        #expect(!store.hasNewerBundle(metadata("b", created: 5)))
        try store.saveBundleMetadata(metadata("b", created: 5))
        #expect(store.hasNewerBundle(metadata("b", created: 5)))
        #expect(store.hasNewerBundle(metadata("b", created: 4)))
        #expect(!store.hasNewerBundle(metadata("b", created: 6)))
        #expect(!store.hasNewerBundle(metadata("other", created: 1)))
    }

    @Test("a memory cache keeps bundles and named queries while it lives, and counts their bytes")
    func memory() throws {
        let store = LocalStore.inMemory(garbageCollector: .lru(thresholdBytes: 1 << 20))
        let before = try #require(store.events.estimatedMemoryBytes)
        try store.saveNamedQuery(Self.open)
        try store.saveBundleMetadata(metadata("b", created: 1))
        _ = try store.collectGarbage(threshold: 1)
        #expect(store.namedQuery("open rooms") == Self.open)
        #expect(store.bundleMetadata("b") != nil)
        #expect(try #require(store.events.estimatedMemoryBytes) > before)
    }

    @Test("a cache written before the bundle records existed opens with none, and takes them afterwards")
    func olderCache() throws {
        let cache = try RestartableStore(.persistent)
        try cache.store.applyRemoteDocuments([found("rooms/a", version: 1, ["n": .integer(1)])])
        let target = try cache.store.allocateTarget(roomsQuery())
        try cache.store.updateTarget(target, added: [key("rooms/a")], removed: [])
        try cache.store.writeLocally([.delete(key("rooms/b"))], localWriteTime: time(2))
        try cache.store.setIndexConfiguration(json: #"{"indexes": []}"#)
        let log = try #require(cache.store.events.log)
        var kinds = Set<UInt8>()
        try log.scan { kinds.insert($0.kind) }
        #expect(kinds.allSatisfy { $0 < EventKind.bundleSaved.rawValue }, "the log holds only the kinds of earlier versions")
        try cache.restart()
        #expect(cache.store.namedQuery("open rooms") == nil)
        #expect(try cache.store.executeLocalQuery(roomsQuery()).map(\.key) == [key("rooms/a")])
        try cache.store.saveNamedQuery(Self.open)
        try cache.restart()
        #expect(cache.store.namedQuery("open rooms") == Self.open)
    }

    @Test("the events round-trip; damaged bytes and keys are dataLoss naming the event, never a crash")
    func eventBytes() throws {
        let events: [BundleCacheEvent] = [.bundleSaved(metadata("b/ü", created: 7)), .namedQuerySaved(Self.latest)]
        for event in events {
            let encoded = event.encoded
            let kind = encoded.kind
            func decode(_ key: [UInt8], _ value: [UInt8]) throws -> BundleCacheEvent {
                try key.withUnsafeBytes { key in try value.withUnsafeBytes { try BundleCacheEvent.decode(kind, key: key, value: $0) } }
            }
            #expect(try decode(encoded.key, encoded.value) == event)
            for length in 0..<encoded.value.count {
                #expect(throws: LocalStoreError.self) { try decode(encoded.key, Array(encoded.value.prefix(length))) }
            }
            do {
                _ = try decode(Array("target/x".utf8), encoded.value)
                Issue.record("a key without the prefix was accepted")
            } catch let error as LocalStoreError {
                #expect(error.code == .dataLoss && error.message.contains("\(kind)"), "\(error.message)")
            }
            var newerFormat = encoded.value
            newerFormat[0] = 2
            do {
                _ = try decode(encoded.key, newerFormat)
                Issue.record("format version 2 was accepted")
            } catch let error as LocalStoreError {
                #expect(error.message.contains("format version 2"), "\(error.message)")
            }
        }
    }
}
