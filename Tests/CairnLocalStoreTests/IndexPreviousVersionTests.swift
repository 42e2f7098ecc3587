import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The field indexes keep no per-document copy of their entries: a changed or removed remote document's old
/// entries are computed from its previous version, read back from the log (or memory) before its event is
/// retired; when that version cannot be read, a scan of the index for the document's key stands in.
@Suite("Field indexes: old entries from the previous version")
struct IndexPreviousVersionTests: IndexTesting, MutationQueueTesting {
    var byA: FieldIndex { get throws { try FieldIndex(collectionGroup: "c", segments: [.init(field("a"), .ascending)]) } }
    var byTags: FieldIndex { get throws { try FieldIndex(collectionGroup: "c", segments: [.init(field("tags"), .contains)]) } }

    /// `c/d<number>` with `a` and `tags`, padded with incompressible text so that a commit fills several
    /// frames and segments.
    func document(_ number: Int, version: Int64, a: Int64, tags: [String] = []) -> Document {
        var random = SeededRandom(seed: UInt64(number) << 16 | UInt64(version))
        let pad = String(decoding: (0..<300).map { _ in UInt8(97 + random.below(26)) }, as: UTF8.self)
        return found("c/d\(number)", version: version, ["a": .integer(a), "tags": .array(tags.map { .string($0) }), "pad": .string(pad)])
    }

    func indexed(_ store: LocalStore) throws {
        try store.setIndexConfiguration(json: configurationJSON([try byA, try byTags]))
        while try store.backfillIndexes(maxDocuments: 50) > 0 {}
        #expect(store.fieldIndexStatuses.filter { !$0.isReady }.isEmpty)
    }

    /// Whether every ready index holds exactly the entries computed from the cached documents `c/d<number>`.
    func exact(_ store: LocalStore, _ numbers: Range<Int>) throws -> Bool {
        let remote = try numbers.compactMap { try store.remoteDocument(key("c/d\($0)")) }
        return store.fieldIndexStatuses.allSatisfy { status in
            let expected = remote.flatMap(status.index.entries(for:)).map(\.sortKey).sorted { $0.lexicographicallyPrecedes($1) }
            return status.isReady && store.fieldIndexView.entries(of: status.index).map(\.sortKey) == expected
        }
    }

    /// Runs `c where a == value` through the index: the documents found and the index entries read.
    func byA(_ store: LocalStore, _ value: Int64) throws -> (keys: [String], entriesRead: Int) {
        let query = try Query(path: ResourcePath(segments: ["c"])).filtered(by: filter("a", .equal, .integer(value)))
        let answer = try store.executeQuery(query, usePreviousResults: false)
        #expect(store.lastQueryReport?.path == .index)
        return (answer.documents.map(\.key.description), store.lastQueryReport?.entriesRead ?? -1)
    }

    @Test("a changed, acknowledged, deleted or evicted document's old entries leave the index", arguments: StoreMode.allCases)
    func oldEntriesLeave(mode: StoreMode) throws {
        let store = try RestartableStore(mode).store
        try store.applyRemoteDocuments((0..<20).map { document($0, version: 1, a: 1, tags: ["old", "t\($0)"]) })
        try indexed(store)
        let entriesBefore = store.fieldIndexStatuses.map(\.entryCount)

        // A remote change, a tombstone, an eviction and an acknowledged write, each from a = 1 to something else.
        try store.applyRemoteDocuments([document(0, version: 2, a: 2, tags: ["new"])])
        try store.applyRemoteDocuments([Document(key: key("c/d1"), state: .noDocument, version: time(2), readTime: time(2))])
        try store.evictDocuments([key("c/d2")])
        let (batchID, _) = try store.writeLocally([setData("c/d3", ["a": .integer(3), "tags": .array([.string("new")])])], localWriteTime: time(5))
        let batch = try #require(try store.nextMutationBatch(after: batchID - 1))
        try store.acknowledgeBatch(try acknowledgement(batch, at: 6))

        #expect(try exact(store, 0..<20))
        #expect(try byA(store, 1) == ((4..<20).map { "c/d\($0)" }.sorted(), 16), "only the unchanged documents' entries")
        #expect(try byA(store, 2) == (["c/d0"], 1))
        #expect(try byA(store, 3) == (["c/d3"], 1))
        let oldTags = store.fieldIndexView.entries(of: try byTags).filter { ["c/d0", "c/d1", "c/d2", "c/d3"].contains($0.key.description) }
        #expect(oldTags.count == 2, "d0 and d3 have one entry each (tag new): \(oldTags.map(\.key))")
        #expect(store.fieldIndexStatuses.map(\.entryCount) == [entriesBefore[0] - 2, entriesBefore[1] - 8 + 2])
        #expect(store.fieldIndexView.fallbackScans == 0, "every previous version was read")
    }

