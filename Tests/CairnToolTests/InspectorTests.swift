import CairnModel
import Foundation
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The library under the tool: ``CacheInspector``'s values for the sample cache, and the JSON convention.
@Suite("CacheInspector")
struct InspectorTests {
    @Test("the report counts what the sample cache was built with")
    func report() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let inspector = try CacheInspector.open(at: directory.path)
        defer { inspector.close() }
        let report = try inspector.report(threshold: 1 << 20)
        // 12 users, one of them a tombstone; 3 rooms, one evicted.
        #expect(report.foundDocuments == 13)
        #expect(report.missingDocuments == 1)
        #expect(report.statistics.collections.map(\.path) == ["rooms", "users"])
        #expect(report.statistics.collections.map(\.documents) == [2, 11])
        #expect(report.outbox.pendingBatches == 2)
        #expect(report.outbox.batchesPerUser == ["": 1, "ada": 1])
        #expect(report.outbox.oldest?.batchID == 2)
        #expect(report.targets.map(\.targetID) == [2])
        #expect(report.targets.first?.documents == 3)
        #expect(report.globals.writeStreamUsers == ["ada"])
        #expect(report.statistics.segments.count > 1)
        // The rewritten users' first versions are dead, and the kinds' live bytes agree with the segments'.
        #expect(report.statistics.deadRecordBytes > 0)
        #expect(report.kinds.reduce(0) { $0 + $1.liveRecordBytes } == report.statistics.liveRecordBytes)
    }

    @Test("a store opened read-only refuses writes and changes no byte")
    func readOnlyStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        try SampleCache.build(at: directory.path)
        let before = try snapshot(of: directory.path)
        let store = try LocalStore.openReadOnly(at: directory.path)
        #expect(store.documentCount == 13)
        #expect(throws: LocalStoreError.self) {
            try store.writeLocally([.delete(SampleCache.key("users/u1"))], localWriteTime: SampleCache.time(99))
        }
        #expect(throws: LocalStoreError.self) { try store.evictDocuments([SampleCache.key("users/u1")]) }
        try store.close()
        #expect(try snapshot(of: directory.path) == before)
    }

    @Test("doubles always carry a decimal point; integers never do; non-finite doubles are marked")
    func numbers() {
        #expect(InspectionJSON.value(.double(2)).render() == "2.0")
        #expect(InspectionJSON.value(.double(-0.0)).render() == "-0.0")
        #expect(InspectionJSON.value(.double(1e-7)).render() == "1.0e-07")
        #expect(InspectionJSON.value(.double(0.25)).render() == "0.25")
        #expect(InspectionJSON.value(.integer(2)).render() == "2")
        #expect(InspectionJSON.value(.double(.nan)).render() == #"{"__double__":"NaN"}"#)
        #expect(InspectionJSON.value(.double(-.infinity)).render() == #"{"__double__":"-Infinity"}"#)
    }

    @Test("timestamps are UTC with nine fractional digits, before and after 1970, on leap days, and out of range")
    func timestamps() {
        var cases: [(Int64, Int32, String)] = [
            (0, 0, "1970-01-01T00:00:00.000000000Z"),
            (-1, 999_999_999, "1969-12-31T23:59:59.999999999Z"),
            (951_782_400, 5, "2000-02-29T00:00:00.000000005Z"),
            (1_709_164_800, 0, "2024-02-29T00:00:00.000000000Z"),
            (-62_135_596_800, 0, "0001-01-01T00:00:00.000000000Z"),
            (253_402_300_799, 0, "9999-12-31T23:59:59.000000000Z"),
        ]
        // Out of range (only damaged data holds such values): the numbers, never a trap.
        cases += [(.min, 0, "@\(Int64.min)s+0ns"), (0, -1, "@0s+-1ns"), (253_402_300_800, 0, "@253402300800s+0ns")]
        for (seconds, nanos, text) in cases {
            #expect(InspectionJSON.formatTimestamp(Timestamp(seconds: seconds, nanoseconds: nanos)) == text)
        }
    }

    @Test("every Firestore type is marked, map keys sorted, strings escaped")
    func types() {
        let value = Value.map(ObjectValue([
            "b": .bytes([0, 1, 2]), "a": .geoPoint(GeoPoint(latitude: 1, longitude: -2.5)),
            "r": .reference(DatabaseID(projectID: "p"), try! DocumentKey(parsing: "c/d")),
            "s": .string("line\n\"quoted\"\u{1}"), "t": .timestamp(Timestamp(seconds: 0, nanoseconds: 0)),
            "p": .serverTimestamp(localWriteTime: Timestamp(seconds: 60, nanoseconds: 0), previous: .integer(1)),
        ]))
        #expect(InspectionJSON.value(value).render() == #"{"a":{"__geo__":[1.0,-2.5]},"b":{"__bytes__":"AAEC"},"#
            + #""p":{"__serverTimestamp__":{"localWriteTime":"1970-01-01T00:01:00.000000000Z","previous":1}},"#
            + #""r":{"__ref__":"projects/p/databases/(default)/documents/c/d"},"s":"line\n\"quoted\"\u0001","#
            + #""t":{"__timestamp__":"1970-01-01T00:00:00.000000000Z"}}"#)
    }

    @Test("records of unknown kinds and undecodable values are described, not fatal")
    func unknownKinds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let log = try SegmentLog.open(at: directory.path)
        var batch = WriteBatch()
        batch.append(kind: 42, key: Array("future".utf8), value: [1, 2, 3, 4, 5])
        batch.append(kind: 1, key: Array("users/u1".utf8), value: [9, 9])
        try log.commit(batch)
        try log.close()
        let inspector = try CacheInspector.open(at: directory.path)
        defer { inspector.close() }
        var records: [DecodedRecord] = []
        try inspector.forEachRecord { records.append($0) }
        #expect(records.map(\.event) == ["unknown", "remoteDocumentChanged"])
        #expect(records[0].problem?.hasPrefix("unknown kind 42, 5 bytes") == true)
        #expect(records[1].problem?.contains("cannot decode") == true)
        #expect(throws: InspectionError.self) { try inspector.report(threshold: 1) }
    }
}
