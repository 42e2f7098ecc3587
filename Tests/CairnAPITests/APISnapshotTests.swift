import CairnCoreTestSupport
@testable import CairnCore
import CairnModel
import CairnTestSupport
import Foundation
import Testing

@testable import Cairn

@Suite("API query snapshots and document changes")
struct APISnapshotTests {
    private func query(_ env: APITestEnvironment) -> Cairn.Query {
        env.db.collection("c").order(by: "n")
    }

    private func doc(_ id: String, _ n: Int64) -> CairnModel.Document {
        fakeDocument("c/\(id)", ["n": .integer(n)])
    }

    @Test("The first snapshot adds every document at its position, old index NSNotFound")
    func firstSnapshot() throws {
        let env = APITestEnvironment()
        let q = query(env)
        let documents = [doc("a", 1), doc("b", 2), doc("c", 3)]
        let view = ViewSnapshot.testInitial(
            query: try q.state.get(), documents: documents, isFromCache: true,
            mutatedKeys: [documents[1].key], excludesMetadataChanges: true)
        let snapshot = QuerySnapshot(query: q, snapshot: view)
        #expect(snapshot.count == 3 && !snapshot.isEmpty)
        #expect(snapshot.documents.map(\.documentID) == ["a", "b", "c"])
        #expect(snapshot.metadata == SnapshotMetadata(hasPendingWrites: true, isFromCache: true))
        #expect(snapshot.documents.map(\.metadata.hasPendingWrites) == [false, true, false])
        let changes = snapshot.documentChanges
        #expect(changes.map(\.type) == [.added, .added, .added])
        #expect(changes.map(\.newIndex) == [0, 1, 2])
        #expect(changes.allSatisfy { $0.oldIndex == UInt(NSNotFound) })
    }

    @Test("Later snapshots report removed / added / modified with Firebase's indexes; metadata changes on request")
    func laterSnapshot() throws {
        let env = APITestEnvironment()
        let q = query(env)
        let old = [doc("a", 1), doc("b", 2), doc("c", 3)]
        let new = [doc("c", 3), doc("d", 4), doc("b", 5)]
        let view = ViewSnapshot(test: (),
            query: try q.state.get(), documents: new, oldDocuments: old,
            documentChanges: [
                .init(kind: .removed, document: old[0]), .init(kind: .added, document: new[1]),
                .init(kind: .modified, document: new[2]), .init(kind: .metadata, document: new[0]),
            ],
            isFromCache: false, excludesMetadataChanges: false)
        let snapshot = QuerySnapshot(query: q, snapshot: view)
        let changes = snapshot.documentChanges
        #expect(changes.map(\.type) == [.removed, .added, .modified])
        #expect(changes.map(\.oldIndex) == [0, UInt(NSNotFound), 0])
        #expect(changes.map(\.newIndex) == [UInt(NSNotFound), 2, 2])
        let withMetadata = try snapshot.checkedDocumentChanges(includeMetadataChanges: true)
        #expect(withMetadata.count == 4)
        #expect(withMetadata[3].type == .modified && withMetadata[3].oldIndex == 0 && withMetadata[3].newIndex == 0)
    }

    @Test("Asking for metadata changes the listener excluded is Firebase's error")
    func excludedMetadataChanges() throws {
        let env = APITestEnvironment()
        let q = query(env)
        let view = ViewSnapshot.testInitial(
            query: try q.state.get(), documents: [doc("a", 1)], isFromCache: false, mutatedKeys: [],
            excludesMetadataChanges: true)
        let snapshot = QuerySnapshot(query: q, snapshot: view)
        #expect(throws: FirestoreErrorCode.self) { try snapshot.checkedDocumentChanges(includeMetadataChanges: true) }
        #expect(snapshot.documentChanges(includeMetadataChanges: true).count == 1)
    }

    /// Applying a snapshot's changes (remove at old index, insert at new index) to the previous documents gives
    /// the new documents, for random edits of random lists (seeded).
    @Test("Applying the changes' indexes to the previous documents reproduces the new ones", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func changesReplay(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let env = APITestEnvironment()
        let q = query(env)
        let model = try q.state.get()
        for _ in 0..<40 {
            var byID: [String: CairnModel.Document] = [:]
            for i in 0..<random.below(8) { byID["d\(i)"] = doc("d\(i)", Int64(random.below(5))) }
            let old = model.results(from: byID.values)
            var changes: [DocumentViewChange] = []
            var next = byID
            for i in 0..<10 where random.below(3) == 0 {
                let id = "d\(i)"
                if next[id] != nil, random.below(2) == 0 {
                    changes.append(.init(kind: .removed, document: next[id]!))
                    next[id] = nil
                } else {
                    let updated = doc(id, Int64(random.below(5)))
                    changes.append(.init(kind: next[id] == nil ? .added : .modified, document: updated))
                    next[id] = updated
                }
            }
            let new = model.results(from: next.values)
            let ordered = changes.sorted { a, b in
                let rank: (DocumentViewChange.Kind) -> Int = { $0 == .removed ? 0 : $0 == .added ? 1 : 2 }
                if rank(a.kind) != rank(b.kind) { return rank(a.kind) < rank(b.kind) }
                return model.compareDocuments(a.document, b.document) < 0
            }
            let view = ViewSnapshot(test: (),
                query: model, documents: new, oldDocuments: old.isEmpty ? [doc("zz", 99)] : old,
                documentChanges: old.isEmpty ? [.init(kind: .removed, document: doc("zz", 99))] + ordered : ordered,
                isFromCache: false)
            var replay = old.isEmpty ? [doc("zz", 99)] : old
            for change in QuerySnapshot(query: q, snapshot: view).documentChanges {
                if change.oldIndex != UInt(NSNotFound) { replay.remove(at: Int(change.oldIndex)) }
                if change.newIndex != UInt(NSNotFound) {
                    replay.insert(try #require(next[change.document.documentID]), at: Int(change.newIndex))
                }
            }
            #expect(replay.map(\.key) == new.map(\.key))
        }
    }
}

extension ViewSnapshot {
    /// The first snapshot of `documents` (in query order).
    static func testInitial(
        query: CairnModel.Query, documents: [CairnModel.Document], isFromCache: Bool, mutatedKeys: Set<DocumentKey>,
        excludesMetadataChanges: Bool
    ) -> ViewSnapshot {
        .initial(
            query: query, documents: DocumentSet(query: query, documents), mutatedKeys: mutatedKeys,
            isFromCache: isFromCache, excludesMetadataChanges: excludesMetadataChanges, hasCachedResults: false)
    }

    /// A later snapshot with the changes given.
    init(
        test: Void, query: CairnModel.Query, documents: [CairnModel.Document], oldDocuments: [CairnModel.Document],
        documentChanges: [DocumentViewChange], isFromCache: Bool, excludesMetadataChanges: Bool = true
    ) {
        self.init(
            query: query, documents: DocumentSet(query: query, documents),
            oldDocuments: DocumentSet(query: query, oldDocuments), documentChanges: documentChanges,
            isFromCache: isFromCache, mutatedKeys: [], syncStateChanged: false,
            excludesMetadataChanges: excludesMetadataChanges, hasCachedResults: false)
    }
}

extension DocumentSet {
    init(query: CairnModel.Query, _ documents: [CairnModel.Document]) {
        self.init(query: query)
        for document in documents { insert(document) }
    }
}
