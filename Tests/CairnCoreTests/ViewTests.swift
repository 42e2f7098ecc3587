import CairnCoreTestSupport
import CairnModel
import Testing
@testable import CairnCore

@Suite("View: document changes, sync state and limbo")
struct ViewTests {
    typealias F = CoreFixtures

    @Test("the first computation adds every matching document in query order and is from the cache")
    func firstSnapshot() throws {
        let view = View(query: F.roomsByN(), remoteKeys: [])
        let changes = view.computeDocumentChanges(
            F.keyed(F.document("rooms/b", ["n": .integer(1)]), F.document("rooms/a", ["n": .integer(2)]),
                    F.document("rooms/c")))
        let snapshot = try #require(view.applyChanges(changes).snapshot)
        #expect(snapshot.documents.documents.map(\.key) == [F.key("rooms/b"), F.key("rooms/a")])
        #expect(snapshot.documentChanges.map(\.kind) == [.added, .added])
        #expect(snapshot.isFromCache)
        #expect(snapshot.syncStateChanged)
    }

    @Test("a current target confirming every document makes the view synced; an unconfirmed one goes to limbo")
    func limboAndSync() throws {
        let view = View(query: F.rooms, remoteKeys: [])
        let a = F.document("rooms/a")
        let b = F.document("rooms/b")
        _ = view.applyChanges(view.computeDocumentChanges(F.keyed(a, b)))
        let result = view.applyChanges(
            view.computeDocumentChanges([:]), targetUpdate: ViewTargetUpdate(current: true, added: [a.key]))
        #expect(result.limboChanges == [LimboDocumentChange(kind: .added, key: b.key)])
        #expect(result.snapshot == nil)
        let resolved = view.applyChanges(
            view.computeDocumentChanges([:]), targetUpdate: ViewTargetUpdate(current: true, added: [b.key]))
        #expect(resolved.limboChanges == [LimboDocumentChange(kind: .removed, key: b.key)])
        let snapshot = try #require(resolved.snapshot)
        #expect(!snapshot.isFromCache)
        #expect(snapshot.documentChanges.isEmpty)
    }

    @Test("an acknowledged write is a metadata change; new contents are a modification")
    func metadataAndModification() throws {
        let view = View(query: F.rooms, remoteKeys: [])
        _ = view.applyChanges(view.computeDocumentChanges(F.keyed(F.document("rooms/a", ["n": .integer(1)], local: true))))
        #expect(view.mutatedKeys == [F.key("rooms/a")])
        let acked = view.applyChanges(view.computeDocumentChanges(F.keyed(F.document("rooms/a", ["n": .integer(1)]))))
        #expect(try #require(acked.snapshot).documentChanges.map(\.kind) == [.metadata])
        #expect(view.mutatedKeys.isEmpty)
        let modified = view.applyChanges(view.computeDocumentChanges(F.keyed(F.document("rooms/a", ["n": .integer(2)]))))
        #expect(try #require(modified.snapshot).documentChanges.map(\.kind) == [.modified])
    }

    @Test("the local version stays until the server's echo replaces an acknowledged write")
    func waitsForSyncedDocument() {
        let view = View(query: F.rooms, remoteKeys: [])
        _ = view.applyChanges(view.computeDocumentChanges(F.keyed(F.document("rooms/a", ["n": .integer(1)], local: true))))
        let committed = F.document("rooms/a", version: 2, ["n": .integer(5)], committed: true)
        let result = view.applyChanges(view.computeDocumentChanges(F.keyed(committed)))
        #expect(result.snapshot == nil)
        #expect(view.documents.document(F.key("rooms/a"))?.data == ObjectValue(["n": .integer(1)]))
    }

    @Test("a limit query drops what passes the limit and asks for a refill when its edge leaves")
    func limitRules() throws {
        let view = View(query: F.roomsByN(limit: 2), remoteKeys: [])
        let docs = (1...3).map { F.document("rooms/d\($0)", ["n": .integer(Int64($0))]) }
        let first = view.computeDocumentChanges(F.keyed(docs[0], docs[1], docs[2]))
        #expect(first.documents.documents.map(\.key) == [docs[0].key, docs[1].key])
        #expect(!first.needsRefill)
        _ = view.applyChanges(first)
        let removal = view.computeDocumentChanges(F.deleted("rooms/d1"))
        #expect(removal.needsRefill)
        let refilled = view.computeDocumentChanges(F.keyed(docs[1], docs[2]), previous: removal)
        #expect(!refilled.needsRefill)
        let snapshot = try #require(view.applyChanges(refilled).snapshot)
        #expect(snapshot.documents.documents.map(\.key) == [docs[1].key, docs[2].key])
        #expect(snapshot.documentChanges.map(\.kind) == [.removed, .added])
    }

    @Test("limitToLast keeps the last documents in query order")
    func limitToLast() {
        let view = View(query: F.roomsByN(limit: 2, type: .last), remoteKeys: [])
        let docs = (1...3).map { F.document("rooms/d\($0)", ["n": .integer(Int64($0))]) }
        let changes = view.computeDocumentChanges(F.keyed(docs[0], docs[1], docs[2]))
        #expect(changes.documents.documents.map(\.key) == [docs[1].key, docs[2].key])
    }

    @Test("going offline turns a synced view into a from-cache one")
    func offline() throws {
        let view = View(query: F.rooms, remoteKeys: [])
        let a = F.document("rooms/a")
        _ = view.applyChanges(view.computeDocumentChanges(F.keyed(a)), targetUpdate: ViewTargetUpdate(current: true, added: [a.key]))
        #expect(view.syncState == .synced)
        let snapshot = try #require(view.applyOnlineStateChange(.offline).snapshot)
        #expect(snapshot.isFromCache)
        #expect(snapshot.syncStateChanged)
        #expect(view.applyOnlineStateChange(.offline).snapshot == nil)
    }
}
