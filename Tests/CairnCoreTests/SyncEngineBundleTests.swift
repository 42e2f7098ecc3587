import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
import Testing
@testable import CairnCore

@Suite("Bundles: reading and loading")
struct SyncEngineBundleTests {
    typealias F = CoreFixtures
    static let database = DatabaseID(projectID: "demo")

    /// Frames JSON elements as a bundle: each prefixed with its UTF-8 byte length.
    static func bundle(_ elements: [String]) -> String {
        elements.map { "\($0.utf8.count)\($0)" }.joined()
    }

    static func name(_ path: String) -> String { "projects/demo/databases/(default)/documents/\(path)" }

    static let sample = bundle([
        #"{"metadata":{"id":"b1","createTime":"2024-02-29T12:00:00.5Z","version":1,"totalDocuments":2,"totalBytes":0}}"#,
        #"{"namedQuery":{"name":"open","readTime":"2024-02-29T12:00:00Z","bundledQuery":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"rooms"}],"where":{"fieldFilter":{"field":{"fieldPath":"open"},"op":"EQUAL","value":{"booleanValue":true}}},"orderBy":[{"field":{"fieldPath":"n"},"direction":"DESCENDING"}],"limit":{"value":2}},"limitType":"LAST"}}}"#,
        #"{"documentMetadata":{"name":"\#(name("rooms/a"))","readTime":"2024-02-29T13:00:00+01:00","exists":true,"queries":["open"]}}"#,
        #"{"document":{"name":"\#(name("rooms/a"))","createTime":"1970-01-01T00:00:00.000250Z","updateTime":"1970-01-01T00:00:00.000500000Z","fields":{"open":{"booleanValue":true},"n":{"integerValue":"3"},"tags":{"arrayValue":{"values":[{"stringValue":"x"}]}},"m":{"mapValue":{"fields":{"d":{"doubleValue":1.5}}}}}}}"#,
        #"{"documentMetadata":{"name":"\#(name("rooms/gone"))","readTime":"1970-01-01T00:00:01Z","exists":false}}"#,
    ])

    @Test("a bundle's documents, deletions, times and named queries are read as Firestore encodes them")
    func reading() throws {
        let bundle = try LoadedBundle(parsing: Self.sample, databaseID: Self.database)
        #expect(bundle.id == "b1")
        #expect(bundle.createTime == CairnModel.Timestamp(seconds: 1_709_208_000, nanoseconds: 500_000_000))
        #expect(bundle.documents.count == 2)
        let a = bundle.documents[0]
        #expect(a.key == F.key("rooms/a"))
        #expect(a.version == CairnModel.Timestamp(seconds: 0, nanoseconds: 500_000))
        #expect(a.readTime == CairnModel.Timestamp(seconds: 1_709_208_000, nanoseconds: 0))
        #expect(a.data == ObjectValue([
            "open": .boolean(true), "n": .integer(3), "tags": .array([.string("x")]),
            "m": .map(ObjectValue(["d": .double(1.5)])),
        ]))
        #expect(bundle.documents[1].state == .noDocument)
        #expect(bundle.documents[1].version == CairnModel.Timestamp(seconds: 1, nanoseconds: 0))
        let named = try #require(bundle.namedQueries.first)
        let expected = CairnModel.Query(
            path: ResourcePath(segments: ["rooms"]), collectionGroup: nil,
            filters: [.field(FieldFilter(CairnModel.FieldPath(segments: ["open"]), .equal, .boolean(true)))],
            explicitOrderBy: [OrderBy(CairnModel.FieldPath(segments: ["n"]), descending: true)], limit: 2, limitType: .last,
            startAt: nil, endAt: nil)
        #expect(named.query == expected)
        #expect(bundle.queriesByDocument[F.key("rooms/a")] == ["open"])
    }

    @Test("malformed bundles are rejected with invalidArgument and a message naming the problem")
    func malformed() {
        let cases = [
            "12{\"metadata\"",
            Self.bundle([#"{"document":{}}"#]),
            Self.bundle([
                #"{"metadata":{"id":"b","createTime":"2024-01-01T00:00:00Z"}}"#,
                #"{"document":{"name":"\#(Self.name("rooms/a"))","updateTime":"2024-01-01T00:00:00Z"}}"#,
            ]),
            Self.bundle([
                #"{"metadata":{"id":"b","createTime":"yesterday"}}"#,
            ]),
        ]
        for text in cases {
            #expect {
                try LoadedBundle(parsing: text, databaseID: Self.database)
            } throws: { error in
                (error as? FirestoreErrorCode)?.code == .invalidArgument
                    && (error as? FirestoreErrorCode)?.message.hasPrefix("The bundle is malformed") == true
            }
        }
    }

    @Test("loading a bundle shows its documents to listeners; an older bundle copy never replaces a newer one")
    func loading() throws {
        let harness = SyncEngineHarness()
        let targetID = try harness.listen(F.rooms)
        harness.serverSends([F.document("rooms/gone", version: 5, ["v": .integer(1)])], to: targetID, version: 5)
        let bundle = try LoadedBundle(parsing: Self.sample, databaseID: Self.database)
        var failure: (any Error)?
        harness.run {
            do { try harness.syncEngine.loadBundle(bundle) } catch { failure = error }
        }
        #expect(failure == nil)
        let snapshot = try #require(harness.snapshots.last)
        #expect(snapshot.documents.keys == [F.key("rooms/a"), F.key("rooms/gone")])
        #expect(harness.syncEngine.namedQuery("open")?.query.limit == 2)
    }
}
