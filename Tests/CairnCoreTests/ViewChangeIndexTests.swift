import CairnCoreTestSupport
import CairnModel
import Testing
@testable import CairnCore

@Suite("ViewSnapshot: document change indexes and change merging")
struct ViewChangeIndexTests {
    typealias F = CoreFixtures

    @Test("the first snapshot adds at 0, 1, 2 with no old index")
    func initialIndexes() throws {
        let view = View(query: F.roomsByN(), remoteKeys: [])
        let docs = (1...3).map { F.document("rooms/d\($0)", ["n": .integer(Int64($0))]) }
        let snapshot = try #require(view.applyChanges(view.computeDocumentChanges(F.keyed(docs[2], docs[0], docs[1]))).snapshot)
        let changes = snapshot.indexedChanges(includeMetadataChanges: false)
        #expect(changes.map(\.oldIndex) == [-1, -1, -1])
        #expect(changes.map(\.newIndex) == [0, 1, 2])
        #expect(changes.map(\.document.key) == docs.map(\.key))
    }

    @Test("later changes are indexed against the result as each change is applied")
    func incrementalIndexes() throws {
        let view = View(query: F.roomsByN(), remoteKeys: [])
        let docs = (1...3).map { F.document("rooms/d\($0)", ["n": .integer(Int64($0 * 10))]) }
        _ = view.applyChanges(view.computeDocumentChanges(F.keyed(docs[0], docs[1], docs[2])))
        // d1 leaves, d0 (n 5) arrives first, d3 moves from the end to between d0 and d2.
        var changed = F.deleted("rooms/d1")
        changed.updateValue(F.document("rooms/d0", ["n": .integer(5)]), forKey: F.key("rooms/d0"))
        changed.updateValue(F.document("rooms/d3", ["n": .integer(7)]), forKey: F.key("rooms/d3"))
        let snapshot = try #require(view.applyChanges(view.computeDocumentChanges(changed)).snapshot)
        let changes = snapshot.indexedChanges(includeMetadataChanges: false)
        #expect(changes.map(\.kind) == [.removed, .added, .modified])
        #expect(changes.map(\.oldIndex) == [0, -1, 2])
        #expect(changes.map(\.newIndex) == [-1, 0, 1])
    }

    @Test("metadata-only changes appear as modifications only when asked for")
    func metadataChanges() throws {
        let view = View(query: F.rooms, remoteKeys: [])
        _ = view.applyChanges(view.computeDocumentChanges(F.keyed(F.document("rooms/a", local: true), F.document("rooms/b"))))
        let snapshot = try #require(view.applyChanges(view.computeDocumentChanges(F.keyed(F.document("rooms/a")))).snapshot)
        #expect(snapshot.indexedChanges(includeMetadataChanges: false).isEmpty)
        let withMetadata = snapshot.indexedChanges(includeMetadataChanges: true)
        #expect(withMetadata.map(\.kind) == [.modified])
        #expect(withMetadata.map(\.oldIndex) == [0])
        #expect(withMetadata.map(\.newIndex) == [0])
    }

    @Test("changes to one document merge as Firebase's change set says")
    func mergeRules() {
        let a = F.document("rooms/a")
        func merged(_ kinds: DocumentViewChange.Kind...) -> DocumentViewChange.Kind? {
            var set = DocumentViewChangeSet()
            for kind in kinds { set.add(DocumentViewChange(kind: kind, document: a)) }
            return set.all.first?.kind
        }
        #expect(merged(.added, .modified) == .added)
        #expect(merged(.added, .removed) == nil)
        #expect(merged(.removed, .added) == .modified)
        #expect(merged(.modified, .removed) == .removed)
        #expect(merged(.metadata, .modified) == .modified)
        #expect(merged(.added, .metadata) == .added)
    }
}
