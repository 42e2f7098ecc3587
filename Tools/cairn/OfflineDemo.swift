import Cairn
import CairnCore
import Dispatch
import Foundation

/// The offline tour of the public API that `cairn demo` prints first: an app on a persistent cache listens to
/// a query, writes with `setData`, `updateData`, a `WriteBatch`, `FieldValue.increment` and
/// `FieldValue.serverTimestamp()` while no backend is reachable, terminates, and reopens the cache in a new
/// instance to show that the documents and the outbox of pending writes survived.
///
/// ```swift
/// let summary = try await OfflineDemo.run(directory: URL(fileURLWithPath: "/tmp/demo"), appName: "demo") { print($0) }
/// print(summary.documentsAfterRestart.map(\.id))   // ["LA", "SF", "TOK"]
/// ```
enum OfflineDemo {
    /// A document as the reopened instance reads it from the cache.
    struct Document: Sendable, Equatable {
        var id: String
        var population: Int64?
        var hasPendingWrites: Bool

        init(id: String, population: Int64?, hasPendingWrites: Bool) {
            self.id = id
            self.population = population
            self.hasPendingWrites = hasPendingWrites
        }
    }

    /// What the reopened instance found.
    struct Summary: Sendable {
        /// The documents of `cities` in the cache after the restart, by population.
        var documentsAfterRestart: [Document]
        /// How many listener events the first instance printed.
        var eventCount: Int
    }

    /// Runs the tour on a persistent cache in `directory` (created if needed, left in place), under a
    /// FirebaseApp named `appName` (deleted at the end), printing each step with `say`.
    static func run(directory: URL, appName: String, say: (String) -> Void) async throws -> Summary {
        FirebaseApp.configure(name: appName, options: FirebaseOptions(projectID: "cairn-demo"))
        guard let app = FirebaseApp.app(name: appName) else {
            throw FirestoreErrorCode(.internal, "The demo app \(appName) could not be configured.")
        }
        defer { app.delete { _ in } }
        say("Public API, offline, on a persistent cache in \(directory.path)")
        say("(this instance is offline-only — without an emulator there is no server — so every write stays queued in the outbox)")
        let db = open(app, directory: directory)
        let cities = db.collection("cities")
        var events = cities.order(by: "population").snapshots(includeMetadataChanges: true).makeAsyncIterator()
        var eventCount = 0
        func nextEvent(_ step: String) async throws {
            guard let snapshot = try await events.next() else { return }
            eventCount += 1
            say("\(step)\n    → \(describe(snapshot))")
        }
        try await nextEvent("listen to cities ordered by population (includeMetadataChanges: true)")
        cities.document("SF").setData(["name": "San Francisco", "population": 870_000], completion: nil)
        try await nextEvent("setData SF")
        cities.document("LA").setData(["name": "Los Angeles", "population": 3_900_000], completion: nil)
        try await nextEvent("setData LA")
        cities.document("SF").updateData(["population": FieldValue.increment(Int64(4_000_000))], completion: nil)
        try await nextEvent("updateData SF population += 4,000,000 (FieldValue.increment)")
        let batch = db.batch()
        batch.setData(
            ["name": "Tokyo", "population": 14_000_000, "updated": FieldValue.serverTimestamp()],
            forDocument: cities.document("TOK"))
        batch.updateData(["visited": true], forDocument: cities.document("LA"))
        batch.commit(completion: nil)
        try await nextEvent("WriteBatch: set TOK (with serverTimestamp), update LA")
        do {
            _ = try await cities.getDocuments(source: .server)
        } catch {
            say("getDocuments(source: .server) → \(error)")
        }
        try await db.terminate()
        say("terminate(); open a new Firestore instance on the same directory")

        let reopened = open(app, directory: directory)
        let cached = try await reopened.collection("cities").order(by: "population").getDocuments(source: .cache)
        let documents = cached.documents.map { snapshot in
            Document(
                id: snapshot.documentID, population: snapshot.get("population") as? Int64,
                hasPendingWrites: snapshot.metadata.hasPendingWrites)
        }
        say("getDocuments(source: .cache) after the restart:")
        for document in documents {
            say("    \(document.id) population \(document.population.map(String.init) ?? "-")"
                + (document.hasPendingWrites ? "  (pending write, still in the outbox)" : ""))
        }
        let pending = documents.filter(\.hasPendingWrites).count
        say("the data and the outbox survived: \(pending) of \(documents.count) documents wait for the backend")
        try await reopened.terminate()
        return Summary(documentsAfterRestart: documents, eventCount: eventCount)
    }

    private static func open(_ app: FirebaseApp, directory: URL) -> Firestore {
        let db = Firestore.firestore(app: app)
        let settings = db.settings
        settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: 100 << 20), directory: directory)
        settings.dispatchQueue = DispatchQueue(label: "cairn.demo.callbacks")
        settings.datastoreProvider = UnreachableDatastore.provider
        db.settings = settings
        return db
    }

    /// One line per event: the documents in order, the changes with their indexes, the metadata.
    ///
    /// ```swift
    /// OfflineDemo.describe(snapshot)
    /// // [SF, LA]  changes: added LA -→1  isFromCache=true hasPendingWrites=true
    /// ```
    static func describe(_ snapshot: QuerySnapshot) -> String {
        let documents = snapshot.documents.map(\.documentID).joined(separator: ", ")
        let changes = snapshot.documentChanges(includeMetadataChanges: true).map { change in
            let type =
                switch change.type {
                case .added: "added"
                case .modified: "modified"
                case .removed: "removed"
                }
            let old = change.oldIndex == UInt(NSNotFound) ? "-" : "\(change.oldIndex)"
            let new = change.newIndex == UInt(NSNotFound) ? "-" : "\(change.newIndex)"
            return "\(type) \(change.document.documentID) \(old)→\(new)"
        }
        return "[\(documents)]  changes: \(changes.isEmpty ? "none" : changes.joined(separator: ", "))  "
            + "isFromCache=\(snapshot.metadata.isFromCache) hasPendingWrites=\(snapshot.metadata.hasPendingWrites)"
    }
}
