import Cairn
import Foundation
import Testing

/// A bundle as a server SDK writes it, built in the test: length-prefixed JSON elements after a metadata element
/// whose totals count the documents and the bytes after it.
struct TestBundle {
    let project: String
    var id = "rooms-bundle"
    var createTime = "2024-03-01T00:00:00Z"
    private var elements: [String] = []
    private var documents = 0

    init(project: String) { self.project = project }

    func name(_ path: String) -> String { "projects/\(project)/databases/(default)/documents/\(path)" }

    /// A named query over a collection: `where` filter JSON (optional), and a `limit` of `limitType`.
    mutating func namedQuery(_ queryName: String, collection: String, whereJSON: String? = nil, limit: Int? = nil, last: Bool = false) {
        var structured = #"{"from":[{"collectionId":"\#(collection)"}]"#
        if let whereJSON { structured += #","where":\#(whereJSON)"# }
        structured += #","orderBy":[{"field":{"fieldPath":"n"},"direction":"ASCENDING"}]"#
        if let limit { structured += #","limit":\#(limit)"# }
        structured += "}"
        elements.append(
            #"{"namedQuery":{"name":"\#(queryName)","readTime":"2024-03-01T00:00:00Z","bundledQuery":{"parent":"projects/\#(project)/databases/(default)/documents","structuredQuery":\#(structured),"limitType":"\#(last ? "LAST" : "FIRST")"}}}"#)
    }

    /// A document with integer field `n` and string field `title`, matching `queries`.
    mutating func document(_ path: String, n: Int, queries: [String]) {
        let names = queries.map { "\"\($0)\"" }.joined(separator: ",")
        elements.append(#"{"documentMetadata":{"name":"\#(name(path))","readTime":"2024-03-01T00:00:00Z","exists":true,"queries":[\#(names)]}}"#)
        elements.append(#"{"document":{"name":"\#(name(path))","createTime":"2024-01-01T00:00:00Z","updateTime":"2024-02-01T00:00:00Z","fields":{"n":{"integerValue":"\#(n)"},"title":{"stringValue":"room \#(n)"}}}}"#)
        documents += 1
    }

    /// The framed elements after the metadata.
    var body: String { elements.map { "\($0.utf8.count)\($0)" }.joined() }

    /// The bytes each document's last element ends at, counted after the metadata (what progress reports).
    var documentEnds: [Int] {
        var ends: [Int] = []
        var offset = 0
        for element in elements {
            offset += "\(element.utf8.count)".utf8.count + element.utf8.count
            if element.hasPrefix(#"{"document":"#) { ends.append(offset) }
        }
        return ends
    }

    var data: Data {
        let body = self.body
        let metadata = #"{"metadata":{"id":"\#(id)","createTime":"\#(createTime)","version":1,"totalDocuments":\#(documents),"totalBytes":\#(body.utf8.count)}}"#
        return Data(("\(metadata.utf8.count)\(metadata)" + body).utf8)
    }

    /// Three rooms; `open` (n > 1, in n order) and `last-two` (limitToLast 2).
    static func rooms(project: String) -> TestBundle {
        var bundle = TestBundle(project: project)
        bundle.namedQuery("open", collection: "rooms", whereJSON: #"{"fieldFilter":{"field":{"fieldPath":"n"},"op":"GREATER_THAN","value":{"integerValue":"1"}}}"#)
        bundle.namedQuery("last-two", collection: "rooms", limit: 2, last: true)
        bundle.document("rooms/a", n: 1, queries: ["last-two"])
        bundle.document("rooms/b", n: 2, queries: ["open", "last-two"])
        bundle.document("rooms/c", n: 3, queries: ["open", "last-two"])
        return bundle
    }
}

/// Runs `body` on the environment's callback queue and returns when it ran (a short wait: the suite is
/// serialized, so at most one thread of the test's pool waits on it).
func onCallbackQueue(of env: EndToEndEnvironment, _ body: () -> Void) {
    env.queue.sync { body() }
}

/// What the observers of a task saw, in order, and the completion's progress and error.
final class BundleProgressLog: @unchecked Sendable {
    let updates = Inbox<LoadBundleTaskProgress>()
    let completion = Inbox<(LoadBundleTaskProgress?, Error?)>()

    /// Starts the load and registers the observer in one turn of the callback queue, so it sees every update
    /// (without blocking a thread of the test's pool).
    func load(_ data: Data, into env: EndToEndEnvironment) async {
        onCallbackQueue(of: env) {
            let task = env.db.loadBundle(data) { progress, error in self.completion.put((progress, error)) }
            task.addObserver { self.updates.put($0) }
        }
    }

    /// The updates up to and including the final one (success or error).
    func untilFinal() async -> [LoadBundleTaskProgress] {
        var seen: [LoadBundleTaskProgress] = []
        while let next = await updates.next() {
            seen.append(next)
            if next.state != .inProgress { break }
        }
        return seen
    }
}

@Suite("End to end: bundles", .serialized)
struct EndToEndBundleTests {
    func project(_ env: EndToEndEnvironment) -> String { env.app.options.projectID ?? "" }

    func ids(_ query: Query) async throws -> [String] {
        try await query.getDocuments(source: .cache).documents.map(\.documentID)
    }

    @Test("observers get the initial progress, one update per document and success; named queries read the bundle from the cache")
    func loadAndQuery() async throws {
        let env = EndToEndEnvironment()
        let bundle = TestBundle.rooms(project: project(env))
        let total = bundle.body.utf8.count
        let log = BundleProgressLog()
        await log.load(bundle.data, into: env)
        let updates = await log.untilFinal()
        var expected: [[Int]] = [[0, 0]]
        for (index, end) in bundle.documentEnds.enumerated() { expected.append([index + 1, end]) }
        expected.append([3, total])
        #expect(updates.map { [$0.documentsLoaded, $0.bytesLoaded] } == expected)
        #expect(updates.map(\.state) == [.inProgress, .inProgress, .inProgress, .inProgress, .success])
        #expect(updates.allSatisfy { $0.totalDocuments == 3 && $0.totalBytes == total })
        let (final, error) = try #require(await log.completion.next())
        #expect(error == nil)
        #expect(final == updates.last)

        let open = try #require(await env.db.getQuery(named: "open"))
        #expect(try await ids(open) == ["b", "c"])
        let lastTwo = try #require(await env.db.getQuery(named: "last-two"))
        #expect(try await ids(lastTwo) == ["b", "c"], "the bundled limitToLast is kept")
        #expect(try await lastTwo.getDocuments(source: .cache).documents.last?.get("title") as? String == "room 3")
        #expect(await env.db.getQuery(named: "closed") == nil)
        let viaCompletion = Inbox<Query?>()
        env.db.getQuery(named: "open") { viaCompletion.put($0) }
        #expect(try #require(await viaCompletion.next()) == open)
        await env.tearDown()
    }

    @Test("after a restart the named queries are still found, and the same bundle loads as already loaded: one success")
    func persistsAcrossRestart() async throws {
        let env = EndToEndEnvironment()
        let bundle = TestBundle.rooms(project: project(env))
        let first = try await env.db.loadBundle(bundle.data)
        #expect(first.state == .success && first.documentsLoaded == 3)

        try await env.restart()
        let open = try #require(await env.db.getQuery(named: "open"), "the named query survived the restart")
        #expect(try await ids(open) == ["b", "c"])
        let log = BundleProgressLog()
        await log.load(bundle.data, into: env)
        let updates = await log.untilFinal()
        #expect(updates == [first], "Firebase reports a loaded bundle with a single success and reads nothing")

        var newer = bundle
        newer.createTime = "2024-04-01T00:00:00Z"
        let relog = BundleProgressLog()
        await relog.load(newer.data, into: env)
        #expect(await relog.untilFinal().count == 5, "a newer copy of the bundle is loaded again")
        await env.tearDown()
    }

    @Test("a memory cache keeps loaded bundles and named queries while the instance lives")
    func memoryCache() async throws {
        let env = EndToEndEnvironment(cache: .memoryEager)
        let bundle = TestBundle.rooms(project: project(env))
        _ = try await env.db.loadBundle(bundle.data)
        let open = try #require(await env.db.getQuery(named: "open"))
        #expect(try await ids(open) == ["b", "c"])
        let again = try await env.db.loadBundle(bundle.data)
        #expect(again.state == .success)
        await env.tearDown()
    }

    @Test(
        "a malformed bundle, or one of another project, fails with invalidArgument naming the problem; the cache stays usable",
        arguments: ["truncated", "other project", "not JSON", "metadata missing"])
    func malformed(kind: String) async throws {
        let env = EndToEndEnvironment()
        let good = TestBundle.rooms(project: project(env))
        let data: Data
        let fragment: String
        switch kind {
        case "truncated":
            data = good.data.dropLast(10)
            fragment = "shorter than its length prefix"
        case "other project":
            data = TestBundle.rooms(project: "someone-else").data
            fragment = "belongs to another database than projects/\(project(env))/databases/(default)"
        case "not JSON":
            data = Data("5{abc}".utf8)
            fragment = "is not a JSON object"
        default:
            data = Data(good.body.utf8)
            fragment = "the first element must be the bundle's metadata"
        }
        let log = BundleProgressLog()
        await log.load(data, into: env)
        let updates = await log.untilFinal()
        #expect(updates.last?.state == .error)
        let (progress, error) = try #require(await log.completion.next())
        #expect(progress?.state == .error)
        #expect(firestoreCode(error) == .invalidArgument)
        #expect((error as? FirestoreErrorCode)?.localizedDescription.contains(fragment) == true, "\(String(describing: error))")
        do {
            _ = try await env.db.loadBundle(data)
            Issue.record("the async form accepted a malformed bundle")
        } catch {
            #expect(firestoreCode(error) == .invalidArgument)
        }

        env.db.collection("notes").document("n").setData(["text": "still works"], completion: nil)
        #expect(try await ids(env.db.collection("notes")) == ["n"])
        #expect(await env.db.getQuery(named: "open") == nil, "nothing of the failed bundle was saved")
        let loaded = try await env.db.loadBundle(good.data)
        #expect(loaded.state == .success)
        await env.tearDown()
    }

    @Test("a bundle read from an InputStream loads; a removed observer hears nothing more, removeAllObservers silences all")
    func streamAndObservers() async throws {
        let env = EndToEndEnvironment()
        let bundle = TestBundle.rooms(project: project(env))
        let kept = Inbox<LoadBundleTaskProgress>()
        let removed = Inbox<LoadBundleTaskProgress>()
        let silenced = Inbox<LoadBundleTaskProgress>()
        onCallbackQueue(of: env) {
            let task = env.db.loadBundle(InputStream(data: bundle.data))
            task.addObserver { kept.put($0) }
            let handle = task.addObserver { removed.put($0) }
            task.removeObserverWith(handle: handle)
            task.removeObserverWith(handle: handle + 100)
            let other = env.db.loadBundle(TestBundle(project: project(env)).data)
            other.addObserver { silenced.put($0) }
            other.removeAllObservers()
        }
        var seen: [LoadBundleTaskProgress] = []
        while let next = await kept.next(), seen.count < 10 {
            seen.append(next)
            if next.state != .inProgress { break }
        }
        #expect(seen.last?.state == .success && seen.count == 5)
        let stream = InputStream(data: bundle.data)
        #expect(try await env.db.loadBundle(stream).state == .success)
        #expect(removed.pending.isEmpty && silenced.pending.isEmpty)
        await env.tearDown()
    }
}