    @Test("after a restart the old entries are found from the previous version the log replayed")
    func afterRestart() throws {
        let cache = try RestartableStore(.persistent)
        try cache.store.applyRemoteDocuments((0..<20).map { document($0, version: 1, a: 1, tags: ["old"]) })
        try indexed(cache.store)
        try cache.restart()
        try indexed(cache.store)
        try cache.store.applyRemoteDocuments((0..<10).map { document($0, version: 2, a: 2) })
        try cache.store.evictDocuments([key("c/d10")])

        #expect(try exact(cache.store, 0..<20))
        #expect(try byA(cache.store, 1) == ((11..<20).map { "c/d\($0)" }.sorted(), 9))
        #expect(cache.store.fieldIndexView.entries(of: try byTags).count == 9)
        #expect(cache.store.fieldIndexView.fallbackScans == 0)
    }

    @Test("after compaction moved the previous versions, they are read at their new places")
    func afterCompaction() throws {
        let cache = try RestartableStore(.persistent)
        let store = cache.store
        // Each document beside one that is overwritten later: compaction rewrites their segments and moves them.
        try store.applyRemoteDocuments((0..<30).flatMap { [document($0, version: 1, a: 1, tags: ["old"]), document(100 + $0, version: 1, a: 9)] })
        for version in Int64(2)...4 { try store.applyRemoteDocuments((100..<130).map { document($0, version: version, a: 9) }) }
        try indexed(store)
        let before = (0..<30).map { store.remoteDocuments.entry(for: key("c/d\($0)"))!.reference }
        while try store.compact(minimumDeadRatio: 0.05, stepBudget: 2048) != nil {}
        let after = (0..<30).map { store.remoteDocuments.entry(for: key("c/d\($0)"))!.reference }
        #expect(zip(before, after).filter { $0 != $1 }.count > 10, "compaction moved most of the previous versions")

        try store.applyRemoteDocuments((0..<30).map { document($0, version: 7, a: 2) })
        #expect(try exact(store, 0..<130))
        #expect(try byA(store, 1) == ([], 0))
        #expect(store.fieldIndexView.entries(of: try byTags).isEmpty)
        #expect(store.fieldIndexView.fallbackScans == 0, "no previous version was looked for at its old place")
    }

