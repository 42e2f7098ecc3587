import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Dispatch
import Foundation
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// A user switch through the public API: the instance's ``IDTokenCredentialsProvider`` hands it mock ID tokens
    /// (unsigned JWTs, which the emulator accepts as Firebase ID tokens) for two users, on an emulator whose rules
    /// let a user write only their own `users/{uid}` document. The provider's tokens reach the emulator (else the
    /// `owner` token would bypass the rules), and each user's writes are sent only while that user is signed in.
    @Suite("User switching over gRPC", .serialized)
    struct EndToEndUserSwitchTests {
        static let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /users/{uid} {
                  allow read: if true;
                  allow write: if request.auth != null && request.auth.uid == uid;
                }
              }
            }
            """

        @Test("A's offline write waits while B is signed in, B's writes go as B, and switching back to A sends A's write")
        func outboxFollowsTheUser() async throws {
            let emulator = try await FirestoreEmulator.start(rulesText: Self.rules)
            defer { emulator.stop() }
            let project = "cairn-e2e-users"
            // The raw client is the owner: it reads the server past the rules.
            let rpc = try FirestoreRPC(
                configuration: .emulator(
                    databaseID: DatabaseID(projectID: project), host: emulator.host, port: emulator.port))
            defer { rpc.shutdown() }
            func token(_ uid: String) -> String { EmulatorAuth.mockIDToken(uid: uid, projectID: project, now: Date()) }

            let credentials = try IDTokenCredentialsProvider(token: token("alice"))
            let name = "\(project)-\(UUID().uuidString.lowercased())"
            FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: project))
            let db = Firestore.firestore(app: FirebaseApp.app(name: name)!)
            let settings = db.settings
            settings.cacheSettings = MemoryCacheSettings()
            settings.dispatchQueue = DispatchQueue(label: name)
            settings.credentialsProvider = credentials
            db.settings = settings
            db.useEmulator(withHost: emulator.host, port: emulator.port)

            // Alice writes while offline; then the provider signs Bob in.
            try await withHangGuard("disableNetwork") { try await db.disableNetwork() }
            let outcomes = WriteOutcomes()
            db.document("users/alice").setData(["v": "alice"], completion: outcomes.completion("alice"))
            let aliceCached = try await withHangGuard("alice's cache read") {
                try await db.document("users/alice").getDocument(source: .cache)
            }
            #expect(aliceCached.get("v") as? String == "alice" && aliceCached.metadata.hasPendingWrites)
            try credentials.setToken(token("bob"))
            #expect(credentials.user == CredentialsUser(uid: "bob"))

            // Bob writes his own document and tries Alice's; the network comes back while Bob is signed in.
            db.document("users/bob").setData(["v": "bob"], completion: outcomes.completion("bob"))
            db.document("users/alice").setData(["v": "bob was here"], completion: outcomes.completion("bob on alice"))
            try await withHangGuard("enableNetwork") { try await db.enableNetwork() }
            #expect(try await outcomes.wait(for: "bob") == .acknowledged)
            let denied = try await outcomes.wait(for: "bob on alice")
            #expect(denied.code == .permissionDenied, "the emulator saw Bob's token, not owner: \(denied)")
            try await withHangGuard("Bob's waitForPendingWrites") { try await db.waitForPendingWrites() }
            #expect(try await serverValue(rpc, "users/bob") == "bob")
            #expect(try await serverValue(rpc, "users/alice") == nil, "Alice's write was not sent while Bob is signed in")
            let bobsView = try? await db.document("users/alice").getDocument(source: .cache)
            #expect(bobsView?.metadata.hasPendingWrites != true, "Bob's views do not show Alice's pending write")

            // Alice signs in again: her write is sent, as her.
            try credentials.setToken(token("alice"))
            try await withHangGuard("Alice's waitForPendingWrites") { try await db.waitForPendingWrites() }
            var value: String?
            for _ in 0..<3000 where value != "alice" {
                value = try await serverValue(rpc, "users/alice")
                if value != "alice" { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(value == "alice", "Alice's write reached the server once she was back")
            try await db.terminate()
        }
    }
}
