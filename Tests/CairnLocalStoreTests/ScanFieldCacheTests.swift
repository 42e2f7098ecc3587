import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Scans keep decoded field values in a bounded cache keyed by the documents' event references, and rank
/// limit queries on those values: every change to the cache must show in the next scan's answer.
@Suite("Scan field-value cache and ranked scans")
struct ScanFieldCacheTests: MutationQueueTesting {
    let color = FieldPath(segments: ["color"])
    let score = FieldPath(segments: ["score"])
    let colors: [Value?] = [.string("red"), .string("green"), .integer(1), .null, nil]

    /// The queries every step checks: equality, ranked limit (first and last), a collection group, and an
    /// OR query (not ranked, no prefilter).
    func queries() throws -> [Query] {
        let items = Query(path: ResourcePath(segments: ["items"]))
        let red = Filter.field(FieldFilter(color, .equal, .string("red")))
        return [
            try items.filtered(by: red),
            try items.filtered(by: .field(FieldFilter(score, .greaterThan, .integer(20)))).limited(to: 5),
            try items.filtered(by: .field(FieldFilter(score, .greaterThanOrEqual, .integer(10))))
                .ordered(by: OrderBy(score, descending: true)).limitedToLast(4),
            try items.ordered(by: OrderBy(color)).ordered(by: OrderBy(score, descending: true)).limited(to: 7),
            try Query(path: .root, collectionGroup: "items").filtered(by: red),
            try Query(path: .root, collectionGroup: "items").filtered(by: .field(FieldFilter(score, .lessThan, .integer(8))))
                .limited(to: 3),
            try items.filtered(by: .or([red, .field(FieldFilter(score, .equal, .integer(3)))])),
        ]
    }

    func randomItem(_ path: String, version: Int64, _ random: inout SeededRandom) -> Document {
        var fields: [String: Value] = ["pad": .string(String(repeating: "x", count: 60))]
        if let value = colors[random.below(colors.count)] { fields["color"] = value }
        // Scores repeat a lot, so ranking must break ties by key; some are doubles or missing.
        switch random.below(8) {
        case 0: break
        case 1: fields["score"] = .double(Double(random.below(30)) + 0.5)
        default: fields["score"] = .integer(Int64(random.below(30)))
        }
        return found(path, version: version, fields)
    }

    /// The oracle: every document ever written, read one by one in its local view, then matched, ordered and
    /// limited by the query.
    func oracle(_ store: LocalStore, _ paths: [String], _ query: Query) throws -> [String] {
        query.results(from: try paths.compactMap { try store.localDocument(key($0)) }).map(describe)
    }

    @Test("every change shows in the next scan: remote update and delete, eviction, local write, ack, reject, compaction", arguments: StoreMode.allCases)
    func invalidation(_ mode: StoreMode) throws {
        let cache = try RestartableStore(mode)
        let store = cache.store
        var random = SeededRandom(seed: 41)
        let paths = (0..<60).map { "items/i\($0)" } + (0..<30).map { "rooms/r\($0 % 3)/items/m\($0)" }
        var clock: Int64 = 1
        try store.applyRemoteDocuments(paths.map { randomItem($0, version: 1, &random) })
        let queries = try queries()
        for step in 0..<80 {
            clock += 1
            let path = paths[random.below(paths.count)]
            switch random.below(mode == .persistent ? 7 : 6) {
            case 0, 1:
                try store.applyRemoteDocuments([randomItem(path, version: clock, &random)])
            case 2:
                try store.applyRemoteDocuments([Document(key: key(path), state: .noDocument, version: time(clock))])
            case 3:
                try store.evictDocuments([key(path)])
            case 4:
                let fields: [String: Value] = random.below(2) == 0 ? ["color": .string("red")] : ["score": .integer(Int64(random.below(30)))]
                _ = try store.writeLocally([mergeData(path, fields)], localWriteTime: time(clock))
            case 5:
                guard let batch = try store.nextMutationBatch(after: nil) else { continue }
                if random.below(2) == 0 {
                    try store.acknowledgeBatch(acknowledgement(batch, at: clock))
                } else {
                    try store.rejectBatch(batch.batchID)
                }
            default:
                while try store.compact(minimumDeadRatio: 0.05, stepBudget: 2048) != nil {}
            }
            for query in queries {
                let answer = try store.executeQuery(query, usePreviousResults: false).documents.map(describe)
                #expect(answer == (try oracle(store, paths, query)), "step \(step): \(query)")
            }
        }
        #expect(store.scanCacheBytes > 0, "the scans kept field values")
    }