    @Test("when the previous version's frame is damaged, a scan of the index for the key removes its old entries")
    func damagedPreviousVersion() throws {
        let fs = SimulatedFileSystem()
        var configuration = smallLog(fs)
        // No frame cache: every read goes to the (damaged) file.
        configuration.frameCacheBytes = 0
        let store = try LocalStore.open(at: "/cache", configuration: configuration)
        try store.applyRemoteDocuments((0..<12).map { document($0, version: 1, a: 1, tags: ["old", "t\($0)"]) })
        try indexed(store)
        guard case .log(let location) = store.remoteDocuments.entry(for: key("c/d5"))!.reference else {
            Issue.record("a log store")
            return
        }
        let path = "/cache/" + String(repeating: "0", count: 12 - String(location.segment).count) + "\(location.segment).seg"
        var bytes = try #require(fs.bytes(of: path))
        bytes[Int(location.frameOffset) + 48] ^= 0x5A
        fs.setBytes(bytes, of: path)
        #expect(throws: LocalStoreError.self) { try store.remoteDocument(key("c/d5")) }

        let damagedFrame = (0..<12).filter { number in
            guard case .log(let other) = store.remoteDocuments.entry(for: key("c/d\(number)"))!.reference else { return false }
            return other.segment == location.segment && other.frameOffset == location.frameOffset
        }
        try store.applyRemoteDocuments(damagedFrame.map { document($0, version: 2, a: 2, tags: ["new"]) })
        try store.evictDocuments(damagedFrame.contains(11) ? [] : [key("c/d11")])

        #expect(store.fieldIndexView.fallbackScans == damagedFrame.count)
        let left = (0..<11).filter { !damagedFrame.contains($0) }
        #expect(try byA(store, 1) == (left.map { "c/d\($0)" }.sorted(), left.count))
        #expect(try byA(store, 2).keys == damagedFrame.map { "c/d\($0)" }.sorted())
        let tagged = store.fieldIndexView.entries(of: try byTags)
        #expect(tagged.filter { damagedFrame.contains(Int($0.key.documentID.dropFirst())!) }.count == damagedFrame.count, "only tag new")
        #expect(tagged.count == left.count * 2 + damagedFrame.count)
    }

    /// The path of the segment file holding `location` in a cache at /cache.
    func segmentPath(_ location: RecordLocation) -> String {
        "/cache/" + String(repeating: "0", count: 12 - String(location.segment).count) + "\(location.segment).seg"
    }

    @Test("a damaged frame's documents cost one scan per index for the whole batch, and no frame is read twice or cached")
    func damagedFrameInOneBatch() throws {
        let fs = SimulatedFileSystem()
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        // Indexed while empty: the documents' entries come from their changes, so no read fills the frame cache.
        try indexed(store)
        try store.applyRemoteDocuments((0..<30).map { document($0, version: 1, a: 1, tags: ["old", "t\($0)"]) })
        let locations = (0..<30).compactMap { number -> RecordLocation? in
            guard case .log(let location)? = store.remoteDocuments.entry(for: key("c/d\(number)"))?.reference else { return nil }
            return location
        }
        try #require(locations.count == 30, "a log store")
        let damaged = locations[10]
        let inDamagedFrame = (0..<30).filter { locations[$0].segment == damaged.segment && locations[$0].frameOffset == damaged.frameOffset }
        #expect(inDamagedFrame.count >= 2, "several documents in the damaged frame")
        var bytes = try #require(fs.bytes(of: segmentPath(damaged)))
        bytes[Int(damaged.frameOffset) + 48] ^= 0x5A
        fs.setBytes(bytes, of: segmentPath(damaged))
        let log = try #require(store.events.log)
        let before = log.statistics
        #expect(before.cachedFrameBytes == 0)

        try store.applyRemoteDocuments((0..<30).map { document($0, version: 2, a: 2, tags: ["new"]) })

        let frames = Set(locations.map { [$0.segment, $0.frameOffset] })
        #expect(log.statistics.cacheMisses - before.cacheMisses == frames.count, "each frame read once, the damaged one too")
        #expect(log.statistics.cachedFrameBytes == 0, "no frame read for the previous versions was cached")
        #expect(store.fieldIndexView.fallbackScans == inDamagedFrame.count)
        #expect(store.fieldIndexView.fallbackIndexScans == 2, "one scan of each of the two indexes")
        #expect(try exact(store, 0..<30))
        #expect(try byA(store, 1) == ([], 0))
        #expect(store.fieldIndexView.entries(of: try byTags).count == 30, "tag new only")
    }

