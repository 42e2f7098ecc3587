import CairnCore
import Cairn
import CairnTestSupport
import Foundation
import Synchronization
import Testing

extension EmulatorTests {
    /// A bundle built by the official Python client from the emulator's documents, loaded into Cairn offline,
    /// then listened to online.
    @Suite(
        "End to end: bundles from the Python client", .serialized,
        .enabled(if: InteropPeer.shouldRun, InteropPeer.skipReason))
    struct EndToEndBundleTests {
        @Test("a bundle's named query shows its documents from the cache offline, then the server's changes online")
        func bundleThenListenOnline() async throws {
            let project = "cairn-bundle-listen"
            let rpc = try await EmulatorGate.client(project: project)
            defer { rpc.shutdown() }
            let emulator = try await FirestoreEmulator.shared()
            for (id, n) in [("a", 1), ("b", 2)] {
                try await InteropPeer.write(["n": .integer(Int64(n)), "v": .string(id)], to: "rooms/\(id)", project: project, emulator: emulator)
            }
            let bundle = try await InteropPeer.bundle(of: "rooms", project: project, emulator: emulator)

            let app = EmulatorApp(project: project, emulator: emulator)
            try await withHangGuard("disableNetwork") { try await app.db.disableNetwork() }
            let progress = try await withHangGuard("loadBundle") { try await app.db.loadBundle(bundle) }
            #expect(progress.state == .success && progress.documentsLoaded == 2 && progress.totalDocuments == 2)
            #expect(progress.bytesLoaded == progress.totalBytes && progress.totalBytes > 0)
            let query = try #require(await app.db.getQuery(named: "rooms"), "the bundle's named query")

            let seen = QuerySeen()
            let registration = query.addSnapshotListener(includeMetadataChanges: true) { snapshot, error in
                seen.record(snapshot, error)
            }
            try await seen.wait(for: "the bundle's documents from the cache") { $0.ids == ["a", "b"] && $0.isFromCache }

            try await withHangGuard("enableNetwork") { try await app.db.enableNetwork() }
            try await seen.wait(for: "the server's confirmation") { $0.ids == ["a", "b"] && !$0.isFromCache }
            try await InteropPeer.write(["n": .integer(3), "v": .string("c")], to: "rooms/c", project: project, emulator: emulator)
            try await seen.wait(for: "the document the server added") { $0.ids == ["a", "b", "c"] && !$0.isFromCache }
            registration.remove()
            await app.tearDown()
        }
    }
}

/// The snapshots a query listener saw (document ids and whether from the cache), in order.
private final class QuerySeen: Sendable {
    struct Entry: Sendable, CustomStringConvertible {
        var ids: [String]
        var isFromCache: Bool
        var description: String { "(\(ids), fromCache: \(isFromCache))" }
    }

    private let entries = Mutex<[Entry]>([])
    private let errors = Mutex<[String]>([])

    func record(_ snapshot: QuerySnapshot?, _ error: Error?) {
        if let error { errors.withLock { $0.append("\(error)") } }
        if let snapshot {
            let entry = Entry(ids: snapshot.documents.map(\.documentID), isFromCache: snapshot.metadata.isFromCache)
            entries.withLock { $0.append(entry) }
        }
    }

    /// Waits for a snapshot that satisfies `predicate`; after a generous hang guard the test fails naming `what`.
    func wait(for what: String, sourceLocation: SourceLocation = #_sourceLocation, _ predicate: (Entry) -> Bool) async throws {
        for _ in 0..<3000 {
            if entries.withLock({ $0.contains(where: predicate) }) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no snapshot with \(what); saw \(entries.withLock { $0 }), errors \(errors.withLock { $0 })", sourceLocation: sourceLocation)
        throw FirestoreErrorCode(.deadlineExceeded, "no snapshot with \(what)")
    }
}
