import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

@Suite("Query scans: filters tested before decoding, documents read in log order")
struct QueryScanDecodeTests: MutationQueueTesting {
    let team = FieldPath(segments: ["team"])
    let players = Query(path: ResourcePath(segments: ["players"]))

    /// 240 players over several segments, with teams of mixed types (1, 1.0, "1", null, missing), written in
    /// an order that differs from the key order, twelve to an append (several to a frame), some rewritten later.
    func populatedStore(_ fs: SimulatedFileSystem, _ configuration: SegmentLog.Configuration? = nil) throws -> LocalStore {
        let store = try LocalStore.open(at: "/cache", configuration: configuration ?? smallLog(fs))
        var random = SeededRandom(seed: 23)
        let teams: [Value?] = [.integer(1), .double(1), .string("1"), .null, nil, .integer(2), .integer(3)]
        for round in 0..<2 {
            var batch: [Document] = []
            for i in (0..<240).map({ ($0 * 97) % 240 }) where round == 0 || i % 3 == 0 {
                var fields: [String: Value] = ["n": .integer(Int64(i)), "pad": .string(String(repeating: "p", count: 40))]
                if let value = teams[random.below(teams.count)] { fields["team"] = value }
                batch.append(found("players/p\(i)", version: Int64(1 + round), fields))
                if batch.count == 12 {
                    try store.applyRemoteDocuments(batch)
                    batch = []
                }
            }
            try store.applyRemoteDocuments(batch)
        }
        return store
    }

    /// The oracle: every cached player decoded, then matched, ordered and limited by the query.
    func oracle(_ store: LocalStore, _ query: Query) throws -> [Document] {
        let all = try (0..<240).compactMap { try store.localDocument(key("players/p\($0)")) }
        return query.results(from: all)
    }

    @Test("an equality scan decodes only the documents whose encoded field passes, with the oracle's answer")
    func decodesOnlyPassingDocuments() throws {
        let fs = SimulatedFileSystem()
        let store = try populatedStore(fs)
        _ = try store.writeLocally([updateData("players/p5", ["team": .integer(1)])], localWriteTime: time(50))
        let queries = [
            try players.filtered(by: .field(FieldFilter(team, .equal, .integer(1)))),
            try players.filtered(by: .field(FieldFilter(team, .equal, .integer(1))))
                .filtered(by: .field(FieldFilter(FieldPath(segments: ["n"]), .greaterThanOrEqual, .integer(100)))),
            try players.filtered(by: .field(FieldFilter(team, .notEqual, .integer(2)))),
        ]
        for query in queries {
            let result = try store.executeQuery(query, usePreviousResults: false)
            let expected = try oracle(store, query)
            #expect(result.documents.map(describe) == expected.map(describe), "\(query)")
            let report = try #require(store.lastQueryReport)
            #expect(report.path == .scan)
            // Every remote candidate is read, but only the matches (p5 has an overlay, read separately) decoded.
            let remoteMatches = expected.filter { $0.key != key("players/p5") }.count
            #expect(report.documentsDecoded == remoteMatches, "\(query): \(report)")
            #expect(report.documentsRead == 240, "\(query): \(report)")
            #expect(report.documentsDecoded < report.documentsRead - 1)
        }
        // The overlay-free scan of the server state gives the oracle's answer too.
        let query = queries[0]
        let remote = try store.executeQuery(query)
        let expected = query.results(from: try (0..<240).compactMap { try store.remoteDocument(key("players/p\($0)")) })
        #expect(remote.map(describe) == expected.map(describe))
        try store.close()
    }

    @Test("a scan without a simple field filter decodes every document, reading each frame once (log order)")
    func logOrder() throws {
        let fs = SimulatedFileSystem()
        var configuration = smallLog(fs)
        configuration.frameCacheBytes = 4096  // a few frames: reading in key order would decompress most again
        let store = try populatedStore(fs, configuration)
        #expect(segmentLog(of: store).statistics.segments.count > 1, "the documents must span more than one segment")
        var frames = Set<[UInt32]>()
        var locations: [RecordLocation] = []
        for i in 0..<240 {
            if case .log(let location) = try #require(store.remoteDocuments.entry(for: key("players/p\(i)"))).reference {
                frames.insert([location.segment, location.frameOffset])
                locations.append(location)
            }
        }
        #expect(locations != locations.sorted(), "key order and log order must differ for this test")
        let query = try players.filtered(by: .or([
            .field(FieldFilter(team, .equal, .integer(3))), .field(FieldFilter(FieldPath(segments: ["n"]), .lessThan, .integer(10))),
        ]))
        let missesBefore = segmentLog(of: store).statistics.cacheMisses
        let result = try store.executeQuery(query, usePreviousResults: false)
        let misses = segmentLog(of: store).statistics.cacheMisses - missesBefore
        #expect(store.lastQueryReport?.documentsDecoded == 240)
        #expect(frames.count < 120, "\(frames.count) frames: the test needs several documents to a frame")
        #expect(misses <= frames.count, "\(misses) frame reads for \(frames.count) frames")
        #expect(result.documents.map(describe) == (try oracle(store, query)).map(describe))
        try store.close()
    }
}
