import CairnCoreTestSupport
import CairnModel
import CairnLocalStore
import Foundation
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

    /// A bundle of `elements` after a metadata element whose totals are right: the document count given and the
    /// bytes of the framed elements.
    static func framed(id: String = "b2", created: String = "2024-03-01T00:00:00Z", documents: Int, _ elements: [String]) -> (text: String, offsets: [Int]) {
        var offsets: [Int] = []
        var body = ""
        for element in elements {
            body += "\(element.utf8.count)\(element)"
            offsets.append(body.utf8.count)
        }
        let metadata = #"{"metadata":{"id":"\#(id)","createTime":"\#(created)","version":1,"totalDocuments":\#(documents),"totalBytes":"\#(body.utf8.count)"}}"#
        return (bundle([metadata]) + body, offsets)
    }

    static let streamed = framed(documents: 3, [
        #"{"namedQuery":{"name":"all","readTime":{"seconds":"1709251200","nanos":5},"bundledQuery":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"rooms"}]}}}}"#,
        #"{"documentMetadata":{"name":"\#(name("rooms/a"))","readTime":"2024-03-01T00:00:00Z","exists":true,"queries":["all"]}}"#,
        #"{"document":{"name":"\#(name("rooms/a"))","updateTime":"2024-02-01T00:00:00Z","fields":{"n":{"integerValue":"1"}}}}"#,
        #"{"documentMetadata":{"name":"\#(name("rooms/b"))","readTime":"2024-03-01T00:00:00Z","exists":true,"queries":["all"]}}"#,
        #"{"document":{"name":"\#(name("rooms/b"))","updateTime":"2024-02-01T00:00:00Z","fields":{"n":{"integerValue":"2"}}}}"#,
        #"{"documentMetadata":{"name":"\#(name("rooms/gone"))","readTime":"2024-03-01T00:00:00Z","exists":false}}"#,
    ])

    /// Loads `text` through a stream as the client does; returns the updates and the final progress or error.
    static func stream(_ text: String, into harness: SyncEngineHarness) -> (updates: [BundleLoadProgress], result: Result<BundleLoadProgress, FirestoreErrorCode>) {
        let reader = BundleReader(InputStream(data: Data(text.utf8)), databaseID: database)
        var updates: [BundleLoadProgress] = []
        var result: Result<BundleLoadProgress, FirestoreErrorCode> = .failure(FirestoreErrorCode(.unknown, "not run"))
        harness.run {
            do throws(FirestoreErrorCode) {
                result = .success(try harness.syncEngine.loadBundle(from: reader) { updates.append($0) })
            } catch {
                result = .failure(error)
            }
        }
        return (updates, result)
    }

    /// The sync engine's named query, read on its queue.
    static func namedQuery(_ name: String, in harness: SyncEngineHarness) -> NamedQuery? {
        var named: NamedQuery?
        harness.run { named = harness.syncEngine.namedQuery(name) }
        return named
    }

    @Test("a streamed bundle reports the initial progress, one update per document with the bytes read, then success")
    func streamedProgress() throws {
        let harness = SyncEngineHarness()
        let (updates, result) = Self.stream(Self.streamed.text, into: harness)
        let offsets = Self.streamed.offsets
        let total = try #require(offsets.last)
        func progress(_ documents: Int, _ bytes: Int) -> BundleLoadProgress {
            BundleLoadProgress(documentsLoaded: documents, totalDocuments: 3, bytesLoaded: bytes, totalBytes: total, state: .inProgress)
        }
        #expect(updates == [progress(0, 0), progress(1, offsets[2]), progress(2, offsets[4]), progress(3, offsets[5])])
        #expect(try result.get() == BundleLoadProgress(
            documentsLoaded: 3, totalDocuments: 3, bytesLoaded: total, totalBytes: total, state: .success))
        #expect(harness.localStore.bundleMetadata("b2")?.totalBytes == total)
        let named = try #require(Self.namedQuery("all", in: harness))
        #expect(named.readTime == CairnModel.Timestamp(seconds: 1_709_251_200, nanoseconds: 5))
        #expect(try harness.localStore.executeLocalQuery(named.query).map(\.key) == [F.key("rooms/a"), F.key("rooms/b")])

        let again = Self.stream(Self.streamed.text, into: harness)
        #expect(again.updates.isEmpty, "a bundle loaded before is not read again")
        #expect(try again.result.get().state == .success)
    }

    @Test("a bundle whose document count differs from its metadata's fails with invalidArgument and applies nothing")
    func countMismatch() throws {
        let harness = SyncEngineHarness()
        let short = Self.framed(id: "short", documents: 4, [
            #"{"documentMetadata":{"name":"\#(Self.name("rooms/a"))","readTime":"2024-03-01T00:00:00Z","exists":true}}"#,
            #"{"document":{"name":"\#(Self.name("rooms/a"))","updateTime":"2024-02-01T00:00:00Z","fields":{}}}"#,
        ])
        let (updates, result) = Self.stream(short.text, into: harness)
        #expect(updates.map(\.documentsLoaded) == [0, 1])
        #expect(throws: FirestoreErrorCode.self) { try result.get() }
        if case .failure(let error) = result {
            #expect(error.code == .invalidArgument && error.message.contains("holds 1 document(s) but its metadata announces 4"), "\(error.message)")
        }
        #expect(harness.localStore.bundleMetadata("short") == nil)
        #expect(try harness.localStore.executeLocalQuery(F.rooms).isEmpty)
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
        #expect(Self.namedQuery("open", in: harness)?.query.limit == 2)
    }
}
