import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Foundation
import Synchronization
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// `VectorValue` against the official Firestore emulator: stored as the server stores vectors, ordered as the
    /// server orders them, kept by the persistent cache, and read by the official Python client as its `Vector`.
    @Suite("End to end: vector values", .serialized)
    struct EndToEndVectorTests {
        /// Values of `v` in the order Firestore sorts them: a number, an array, vectors (shorter first, then by
        /// element), a map. (The server refuses an empty vector, and so does Cairn's write validation.)
        static var ordered: [(id: String, value: Any)] {[
            ("number", 5),
            ("array", [100.0, 100.0, 100.0]),
            ("short", VectorValue([9])),
            ("pair", VectorValue([1, 2])),
            ("pair2", VectorValue([1, 3])),
            ("long", VectorValue([-5, 0, 0])),
            ("map", ["a": 1]),
        ]}

        @Test("order(by:) on a vector field: the emulator's order and the local cache's order agree", .enabled(if: EmulatorGate.shouldRun, EmulatorGate.skipReason))
        func serverAndCacheOrderAgree() async throws {
            let project = "cairn-vector-order"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let app = EmulatorApp(project: project, emulator: try await FirestoreEmulator.shared())
            let items = app.db.collection("items")
            // Keeps the documents in the eager cache, and tells when the client is online (a .server get needs it).
            let synced = Mutex(false)
            let registration = items.addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
                if let snapshot { synced.withLock { $0 = !snapshot.metadata.isFromCache } }
            }
            for (id, value) in Self.ordered.reversed() { items.document(id).setData(["v": value], completion: nil) }
            try await withHangGuard("waitForPendingWrites") { try await app.db.waitForPendingWrites() }
            try await withHangGuard("the listener in sync with the server") {
                while !synced.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
            }

            let expected = Self.ordered.map(\.id)
            let server = try await withHangGuard("getDocuments(.server)") { try await items.order(by: "v").getDocuments(source: .server) }
            #expect(server.documents.map(\.documentID) == expected, "the emulator's order")
            let cache = try await items.order(by: "v").getDocuments(source: .cache)
            #expect(cache.documents.map(\.documentID) == expected, "the local query engine's order")
            let descending = try await withHangGuard("descending") {
                try await items.order(by: "v", descending: true).getDocuments(source: .server)
            }
            #expect(descending.documents.map(\.documentID) == expected.reversed())

            let range = items.whereField("v", isGreaterThanOrEqualTo: VectorValue([1, 3]))
            let serverRange = try await withHangGuard("range") { try await range.getDocuments(source: .server) }
            let cacheRange = try await range.getDocuments(source: .cache)
            #expect(serverRange.documents.map(\.documentID) == ["pair2", "long"])
            #expect(cacheRange.documents.map(\.documentID) == serverRange.documents.map(\.documentID))

            let stored = try await serverDocument(rpc, "items/pair")
            #expect(stored.data.fields["v"] == .map(ObjectValue([
                "__type__": .string("__vector__"), "value": .array([.double(1), .double(2)]),
            ])), "the server stores Firestore's vector map")
            registration.remove()
            await app.tearDown()
        }

        @Test("A vector written offline survives a restart in the persistent cache and reaches the server after enableNetwork", .enabled(if: EmulatorGate.shouldRun, EmulatorGate.skipReason))
        func offlineCacheRoundTrip() async throws {
            let project = "cairn-vector-cache"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-vector-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let name = "vector-cache-\(UUID().uuidString.lowercased())"
            FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: project))
            let firebaseApp = try #require(FirebaseApp.app(name: name))
            func open() -> Firestore {
                let db = Firestore.firestore(app: firebaseApp)
                let settings = db.settings
                settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: 100 << 20), directory: directory)
                db.settings = settings
                db.useEmulator(withHost: emulator.host, port: emulator.port)
                return db
            }
            let first = open()
            try await withHangGuard("disableNetwork") { try await first.disableNetwork() }
            let ref = first.document("items/offline")
            ref.setData(["embedding": FieldValue.vector([0.5, -1.25, 3])], completion: nil)
            try await withHangGuard("terminate") { try await first.terminate() }

            let db = open()
            try await withHangGuard("disableNetwork") { try await db.disableNetwork() }
            let cached = try await db.document("items/offline").getDocument(source: .cache)
            #expect(cached.get("embedding") as? VectorValue == VectorValue([0.5, -1.25, 3]))
            #expect(cached.metadata.hasPendingWrites)
            #expect(try await serverDocument(rpc, "items/offline").exists == false)

            try await withHangGuard("enableNetwork") { try await db.enableNetwork() }
            try await withHangGuard("waitForPendingWrites") { try await db.waitForPendingWrites() }
            #expect(try await serverDocument(rpc, "items/offline").data.fields["embedding"] == .vector([0.5, -1.25, 3]))
            let fromServer = try await withHangGuard("getDocument(.server)") {
                try await db.document("items/offline").getDocument(source: .server)
            }
            #expect(fromServer.get("embedding") as? VectorValue == VectorValue([0.5, -1.25, 3]))
            try await withHangGuard("terminate") { try await db.terminate() }
        }

        @Test("The Python client reads Cairn's vector as its Vector, and Cairn reads the Python client's Vector as a VectorValue", .enabled(if: EmulatorGate.shouldRun && InteropPeer.shouldRun, InteropPeer.skipReason))
        func pythonInterop() async throws {
            let project = "cairn-vector-python"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            let app = EmulatorApp(project: project, emulator: emulator)
            try await withHangGuard("setData") {
                try await app.db.document("items/from-cairn").setData(["v": VectorValue([1.5, 2, -3]), "n": 1])
            }
            let read = try await InteropPeer.read("items/from-cairn", project: project, emulator: emulator)
            #expect(read == ["v": .vector([1.5, 2, -3]), "n": .integer(1)])

            try await InteropPeer.write(["v": .vector([0.25, 8])], to: "items/from-python", project: project, emulator: emulator)
            let snapshot = try await withHangGuard("getDocument(.server)") {
                try await app.db.document("items/from-python").getDocument(source: .server)
            }
            #expect(snapshot.get("v") as? VectorValue == VectorValue([0.25, 8]))
            await app.tearDown()
        }
    }
}
