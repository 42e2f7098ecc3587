import Foundation
import CairnLocalStore
import SegmentLog
import Testing

/// The text of `inspect`, `dump`, `dump --json`, `outbox` and `stats` on the sample cache, compared with
/// Golden/ (regenerate with CAIRN_UPDATE_GOLDEN=1, see `expectGolden`). The cache is rebuilt from scratch for
/// every test and its contents and timestamps are fixed, so the output is too; the directory's path is
/// replaced by `$CACHE`.
@Suite("cairn output on a fixed cache (golden files)")
struct GoldenOutputTests {
    private func withSample(_ body: (String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/cache"
        try SampleCache.build(at: cache)
        try body(cache)
    }

    private func output(_ arguments: [String], cache: String) throws -> String {
        let run = try Cairn.run(arguments)
        #expect(run.status == 0, "cairn \(arguments.joined(separator: " ")): \(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        return run.stdout.replacingOccurrences(of: cache, with: "$CACHE")
    }

    @Test("inspect reports segments, events, documents, outbox, targets, globals, indexes and LRU")
    func inspect() throws {
        try withSample { cache in
            try expectGolden(try output(["inspect", cache, "--threshold", "20000"], cache: cache), "inspect.txt")
        }
    }

    @Test("dump prints every record in log order, decoded")
    func dump() throws {
        try withSample { cache in try expectGolden(try output(["dump", cache], cache: cache), "dump.txt") }
    }

    @Test("dump --json prints one JSON object per record")
    func dumpJSON() throws {
        try withSample { cache in try expectGolden(try output(["dump", cache, "--json"], cache: cache), "dump.jsonl") }
    }

    @Test("outbox lists the pending batches of every user in batch order")
    func outbox() throws {
        try withSample { cache in try expectGolden(try output(["outbox", cache], cache: cache), "outbox.txt") }
    }

    @Test("stats lists collections and segments against the threshold")
    func stats() throws {
        try withSample { cache in
            try expectGolden(try output(["stats", cache, "--threshold", "20000"], cache: cache), "stats.txt")
        }
    }

    @Test("every dump --json line is a JSON object whose position and kind match the log's record")
    func jsonMatchesLog() throws {
        try withSample { cache in
            var records: [Record] = []
            var configuration = SegmentLog.Configuration()
            configuration.readOnly = true
            let log = try SegmentLog.open(at: cache, configuration: configuration)
            try log.scan { records.append($0.record) }
            try log.close()
            let lines = try output(["dump", cache, "--json"], cache: cache).split(separator: "\n")
            #expect(lines.count == records.count)
            for (line, record) in zip(lines, records) {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["lsn"] as? Int == Int(record.lsn))
                #expect(object["kind"] as? Int == Int(record.kind))
                #expect(object["segment"] as? Int == Int(record.location.segment))
                #expect(object["frameOffset"] as? Int == Int(record.location.frameOffset))
                #expect(object["problem"] == nil, "\(line)")
            }
        }
    }

    @Test("dump --type and --key-prefix select exactly the matching records")
    func filters() throws {
        try withSample { cache in
            let all = try output(["dump", cache], cache: cache).split(separator: "\n")
            let expected = all.filter { $0.contains("  remoteDocumentChanged  users/u1") }
            let selected = try output(["dump", cache, "--type", "remoteDocumentChanged", "--key-prefix", "users/u1"], cache: cache)
                .split(separator: "\n")
            #expect(!expected.isEmpty)
            #expect(selected == expected)
            let byNumber = try output(["dump", cache, "--type", "1", "--key-prefix", "users/u1"], cache: cache).split(separator: "\n")
            #expect(byNumber == expected)
        }
    }
}
