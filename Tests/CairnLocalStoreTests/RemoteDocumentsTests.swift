import CairnModel
import CairnTestSupport
import Foundation
import SegmentLog
import Testing
@testable import CairnLocalStore

/// The shared seeded generator, for every randomized suite of this target.
typealias SeededRandom = CairnTestSupport.SeededRandom

func key(_ path: String) -> DocumentKey { try! DocumentKey(parsing: path) }
func time(_ seconds: Int64) -> Timestamp { Timestamp(seconds: seconds, nanoseconds: 0) }

func found(_ path: String, version: Int64, _ fields: [String: Value]) -> Document {
    Document(key: key(path), state: .found, version: time(version), readTime: time(version), data: ObjectValue(fields))
}

func smallLog(_ fs: SimulatedFileSystem) -> SegmentLog.Configuration {
    var configuration = SegmentLog.Configuration()
    configuration.fileSystem = fs
    configuration.frameTargetSize = 1024
    configuration.segmentTargetSize = 8192
    configuration.preallocationSize = 0
    return configuration
}

@Suite("Remote documents")
struct RemoteDocumentsTests {
    @Test("documents survive a restart with their versions and contents, in persistent mode")
    func restart() throws {
        let fs = SimulatedFileSystem()
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            try store.applyRemoteDocuments([
                found("rooms/a", version: 1, ["name": .string("A"), "size": .integer(3)]),
                found("rooms/b", version: 2, ["name": .string("B"), "size": .integer(5)]),
                Document(key: key("rooms/gone"), state: .noDocument, version: time(4)),
            ])
            try store.applyRemoteDocuments([found("rooms/a", version: 3, ["name": .string("A2"), "size": .integer(4)])])
            try store.close()
        }
        let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(store.documentCount == 2)
        let a = try #require(try store.remoteDocument(key("rooms/a")))
        #expect(a.data.fields["name"] == .string("A2") && a.version == time(3))
        let gone = try #require(try store.remoteDocument(key("rooms/gone")))
        #expect(gone.state == .noDocument && !gone.exists)
        #expect(try store.remoteDocument(key("rooms/never")) == nil)
        try store.close()
    }

    @Test("an older version never replaces a newer one; an acknowledged write's version yields to the server's")
    func versionRules() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments([found("rooms/a", version: 5, ["v": .integer(5)])])
        #expect(try store.applyRemoteDocuments([found("rooms/a", version: 4, ["v": .integer(4)])]).isEmpty)
        #expect(try store.remoteDocument(key("rooms/a"))?.data.fields["v"] == .integer(5))
        var committed = found("rooms/b", version: 7, ["v": .string("local")])
        committed.hasCommittedMutations = true
        try store.applyRemoteDocuments([committed])
        try store.applyRemoteDocuments([found("rooms/b", version: 7, ["v": .string("server")])])
        #expect(try store.remoteDocument(key("rooms/b"))?.data.fields["v"] == .string("server"))
    }

    @Test("a collection query scans only its collection; a collection-group query every collection of the group")
    func queries() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments([
            found("rooms/a", version: 1, ["size": .integer(3)]),
            found("rooms/b", version: 1, ["size": .integer(9)]),
            found("rooms/a/messages/m1", version: 1, ["size": .integer(1)]),
            found("rooms/b/messages/m2", version: 1, ["size": .integer(7)]),
            found("halls/h/messages/m3", version: 1, ["size": .integer(5)]),
        ])
        let big = try Query(path: ResourcePath(parsing: "rooms"))
            .filtered(by: .field(FieldFilter(FieldPath(["size"]), .greaterThan, .integer(2))))
        #expect(try store.executeQuery(big).map(\.key) == [key("rooms/a"), key("rooms/b")])
        let messages = try Query(path: .root, collectionGroup: "messages")
            .ordered(by: OrderBy(FieldPath(["size"]), descending: true))
            .limited(to: 2)
        #expect(try store.executeQuery(messages).map(\.key) == [key("rooms/b/messages/m2"), key("halls/h/messages/m3")])
    }

    @Test("evicted documents are gone, and stay gone after a restart and after compaction")
    func eviction() throws {
        let fs = SimulatedFileSystem()
        var expected: Set<DocumentKey> = []
        do {
            let store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
            for i in 0..<200 {
                let document = found("items/i\(i)", version: Int64(i + 1), ["payload": .string(String(repeating: "x", count: 200))])
                try store.applyRemoteDocuments([document])
                expected.insert(document.key)
            }
            let evicted = (0..<200).filter { $0 % 3 == 0 }.map { key("items/i\($0)") }
            try store.evictDocuments(evicted)
            expected.subtract(evicted)
            try store.close()
        }
        let reopened = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        let all = try reopened.executeQuery(Query(path: ResourcePath(parsing: "items")))
        #expect(Set(all.map(\.key)) == expected)
        try reopened.close()
        // Compact every sealed segment with the log's own retirements: the evictions keep working.
        let log = try SegmentLog.open(at: "/cache", configuration: smallLog(fs))
        var latest: [String: RecordLocation] = [:]
        try log.scan { record in
            let name = String(decoding: record.key, as: UTF8.self)
            if let old = latest[name] { log.retire(old) }
            latest[name] = record.location
        }
        let victims = log.compactionCandidates(minimumDeadRatio: 0.01)
        #expect(!victims.isEmpty, "superseded documents make sealed segments dirty")
        let compaction = try log.makeCompaction(of: victims) { latest[String(decoding: $0.key, as: UTF8.self)] == $0.location }
        while try compaction.step() == nil {}
        try log.close()
        let again = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        #expect(Set(try again.executeQuery(Query(path: ResourcePath(parsing: "items"))).map(\.key)) == expected)
        try again.close()
    }

    @Test("a log event of an unknown kind is refused with dataLoss, not skipped")
    func unknownEvent() throws {
        let fs = SimulatedFileSystem()
        let log = try SegmentLog.open(at: "/cache", configuration: smallLog(fs))
        try log.append(kind: 200, key: [1], value: [])
        try log.close()
        #expect(throws: LocalStoreError.self) { try LocalStore.open(at: "/cache", configuration: smallLog(fs)) }
    }
}

