// The done-when point of issue 13, as a program would write it: the only product import is `import Cairn`, and
// the calls are Firebase's (`FirebaseApp.configure`, `Firestore.firestore(app:)`, `useEmulator(withHost:port:)`,
// `setData`, `addSnapshotListener`). No transport is installed and no datastore is injected: the gRPC transport
// is the default. CairnTestSupport only starts the official emulator.
import Cairn
import CairnTestSupport
import Testing

@Suite(
    "End to end: import Cairn alone syncs with the emulator",
    .enabled(
        if: FirestoreEmulator.missingReason == nil || FirestoreEmulator.isCI,
        Comment(
            rawValue: "Firestore emulator test skipped: \(FirestoreEmulator.missingReason ?? "available"); "
                + "set CI=true to make this a failure")))
struct EndToEndImportCairnOnlyTests {
    @Test("A write through one instance reaches a second instance's snapshot listener, from the server")
    func writeReachesSecondInstance() async throws {
        let emulator = try await FirestoreEmulator.shared()
        let project = "cairn-import-only"
        try emulator.reset(projectID: project)
        let suffix = UUID().uuidString.lowercased()
        let writer = try instance(app: "writer-\(suffix)", project: project, emulator: emulator)
        let reader = try instance(app: "reader-\(suffix)", project: project, emulator: emulator)

        let seen = AsyncStream<String>.makeStream()
        let registration = reader.db.collection("cities").document("SF").addSnapshotListener { snapshot, _ in
            guard let snapshot, !snapshot.metadata.isFromCache, let name = snapshot.get("name") as? String else { return }
            seen.continuation.yield(name)
        }
        let name = try await withDeadline(seconds: 60, "the write to reach the second instance") {
            // `async` setData returns when the server has acknowledged the write.
            try await writer.db.collection("cities").document("SF").setData(["name": "San Francisco"])
            var names = seen.stream.makeAsyncIterator()
            return await names.next()
        }
        #expect(name == "San Francisco")
        registration.remove()
        for instance in [writer, reader] {
            try await instance.db.terminate()
            try? FileManager.default.removeItem(at: instance.directory)
        }
    }

    /// A Firestore instance of its own app, with its own persistent cache directory, on the emulator.
    private func instance(app name: String, project: String, emulator: FirestoreEmulator) throws -> (db: Firestore, directory: URL) {
        FirebaseApp.configure(name: name, options: FirebaseOptions(projectID: project))
        let app = try #require(FirebaseApp.app(name: name))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-\(name)")
        let db = Firestore.firestore(app: app)
        let settings = db.settings
        settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: 100 << 20), directory: directory)
        db.settings = settings
        db.useEmulator(withHost: emulator.host, port: emulator.port)
        return (db, directory)
    }

    /// `body`'s result, or a failure naming `what` when it takes longer than `seconds` (a hang guard: without a
    /// network the write never completes, and its task is left behind).
    private func withDeadline<T: Sendable>(
        seconds: Int, _ what: String, _ body: @escaping @Sendable () async throws -> T?
    ) async throws -> T? {
        let outcome = AsyncStream<Result<T?, any Error>?>.makeStream()
        let work = Task {
            do { outcome.continuation.yield(.success(try await body())) } catch { outcome.continuation.yield(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: .seconds(seconds))
            outcome.continuation.yield(nil)
        }
        var results = outcome.stream.makeAsyncIterator()
        let first = await results.next() ?? nil
        timer.cancel()
        guard let first else {
            work.cancel()
            Issue.record("timed out after \(seconds) s waiting for \(what)")
            return nil
        }
        return try first.get()
    }
}
