import CairnCoreTestSupport
import CairnTestSupport
import Foundation
import Synchronization
import Testing

@testable import Cairn

/// `Firestore.enableLogging` through swift-log: the process's handler (bootstrapped by `LogCapture`, as an app
/// bootstraps its own) receives Cairn's lines with their `cairn.firestore.*` labels; debug lines only while
/// logging is enabled; never a value a document holds, never a token.
@Suite("Firestore logging through swift-log", .serialized)
struct FirestoreLoggingTests {
    /// A value no log line may show.
    static let secretValue = "value-only-the-document-knows-4217"

    /// Listens to `cities`, writes `cities/SF` and waits for the scripted server's acknowledgement; then a write
    /// the server rejects (`cities/LA`). Returns the captured lines.
    private func writeAndAcknowledge(logging: Bool) async throws -> [LogCapture.Line] {
        try await ExclusiveTestSection.logging.run {
            let capture = LogCapture.start()
            Firestore.enableLogging(logging)
            defer { Firestore.enableLogging(false) }
            let made = Mutex<AcknowledgingDatastore?>(nil)
            let env = EndToEndEnvironment(
                prefix: "logging", datastore: AcknowledgingDatastore.provider { datastore in made.withLock { $0 = datastore } })
            let snapshots = Inbox<QuerySnapshot>()
            let registration = env.db.collection("cities").addSnapshotListener { snapshot, _ in
                if let snapshot { snapshots.put(snapshot) }
            }
            _ = await snapshots.next()
            try await env.db.collection("cities").document("SF").setData(["name": Self.secretValue])
            made.withLock { $0 }?.script.withLock { $0.writeError = FirestoreErrorCode(.permissionDenied, "denied") }
            await #expect(throws: (any Error).self) {
                try await env.db.collection("cities").document("LA").setData(["name": Self.secretValue])
            }
            registration.remove()
            await env.tearDown()
            return capture.stop()
        }
    }

    @Test("With logging off no debug line is written, and a rejected write is still a warning naming the document")
    func disabledWritesNoDebugLines() async throws {
        let lines = try await writeAndAcknowledge(logging: false)
        let debug = lines.filter { $0.level == "debug" && $0.label.hasPrefix("cairn.firestore") }
        #expect(debug.isEmpty, "\(debug)")
        let rejected = lines.filter { $0.label == "cairn.firestore.remote" && $0.level == "warning" }
        #expect(rejected.contains { $0.message.contains("rejected by the server (permissionDenied): cities/LA") }, "\(lines)")
    }

    @Test("enableLogging(true) logs the listen, the watch target, the online state and the write's queueing and acknowledgement under their labels")
    func enabledLogsWriteCycle() async throws {
        let lines = try await writeAndAcknowledge(logging: true)
        func has(_ label: String, _ fragment: String) -> Bool {
            lines.contains { $0.label == label && $0.level == "debug" && $0.message.contains(fragment) }
        }
        #expect(has("cairn.firestore", "starting a client for logging-"), "\(lines)")
        #expect(has("cairn.firestore.localstore", "opened the cache at"), "\(lines)")
        #expect(has("cairn.firestore.sync", "listen to cities as target"), "\(lines)")
        #expect(has("cairn.firestore.remote", "added: cities"), "\(lines)")
        #expect(has("cairn.firestore.remote", "online state: online"), "\(lines)")
        #expect(has("cairn.firestore.sync", "queued: cities/SF"), "\(lines)")
        #expect(has("cairn.firestore.remote", "acknowledged at"), "\(lines)")
        #expect(lines.contains { $0.level == "debug" && $0.message.contains("acknowledged at") && $0.message.contains("cities/SF") })
        #expect(has("cairn.firestore.sync", "rejected, its changes are rolled back: permissionDenied"), "\(lines)")
        #expect(!lines.contains { $0.message.contains(Self.secretValue) }, "a document's value reached the log")
    }

    @Test("A token from settings.authTokenProvider never appears in a log line, while the gRPC transport logs its attempts")
    func tokenNeverLogged() async throws {
        let token = "ya29.secret-token-\(UUID().uuidString)"
        let asked = Mutex(0)
        // A TLS host on a loopback port where nothing listens: every stream asks for the token, then fails.
        let port = try LoopbackHTTP.freePort()
        let lines = try await ExclusiveTestSection.logging.run {
            let capture = LogCapture.start()
            Firestore.enableLogging(true)
            defer { Firestore.enableLogging(false) }
            let name = "logging-token-\(UUID().uuidString.lowercased())"
            FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: name))
            let db = Firestore.firestore(app: FirebaseApp.app(name: name)!)
            let settings = db.settings
            settings.host = "127.0.0.1:\(port)"
            settings.isSSLEnabled = true
            settings.cacheSettings = MemoryCacheSettings()
            settings.authTokenProvider = {
                asked.withLock { $0 += 1 }
                return token
            }
            db.settings = settings
            db.collection("rooms").document("a").setData(["v": 1], completion: nil)
            let snapshots = Inbox<QuerySnapshot>()
            let registration = db.collection("rooms").addSnapshotListener { snapshot, _ in
                if let snapshot { snapshots.put(snapshot) }
            }
            _ = await snapshots.next()
            // Until both streams asked for the token and a failed attempt was logged (at most a minute).
            var waited = 0
            while asked.withLock({ $0 }) < 2 || !capture.lines.contains(where: Self.isFailedAttempt), waited < 600 {
                try await Task.sleep(for: .milliseconds(100))
                waited += 1
            }
            registration.remove()
            try? await db.terminate()
            return capture.stop()
        }
        #expect(asked.withLock { $0 } >= 2, "the streams never asked for the token")
        #expect(lines.contains(where: Self.isFailedAttempt), "\(lines)")
        let leaked = lines.filter { $0.message.contains(token) || $0.message.contains("secret-token") }
        #expect(leaked.isEmpty, "\(leaked)")
    }

    /// A gRPC stream attempt that failed for want of a server.
    private static func isFailedAttempt(_ line: LogCapture.Line) -> Bool {
        line.label == "cairn.firestore.grpc" && line.message.contains("closed: unavailable")
    }
}