@Suite("Remote documents, edge cases")
struct RemoteDocumentEdgeCaseTests: MutationQueueTesting {
    @Test("when one call holds several versions of a document, the newest wins whatever the order")
    func newestInOneCall() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments([found("rooms/a", version: 5, ["v": .integer(5)]), found("rooms/a", version: 2, ["v": .integer(2)])])
        #expect(try store.remoteDocument(key("rooms/a"))?.data.fields["v"] == .integer(5))
    }

    @Test("a noDocument at version 0 (lost access) removes the document instead of storing a tombstone")
    func lostAccess() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments([found("rooms/a", version: 5, ["v": .integer(5)])])
        let lost = Document(key: key("rooms/a"), state: .noDocument, version: time(0))
        #expect(try store.applyRemoteDocuments([lost]) == [key("rooms/a")])
        #expect(try store.remoteDocument(key("rooms/a")) == nil)
        #expect(try store.applyRemoteDocuments([Document(key: key("rooms/b"), state: .noDocument, version: time(0))]).isEmpty)
        #expect(try store.remoteDocument(key("rooms/b")) == nil)
    }

    @Test("evicting a document under a pending write gives the same local view before and after a restart")
    func evictionUnderPendingWrite() throws {
        let cache = try RestartableStore(.persistent)
        try cache.store.applyRemoteDocuments([found("rooms/x", version: 1, ["a": .integer(1), "b": .integer(2)])])
        _ = try cache.store.writeLocally([updateData("rooms/x", ["a": .integer(5)])], localWriteTime: time(10))
        try cache.store.evictDocuments([key("rooms/x")])
        let before = describe(try cache.store.localDocument(key("rooms/x")))
        try cache.restart()
        #expect(describe(try cache.store.localDocument(key("rooms/x"))) == before)
    }

    @Test("writes the model would trap on are refused with invalidArgument")
    func invalidWrites() throws {
        let store = LocalStore.inMemory()
        let badIncrement = Mutation.set(
            key("rooms/a"), value: ObjectValue(), transforms: [FieldTransform(field: path("n"), operation: .increment(.string("a")))])
        expectError(.invalidArgument) { try store.writeLocally([badIncrement], localWriteTime: time(1)) }
        let tooMany = (0..<501).map { setData("rooms/r\($0)", [:]) }
        expectError(.invalidArgument) { try store.writeLocally(tooMany, localWriteTime: time(1)) }
        #expect(store.pendingBatchIDs.isEmpty)
    }
}

@Suite("Local write results")
struct LocalWriteResultTests: MutationQueueTesting {
    @Test("the documents writeLocally returns are the local views a read returns afterwards")
    func returnedViewsMatchReads() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments([found("rooms/a", version: 1, ["n": .integer(1), "s": .string("x")])])
        let writes: [[Mutation]] = [
            [updateData("rooms/a", ["n": .integer(2)])],
            [mergeData("rooms/b", ["m": .integer(1)], transforms: [increment("c", by: .integer(3))])],
            [setData("rooms/c", ["k": .string("v")], transforms: [serverTimestamp("at")]), updateData("rooms/a", ["s": .string("y")])],
            [updateData("rooms/missing", ["q": .integer(1)])],
            [.delete(key("rooms/c"))],
        ]
        for (i, batch) in writes.enumerated() {
            let (_, changed) = try store.writeLocally(batch, localWriteTime: time(Int64(10 + i)))
            for (key, document) in changed {
                #expect(describe(document) == describe(try store.localDocument(key)), "write \(i), \(key)")
            }
        }
    }
}

@Suite("User switch")
struct UserSwitchTests: MutationQueueTesting {
    @Test("switching users returns the documents whose local view changed, as the new user sees them")
    func changedViews() throws {
        let store = LocalStore.inMemory()
        try store.applyRemoteDocuments([found("rooms/a", version: 1, ["n": .integer(1)])])
        try store.writeLocally([updateData("rooms/a", ["n": .integer(2)])], localWriteTime: time(5))
        let toAda = try store.switchUser(to: "ada")
        #expect(Set(toAda.keys) == keySet("rooms/a"))
        #expect(toAda[key("rooms/a")]??.data.fields["n"] == .integer(1), "ada does not see the other user's write")
        try store.writeLocally([setData("rooms/b", ["m": .integer(1)])], localWriteTime: time(6))
        let back = try store.switchUser(to: "")
        #expect(Set(back.keys) == keySet("rooms/a", "rooms/b"))
        #expect(back[key("rooms/a")]??.data.fields["n"] == .integer(2))
        #expect(back[key("rooms/b")]! == nil, "ada's new document is not in the anonymous user's view")
    }
}

/// Documents as a remote event holds them: by key.
func byKey(_ documents: [Document]) -> [DocumentKey: Document] {
    Dictionary(documents.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
}