    /// 120 documents of about 100 bytes in 1 KiB frames; `red` of them have color "red".
    func populated(_ fs: SimulatedFileSystem, red: Set<Int>) throws -> LocalStore {
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        var random = SeededRandom(seed: 5)
        try store.applyRemoteDocuments((0..<120).map { i in
            var item = randomItem("items/i\(i)", version: 1, &random)
            item.data.fields["color"] = red.contains(i) ? .string("red") : .string("blue")
            return item
        })
        return store
    }

    @Test("a repeated scan reads the log only for the documents that pass on cached values")
    func repeatedScanReadsOnlyMatches() throws {
        let store = try populated(SimulatedFileSystem(), red: [3, 70, 111])
        let query = try Query(path: ResourcePath(segments: ["items"])).filtered(by: .field(FieldFilter(color, .equal, .string("red"))))
        let log = segmentLog(of: store)
        func frameReads(_ body: () throws -> Void) rethrows -> Int {
            let before = log.statistics
            try body()
            let after = log.statistics
            return after.cacheHits + after.cacheMisses - before.cacheHits - before.cacheMisses
        }
        var counts: [Int] = []
        let cold = try frameReads { counts.append(try store.executeQuery(query, usePreviousResults: false).documents.count) }
        let warm = try frameReads { counts.append(try store.executeQuery(query, usePreviousResults: false).documents.count) }
        #expect(counts == [3, 3])
        #expect(cold > 10, "a cold scan reads every frame: \(cold)")
        #expect(warm <= 3, "a warm scan reads the three matches' frames only: \(warm)")
        #expect(store.lastQueryReport?.documentsRead == 120 && store.lastQueryReport?.documentsDecoded == 3)
        // Turned off, the cache keeps nothing and every scan reads every frame again.
        store.scanCacheCapacity = 0
        #expect(store.scanCacheBytes == 0)
        #expect(try frameReads { _ = try store.executeQuery(query, usePreviousResults: false) } > 10)
        try store.close()
    }

    @Test("a ranked limit scan decodes only the limit, counts every match, and agrees with the oracle")
    func rankedScan() throws {
        let store = try populated(SimulatedFileSystem(), red: [])
        let paths = (0..<120).map { "items/i\($0)" }
        let items = Query(path: ResourcePath(segments: ["items"]))
        let above = Filter.field(FieldFilter(score, .greaterThan, .integer(4)))
        for query in [
            try items.filtered(by: above).limited(to: 6),
            try items.filtered(by: above).ordered(by: OrderBy(score, descending: true)).limited(to: 6),
            try items.filtered(by: above).limitedToLast(6),
            try items.ordered(by: OrderBy(score)).ordered(by: .documentKey(descending: true)).limited(to: 9),
        ] {
            let answer = try store.executeQuery(query, usePreviousResults: false).documents.map(describe)
            #expect(answer == (try oracle(store, paths, query)), "\(query)")
            let report = try #require(store.lastQueryReport)
            #expect(report.documentsDecoded == query.limit, "\(query): \(report)")
            var unlimited = try Query(path: query.path).ordered(by: OrderBy(score))
            for filter in query.filters { unlimited = try unlimited.filtered(by: filter) }
            #expect(report.matches == (try oracle(store, paths, unlimited)).count, "\(query)")
        }
        // A pending write that ranks first joins the remote documents the scan kept.
        _ = try store.writeLocally([mergeData("items/i7", ["score": .integer(1000)])], localWriteTime: time(5))
        let top = try items.filtered(by: above).ordered(by: OrderBy(score, descending: true)).limited(to: 3)
        let answer = try store.executeQuery(top, usePreviousResults: false).documents
        let expected = try oracle(store, paths, top)
        #expect(answer.first?.key == key("items/i7"))
        #expect(answer.map(describe) == expected)
        try store.close()
    }
}

