import CairnCoreTestSupport
import CairnCore
import Foundation
import Testing

@testable import Cairn

/// Code written as it is written for Firebase's Apple SDK (`import FirebaseFirestore`), compiled against Cairn:
/// if a name, label or optionality differed, this file would not compile. The expectations check that the calls
/// do what the Firebase code expects.
@Suite("API porting: Firebase-style code compiles and behaves")
struct APIPortingTests {
    @Test("Configuration, settings and cache settings as Firebase code writes them")
    func configuration() {
        if FirebaseApp.app() == nil {
            let options = FirebaseOptions(googleAppID: "1:123:ios:abc", gcmSenderID: "123")
            options.projectID = "porting-default"
            FirebaseApp.configure(options: options)
        }
        let db = Firestore.firestore()
        #expect(db === Firestore.firestore())
        #expect(db.app.options.projectID == FirebaseApp.app()?.options.projectID)
        let settings = FirestoreSettings()
        settings.cacheSettings = PersistentCacheSettings(sizeBytes: 100 * 1024 * 1024 as NSNumber)
        settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryLRUGCSettings())
        settings.cacheSettings = MemoryCacheSettings(garbageCollectorSettings: MemoryEagerGCSetting())
        settings.cacheSettings = PersistentCacheSettings(sizeBytes: FirestoreCacheSizeUnlimited as NSNumber)
        settings.dispatchQueue = DispatchQueue(label: "porting")
        #expect((settings.cacheSettings as? PersistentCacheSettings)?.sizeBytes == -1)
        #expect(settings.host == "firestore.googleapis.com" && settings.isSSLEnabled)
    }

    @Test("Completion-handler writes, reads and listeners in Firebase's shapes")
    func completionHandlers() {
        let env = APITestEnvironment(manualWorker: true)
        let errors = Recorder<String>()
        let (ref, listener) = port(env.db, errors)
        env.settle()
        #expect(env.server.watches == 1)
        listener.remove()
        env.settle()
        #expect(ref != nil)
        #expect(errors.values == [""])
        #expect(env.server.writes.count == 5)
    }

    /// Firebase's completion-handler calls, as ported code makes them (synchronous, so that the completion
    /// forms are chosen); returns the added document's reference and the listener.
    private func port(_ db: Firestore, _ errors: Recorder<String>) -> (DocumentReference?, ListenerRegistration) {
        db.collection("cities").document("SF").setData([
            "name": "San Francisco", "population": 860_000, "regions": ["west_coast", "norcal"],
            "updated": FieldValue.serverTimestamp(),
        ]) { err in
            if let err = err { errors.append("set: \(err)") }
        }
        db.collection("cities").document("SF").setData(["capital": false], merge: true)
        db.collection("cities").document("SF").updateData([
            "population": FieldValue.increment(Int64(1)), "regions": FieldValue.arrayUnion(["bay_area"]),
            "old": FieldValue.delete(),
        ]) { err in
            if let err = err as NSError? { errors.append("update: \(err.code)") }
        }
        db.collection("cities").document("LA").delete()
        var ref: DocumentReference? = nil
        ref = db.collection("cities").addDocument(data: ["name": "Tokyo"]) { err in
            if err == nil { errors.append("") }
        }
        let listener = db.collection("cities").whereField("state", isEqualTo: "CA")
            .addSnapshotListener { querySnapshot, error in
                guard let documents = querySnapshot?.documents else {
                    errors.append("listen: \(error!.localizedDescription)")
                    return
                }
                for document in documents { _ = document.data()["name"] as? String }
                for diff in querySnapshot!.documentChanges {
                    switch diff.type {
                    case .added, .modified, .removed: break
                    }
                }
            }
        return (ref, listener)
    }

    @Test("Errors bridge to NSError in Firestore's domain with Firebase's codes")
    func errorBridging() async throws {
        let env = APITestEnvironment()
        do {
            _ = try await env.db.document("a/b").getDocument(source: .cache)
            Issue.record("an unknown document was read from the cache")
        } catch {
            let nsError = error as NSError
            #expect(nsError.domain == FirestoreErrorDomain)
            #expect(nsError.code == FirestoreErrorCode.unavailable.rawValue)
            #expect((error as? FirestoreErrorCode)?.code == .unavailable)
        }
    }
}