    /// The event read back for a previous version must be the one the view's entry names (its state and version):
    /// an older version or a tombstone there would give the wrong old entries, so the scan for the key stands in.
    @Test("a previous version read back that is not the entry's version or state falls back to the scan, leaving no stale entry")
    func mismatchedPreviousVersion() throws {
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(SimulatedFileSystem()))
        try store.applyRemoteDocuments([document(0, version: 1, a: 1), document(1, version: 1, a: 9)])
        let olderVersion = try #require(store.remoteDocuments.entry(for: key("c/d0"))).reference
        try store.applyRemoteDocuments([document(0, version: 2, a: 2), Document(key: key("c/d1"), state: .noDocument, version: time(2), readTime: time(2))])
        let tombstone = try #require(store.remoteDocuments.entry(for: key("c/d1"))).reference
        try store.applyRemoteDocuments([document(1, version: 3, a: 3, tags: ["t"])])
        try indexed(store)
        // The entries name the current versions but point at d0's version 1 (a = 1) and d1's tombstone.
        var d0 = try #require(store.remoteDocuments.entry(for: key("c/d0")))
        d0.reference = olderVersion
        _ = store.remoteDocuments.set(d0, for: key("c/d0"))
        var d1 = try #require(store.remoteDocuments.entry(for: key("c/d1")))
        d1.reference = tombstone
        _ = store.remoteDocuments.set(d1, for: key("c/d1"))

        try store.applyRemoteDocuments([document(0, version: 4, a: 4), document(1, version: 4, a: 4)])