/// The cache's bound, on its own.
@Suite("Field-value cache bound")
struct FieldValueCacheBoundTests {
    func column(_ references: Range<Int>, _ value: Value?) -> FieldValueCache.Column {
        var column = FieldValueCache.Column()
        for reference in references { column.insert(value, for: .memory(reference)) }
        return column
    }

    func columnKey(_ name: String) -> FieldValueCache.ColumnKey {
        FieldValueCache.ColumnKey(collection: ResourcePath(segments: [name]), field: FieldPath(segments: ["f"]))
    }

    @Test("over its capacity the cache drops least recently used columns, never keeps an oversized one")
    func leastRecentlyUsed() {
        let cost = FieldValueCache.cost(of: .integer(1))
        var cache = FieldValueCache(capacity: 25 * cost)
        cache.put(column(0..<10, .integer(1)), for: columnKey("a"))
        cache.put(column(0..<10, .integer(1)), for: columnKey("b"))
        #expect(cache.bytes == 20 * cost && cache.columnCount == 2)
        // Using "a" again makes "b" the oldest: adding "c" evicts "b".
        cache.put(cache.take(columnKey("a")), for: columnKey("a"))
        cache.put(column(0..<10, .integer(1)), for: columnKey("c"))
        #expect(cache.take(columnKey("b")).values.isEmpty)
        #expect(cache.take(columnKey("a")).values.count == 10)
        cache.put(column(0..<30, .integer(1)), for: columnKey("huge"))
        #expect(cache.take(columnKey("huge")).values.isEmpty && cache.bytes <= cache.capacity)
        cache.capacity = cost
        #expect(cache.bytes == 0 && cache.columnCount == 0)
    }

    @Test("long strings, bytes and nested values are charged for what they hold")
    func costs() {
        let short = FieldValueCache.cost(of: .string("r42"))
        #expect(short == FieldValueCache.cost(of: nil))
        #expect(FieldValueCache.cost(of: .string(String(repeating: "x", count: 100))) >= short + 100)
        #expect(FieldValueCache.cost(of: .array(Array(repeating: .bytes([1, 2, 3]), count: 10))) > short + 10 * 24)
        var column = FieldValueCache.Column()
        column.insert(.string(String(repeating: "y", count: 50)), for: .memory(1))
        column.insert(.integer(1), for: .memory(1))
        #expect(column.bytes == FieldValueCache.cost(of: .integer(1)), "a replaced value is no longer charged")
        column.insert(.integer(2), for: .memory(2))
        column.retain([.memory(2)])
        #expect(column.values.count == 1 && column.bytes == FieldValueCache.cost(of: .integer(2)))
    }

    @Test("a bounded selection keeps exactly the first elements a full sort would", arguments: [3, 17, 29])
    func selectionAgreesWithSort(_ seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<50 {
            let elements = (0..<random.below(200)).map { _ in (value: random.below(20), id: random.below(1_000_000)) }
            let limit = random.below(12)
            let precedes: ((value: Int, id: Int), (value: Int, id: Int)) -> Bool = { ($0.value, $0.id) < ($1.value, $1.id) }
            var selection = TopSelection(limit: limit, precedes: precedes)
            for element in elements { selection.offer(element) }
            let expected = elements.sorted(by: precedes).prefix(limit)
            #expect(selection.sorted().map(\.id) == expected.map(\.id))
        }
    }
}
