import CairnCoreTestSupport
import CairnCore
import CairnModel
import Foundation
import CairnLocalStore
import Synchronization
import Testing

@testable import Cairn

/// The public API on the real core over a scripted backend that acknowledges every write and echoes it on the
/// watch stream: as in Firebase, a document keeps `hasPendingWrites` until the watch stream confirms the
/// acknowledged write, and that change of metadata only reaches listeners that asked for metadata changes.
@Suite("End to end: acknowledged writes")
struct EndToEndAcknowledgedWritesTests {

    @Test("An acknowledgement raises a metadata-only event only with includeMetadataChanges")
    func metadataOnlyEvents() async throws {
        let env = EndToEndEnvironment(prefix: "e2e-ack", datastore: AcknowledgingDatastore.provider())
        let withMetadata = Inbox<QuerySnapshot>()
        let withoutMetadata = Inbox<QuerySnapshot>()
        let cities = env.db.collection("cities")
        let first = cities.addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
            if let snapshot { withMetadata.put(snapshot) }
        }
        let second = cities.addSnapshotListener { snapshot, _ in
            if let snapshot { withoutMetadata.put(snapshot) }
        }
        let synced = try #require(await withMetadata.next())
        #expect(synced.isEmpty && !synced.metadata.isFromCache, "the watch stream made the query current")
        #expect(await withoutMetadata.next()?.metadata.isFromCache == false)

        cities.document("SF").setData(["name": "San Francisco"], completion: nil)
        let local = try #require(await withMetadata.next())
        #expect(local.metadata.hasPendingWrites && local.documents.map(\.documentID) == ["SF"])
        #expect(await withoutMetadata.next()?.metadata.hasPendingWrites == true)

        try await env.db.waitForPendingWrites()
        let acknowledged = try #require(await withMetadata.next())
        #expect(acknowledged.documents.map(\.documentID) == ["SF"])
        #expect(!acknowledged.metadata.hasPendingWrites)
        #expect(acknowledged.documents.first?.metadata.hasPendingWrites == false)
        #expect(acknowledged.documentChanges.isEmpty, "without metadata changes the event has no change")
        let metadataChanges = acknowledged.documentChanges(includeMetadataChanges: true)
        #expect(metadataChanges.map(\.type) == [.modified])
        #expect(metadataChanges.map(\.oldIndex) == [0] && metadataChanges.map(\.newIndex) == [0])

        cities.document("LA").setData(["name": "Los Angeles"], completion: nil)
        let next = try #require(await withoutMetadata.next())
        #expect(next.documentChanges.map(\.document.documentID) == ["LA"], "the acknowledgement raised nothing here")
        #expect(await withMetadata.next()?.documents.map(\.documentID) == ["LA", "SF"])
        first.remove()
        second.remove()
        await env.tearDown()
    }

    @Test("MemoryCacheSettings() keeps an acknowledged document for getDocument(source: .cache), as Firebase's LRU default; eager GC drops it")
    func memoryCacheDefaultKeepsAcknowledgedDocuments() async throws {
        for (cache, keeps) in [(EndToEndEnvironment.Cache.memoryDefault, true), (.memoryEager, false)] {
            let env = EndToEndEnvironment(cache: cache, prefix: "e2e-memory", datastore: AcknowledgingDatastore.provider())
            let ref = env.db.collection("cities").document("SF")
            try await ref.setData(["name": "San Francisco"])
            do {
                let cached = try await ref.getDocument(source: .cache)
                #expect(keeps, "eager GC kept a document nothing needs")
                #expect(cached.data()?["name"] as? String == "San Francisco")
                #expect(!cached.metadata.hasPendingWrites)
            } catch {
                #expect(!keeps, "MemoryCacheSettings() dropped the acknowledged document: \(error)")
                #expect(firestoreCode(error) == .unavailable)
            }
            await env.tearDown()
        }
    }

    @Test("A transaction reads through the core's lookup and commits its write with the read's precondition")
    func transactionCommits() async throws {
        let made = Mutex<AcknowledgingDatastore?>(nil)
        let env = EndToEndEnvironment(
            prefix: "e2e-ack", datastore: AcknowledgingDatastore.provider { datastore in made.withLock { $0 = datastore } })
        let reference = env.db.collection("counters").document("c")
        let result = try await env.db.runTransaction { transaction, errorPointer in
            do {
                let snapshot = try transaction.getDocument(reference)
                transaction.setData(["n": snapshot.exists ? 2 : 1], forDocument: reference)
                return snapshot.exists ? "found" : "created"
            } catch {
                errorPointer?.pointee = error as NSError
                return nil
            }
        }
        #expect(result as? String == "created")
        let datastore = try #require(made.withLock { $0 })
        let committed = try #require(datastore.commits.first)
        #expect(datastore.commits.count == 1 && committed.count == 1)
        #expect(committed.first?.key == (try DocumentKey(parsing: "counters/c")))
        #expect(committed.first?.precondition == .exists(false), "the document was read as missing")
        await env.tearDown()
    }
}