        #expect(store.fieldIndexView.fallbackScans == 2)
        #expect(try byA(store, 2) == ([], 0), "d0's entry of version 2 is gone")
        #expect(try byA(store, 3) == ([], 0), "d1's entry of version 3 is gone")
        #expect(try byA(store, 4) == (["c/d0", "c/d1"], 2))
        #expect(store.fieldIndexView.entries(of: try byTags).isEmpty)
        #expect(try exact(store, 0..<2))
    }

    /// The backfill walks the view's own buckets (no copy taken when it began): documents removed while it runs
    /// leave its work, documents added are indexed by the change itself, and it ends with the index exact.
    @Test("a backfill racing removals, additions and changes in its collection follows the view, not a copy of it")
    func backfillFollowsTheView() throws {
        let store = try RestartableStore(.persistent).store
        try store.applyRemoteDocuments((0..<200).map { document($0, version: 1, a: 1, tags: ["old"]) })
        try store.setIndexConfiguration(json: configurationJSON([try byA, try byTags]))
        try store.backfillIndexes(maxDocuments: 50)
        #expect(store.fieldIndexStatuses.map(\.documentsToBackfill) == [150, 150])
        try store.evictDocuments((0..<200).filter { $0 % 2 == 0 }.map { key("c/d\($0)") })
        try store.backfillIndexes(maxDocuments: 1)
        let left = try #require(store.fieldIndexStatuses.first?.documentsToBackfill)
        #expect(left == 99, "the removed documents left the backfill's work: \(left) to go")
        try store.applyRemoteDocuments((200..<220).map { document($0, version: 1, a: 1) } + [document(1, version: 2, a: 2)])
        while try store.backfillIndexes(maxDocuments: 7) > 0 {}
        #expect(store.fieldIndexStatuses.filter { !$0.isReady }.isEmpty)
        #expect(try exact(store, 0..<220))
        #expect(try byA(store, 2) == (["c/d1"], 1))
    }

    @Test("documents removed from any collection of a backfill, not only the one it works on, leave its count to go")
    func backfillCountFollowsEveryCollection() throws {
        let store = try RestartableStore(.persistent).store
        let paths = (0..<100).flatMap { ["p/1/c/d\($0)", "p/2/c/d\($0)"] }
        try store.applyRemoteDocuments(paths.map { found($0, version: 1, ["a": .integer(1)]) })
        try store.setIndexConfiguration(json: configurationJSON([try byA]))
        try store.backfillIndexes(maxDocuments: 1)
        #expect(store.fieldIndexStatuses.map(\.documentsToBackfill) == [199])
        try store.evictDocuments((0..<100).filter { $0 % 2 == 0 }.flatMap { [key("p/1/c/d\($0)"), key("p/2/c/d\($0)")] })
        // Each collection holds 50 documents now: at most 50 of each are still to index.
        #expect(store.fieldIndexStatuses.map(\.documentsToBackfill) == [100])
        try store.backfillIndexes(maxDocuments: 1)
        #expect(store.fieldIndexStatuses.map(\.documentsToBackfill) == [99])
        while try store.backfillIndexes(maxDocuments: 7) > 0 {}
        #expect(store.fieldIndexStatuses.map(\.documentsToBackfill) == [0])
        #expect(store.fieldIndexStatuses.map(\.entryCount) == [100])
    }

    /// Index shapes whose old entries need more of the previous version than one top-level field.
    enum Shape: String, CaseIterable, Sendable {
        case nestedField, compositeWithDescending, documentNameSegment, twoIndexesOnDifferentFields

        var indexes: [FieldIndex] {
            get throws {
                func index(_ segments: [FieldIndex.Segment]) throws -> FieldIndex { try FieldIndex(collectionGroup: "c", segments: segments) }
                let path = { (dotted: String) in FieldPath(segments: dotted.split(separator: ".").map(String.init)) }
                switch self {
                case .nestedField: return [try index([.init(path("m.x"), .ascending)])]
                case .compositeWithDescending: return [try index([.init(path("a"), .ascending), .init(path("b"), .descending)])]
                case .documentNameSegment: return [try index([.init(path("a"), .ascending), .init(FieldPath.documentKey, .descending)])]
                case .twoIndexesOnDifferentFields:
                    return [try index([.init(path("a"), .ascending)]), try index([.init(path("m.x"), .descending)])]
                }
            }
        }
    }

    /// `c/d<number>` with `a` (absent when nil), `b`, a map `m` of `x` and `y`, and padding the indexes do not read.
    func shaped(_ number: Int, version: Int64, a: Int64?, b: String, x: Int64) -> Document {
        var fields: [String: Value] = [
            "b": .string(b), "m": .map(ObjectValue(["x": .integer(x), "y": .string("y\(number)")])),
            "pad": .string(String(repeating: "p", count: 200)),
        ]
        if let a { fields["a"] = .integer(a) }
        return found("c/d\(number)", version: version, fields)
    }

    /// The old entries come from the indexed fields alone, decoded from the previous version's bytes (nested
    /// ones included): after changes, a field gained, an eviction and removals by a remote event (lost access, a
    /// limbo document's tombstone) every index holds exactly the current documents' entries, with no scan.
    @Test("old entries of nested, composite, descending, document-name and sibling indexes come from the previous version's indexed fields", arguments: Shape.allCases)
    func partialPreviousVersions(shape: Shape) throws {
        let store = try RestartableStore(.persistent).store
        // d0, d3, d6, ... have no `a` at first.
        try store.applyRemoteDocuments((0..<20).map { shaped($0, version: 1, a: $0 % 3 == 0 ? nil : 1, b: "b\($0 % 4)", x: Int64($0)) })
        try store.setIndexConfiguration(json: configurationJSON(try shape.indexes))
        while try store.backfillIndexes(maxDocuments: 50) > 0 {}
        #expect(try exact(store, 0..<20))

        try store.applyRemoteDocuments((0..<10).map { shaped($0, version: 2, a: 2, b: "b\(($0 + 1) % 4)", x: Int64(100 + $0)) })
        try store.evictDocuments([key("c/d12")])
        try store.applyRemoteEvent(RemoteEvent(
            snapshotVersion: time(3),
            documentUpdates: [
                key("c/d10"): Document(key: key("c/d10"), state: .noDocument, version: time(0), readTime: time(3)),
                key("c/d11"): Document(key: key("c/d11"), state: .noDocument, version: time(3), readTime: time(3)),
            ],
            resolvedLimboDocuments: [key("c/d11")]))

        #expect(try store.remoteDocument(key("c/d10")) == nil, "lost access: the document left the cache")
        #expect(try store.remoteDocument(key("c/d11"))?.state == .noDocument)
        #expect(try exact(store, 0..<20))
        let entries = store.fieldIndexStatuses.map(\.entryCount)
        for (index, count) in zip(try shape.indexes, entries) {
            let expected = try (0..<20).compactMap { try store.remoteDocument(key("c/d\($0)")) }.flatMap(index.entries(for:)).count
            #expect(count == expected && count >= 10, "\(index)")
        }
        #expect(store.fieldIndexView.fallbackScans == 0, "every previous version was read")
    }
}
