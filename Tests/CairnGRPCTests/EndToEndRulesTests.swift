import CairnCore
import Cairn
import CairnModel
import CairnTestSupport
import Foundation
import Testing

@testable import CairnGRPC

extension EmulatorTests {
    /// Security rules on a separate emulator started with `--rules`: the client connects as a mock user (not the
    /// `owner` token, which bypasses rules), so the server rejects what the rules deny.
    @Suite("Security rules over gRPC", .serialized)
    struct EndToEndRulesTests {
        /// Everyone reads everything; writes are allowed except under `locked`, and under `users` only to the
        /// signed-in user's own document.
        static let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /{collection}/{id} {
                  allow read: if true;
                  allow write: if collection != 'locked' && collection != 'users';
                }
                match /users/{uid} {
                  allow write: if request.auth != null && request.auth.uid == uid;
                }
              }
            }
            """

        @Test("A write the rules deny is rolled back, its completion gets permissionDenied, the writes around it land")
        func rejectedWrite() async throws {
            let emulator = try await FirestoreEmulator.start(rulesText: Self.rules)
            defer { emulator.stop() }
            let project = "cairn-e2e-rules"
            // The raw client is the owner: it seeds and checks the server past the rules.
            let rpc = try FirestoreRPC(
                configuration: .emulator(
                    databaseID: DatabaseID(projectID: project), host: emulator.host, port: emulator.port))
            defer { rpc.shutdown() }
            _ = try await rpc.commit([
                .set(try DocumentKey(parsing: "locked/a"), value: ObjectValue(["v": .string("server")]))
            ])

            let app = EmulatorApp(project: project, emulator: emulator, auth: .user(uid: "alice"))
            let log = DocumentLog()
            let registration = log.listen(to: app.db.document("locked/a"))
            try await log.wait(for: "the server's document") { $0.value == "server" && !$0.isFromCache }

            // Queued together while offline, so the rejected write sits between two others in the pipeline.
            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            let outcomes = WriteOutcomes()
            app.db.document("open/before").setData(["v": "before"], completion: outcomes.completion("before"))
            app.db.document("locked/a").setData(["v": "local"], completion: outcomes.completion("locked"))
            app.db.document("users/alice").setData(["v": "alice"], completion: outcomes.completion("own user"))
            app.db.document("users/bob").setData(["v": "alice"], completion: outcomes.completion("other user"))
            app.db.document("open/after").setData(["v": "after"], completion: outcomes.completion("after"))
            try await log.wait(for: "the optimistic local write") { $0.value == "local" && $0.hasPendingWrites }
            log.clear()

            try await withHangGuard("enableNetwork") { try await app.db.enableNetwork() }
            #expect(try await outcomes.wait(for: "before") == .acknowledged)
            let locked = try await outcomes.wait(for: "locked")
            #expect(locked.code == .permissionDenied, "the denied write's completion: \(locked)")
            #expect(try await outcomes.wait(for: "own user") == .acknowledged, "the mock token names alice")
            let other = try await outcomes.wait(for: "other user")
            #expect(other.code == .permissionDenied, "alice writing bob's document: \(other)")
            #expect(try await outcomes.wait(for: "after") == .acknowledged)
            try await log.wait(for: "the revert to the server's document") {
                $0.value == "server" && !$0.hasPendingWrites && !$0.isFromCache
            }

            #expect(try await serverValue(rpc, "open/before") == "before")
            #expect(try await serverValue(rpc, "open/after") == "after")
            #expect(try await serverValue(rpc, "users/alice") == "alice")
            #expect(try await serverValue(rpc, "users/bob") == nil)
            #expect(try await serverValue(rpc, "locked/a") == "server")
            let cached = try await withHangGuard("getDocument(source: .cache)") {
                try await app.db.document("locked/a").getDocument(source: .cache)
            }
            #expect(cached.get("v") as? String == "server", "the cache holds the server's document again")
            registration.remove()
            await app.tearDown()
        }
    }
}
