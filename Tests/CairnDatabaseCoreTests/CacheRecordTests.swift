import Foundation
import Testing
@testable import CairnDatabaseCore

@Suite("Realtime Database cache records: codecs and bad input")
struct CacheRecordTests {
    static func path(_ text: String) -> DatabasePath { DatabasePath(unvalidated: text) }

    static func node(_ json: String) throws -> Node {
        try Node(json: try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))
    }

    static func samples() throws -> [CacheRecord] {
        let params = try QueryParams().orderedBy(.child(path("score"))).starting(after: .int(3)).ending(at: .string("z"), childKey: "k")
            .limited(toLast: 4)
        return [
            .serverOverwrite(path("scores/ada"), try node(#"{"a": 1, "b": {".value": 2.5, ".priority": "p"}, "c": true, "d": "text", ".priority": 7}"#)),
            .serverOverwrite(.root, .empty),
            .serverPruned(path("scores")),
            .trackedQuerySaved(id: 3, query: QuerySpec(path: path("scores"), params: params), isComplete: true, isActive: false),
            .trackedQuerySaved(id: 4, query: QuerySpec(path: path("a/b"), params: try QueryParams().orderedBy(.key).starting(after: .string("m"))),
                               isComplete: false, isActive: true),
            .trackedQuerySaved(id: 5, query: QuerySpec(path: .root, params: try QueryParams().orderedBy(.value).ending(before: .double(1.5))
                .limited(toFirst: 2)), isComplete: false, isActive: false),
            .trackedQueryRemoved(id: 3),
            .trackedKeysChanged(id: 3, keys: ["ada", "bob", "1"]),
            .userWriteAdded(PersistedWrite(id: 9, path: path("t"), overwrite: try node(#"{"at": {".sv": "timestamp"}, "n": {".sv": {"increment": 2}}}"#))),
            .userWriteAdded(PersistedWrite(id: 10, path: path("u"), merge: [(path("x/y"), try node("1")), (path("z"), .empty)])),
            .userWriteRemoved(id: 9),
            .globals(session: 12),
        ]
    }

    @Test("Every record kind decodes to what was encoded")
    func roundTrip() throws {
        for record in try Self.samples() {
            let (kind, key, value) = record.encoded()
            let back = try CacheRecord.decode(kind: kind.rawValue, key: key, value: value)
            #expect(back == record, "\(kind)")
        }
    }

    @Test("Query parameters come back equal, with the same identifier and normalised bounds")
    func queryParamsRoundTrip() throws {
        for record in try Self.samples() {
            guard case .trackedQuerySaved(_, let query, _, _) = record else { continue }
            let (kind, key, value) = record.encoded()
            guard case .trackedQuerySaved(_, let back, _, _) = try CacheRecord.decode(kind: kind.rawValue, key: key, value: value) else {
                Issue.record("not a tracked query")
                continue
            }
            #expect(back.params == query.params)
            #expect(back.identifier == query.identifier)
            #expect(back.path == query.path)
        }
    }

    @Test("A value cut short at any byte is an error, never a crash")
    func truncatedValues() throws {
        for record in try Self.samples() {
            let (kind, key, value) = record.encoded()
            for length in 0..<value.count {
                #expect(throws: PersistenceError.self, "\(kind) cut to \(length) bytes") {
                    try CacheRecord.decode(kind: kind.rawValue, key: key, value: Array(value.prefix(length)))
                }
            }
        }
    }

    @Test("Bytes after the last field, an unknown kind and another format version are errors with their codes")
    func trailingBytesKindAndVersion() throws {
        let (kind, key, value) = CacheRecord.globals(session: 1).encoded()
        #expect(throws: PersistenceError(.corruptRecord, "the globals record globals cannot be decoded: bytes follow the record's last field (at byte 9 of 10)")) {
            try CacheRecord.decode(kind: kind.rawValue, key: key, value: value + [0])
        }
        let unknown = #expect(throws: PersistenceError.self) { try CacheRecord.decode(kind: 99, key: key, value: value) }
        #expect(unknown?.code == .corruptRecord)
        let newer = #expect(throws: PersistenceError.self) { try CacheRecord.decode(kind: kind.rawValue, key: key, value: [2] + value.dropFirst()) }
        #expect(newer?.code == .unsupportedVersion)
        #expect(newer?.message.contains("format version 2") == true)
    }

    @Test("Counts past the end, bad keys, bad paths, unknown tags and out-of-range ids are errors")
    func malformedFields() throws {
        func expectCorrupt(_ kind: CacheRecord.Kind, _ key: [UInt8], _ value: [UInt8], _ comment: Comment) {
            let error = #expect(throws: PersistenceError.self, comment) { try CacheRecord.decode(kind: kind.rawValue, key: key, value: value) }
            #expect(error?.code == .corruptRecord, comment)
        }
        let serverKey = CacheRecord.serverKey(Self.path("a"))
        // A children node claiming 2^32-1 children.
        expectCorrupt(.serverOverwrite, serverKey, [1, 1, 0xFF, 0xFF, 0xFF, 0xFF], "a huge child count")
        // A child key with a '.'.
        var writer = CacheBytesWriter()
        writer.byte(1); writer.byte(1); writer.uint32(1); writer.string("a.b"); writer.byte(3); writer.uint64(1); writer.byte(0); writer.byte(0)
        expectCorrupt(.serverOverwrite, serverKey, writer.bytes, "an invalid child key")
        expectCorrupt(.serverOverwrite, serverKey, [1, 42], "an unknown node tag")
        expectCorrupt(.serverOverwrite, Array("s/a/../b".utf8), [1, 0], "a path key with an invalid key")
        expectCorrupt(.serverOverwrite, Array("xa".utf8), [1, 0], "not a server key")
        expectCorrupt(.trackedQueryRemoved, Array("q123".utf8), [1], "a short id key")
        expectCorrupt(.userWriteRemoved, CacheRecord.queryKey(1), [1], "a query key on a write record")
        let (_, key, value) = CacheRecord.userWriteAdded(PersistedWrite(id: 1, path: .root, overwrite: Node(leaf: .int(1)))).encoded()
        expectCorrupt(.userWriteAdded, CacheRecord.writeKey(0), value, "write id 0")
        expectCorrupt(.userWriteAdded, CacheRecord.writeKey(UInt64.max), value, "a write id past Int.max")
        expectCorrupt(.trackedQueryRemoved, CacheRecord.queryKey(UInt64.max), [1], "a query id past Int.max")
        expectCorrupt(.userWriteAdded, key, [1, 1, 0, 0, 0, UInt8(ascii: "/"), 7], "a write kind that is neither overwrite nor merge")
        // A double that is not finite.
        writer = CacheBytesWriter()
        writer.byte(1); writer.byte(4); writer.uint64(Double.nan.bitPattern); writer.byte(0)
        expectCorrupt(.serverOverwrite, serverKey, writer.bytes, "NaN")
        // A node nested deeper than Firebase allows.
        var deep = [UInt8]([1])
        for _ in 0...(Node.maxDepth + 2) { deep += [1, 1, 0, 0, 0, 1, 0, 0, 0, UInt8(ascii: "k")] }
        expectCorrupt(.serverOverwrite, serverKey, deep, "nesting past the limit")
        // Query parameters the API cannot build: a limit of 0.
        writer = CacheBytesWriter()
        writer.byte(1); writer.string("/q"); writer.string(".priority"); writer.bool(false); writer.bool(false); writer.bool(true); writer.uint32(0); writer.byte(0)
        writer.bool(false); writer.bool(false)
        expectCorrupt(.trackedQuerySaved, CacheRecord.queryKey(1), writer.bytes, "a limit of 0")
    }

    @Test("Random bytes never crash the decoder")
    func randomBytes() throws {
        var generator = SystemRandomNumberGenerator()
        let samples = try Self.samples().map { $0.encoded() }
        for round in 0..<3000 {
            let (kind, key, value) = samples[round % samples.count]
            var mutated = value
            for _ in 0..<(1 + round % 4) where !mutated.isEmpty {
                mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? CacheRecord.decode(kind: kind.rawValue, key: key, value: mutated)
        }
    }
}
