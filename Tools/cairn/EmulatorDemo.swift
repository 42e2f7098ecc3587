import Cairn
import CairnGRPC
import CairnModel
import Foundation

/// The offline story of `cairn demo` against a real server, the Firestore emulator: listen to a query, disable the
/// network, write, see the pending metadata, restart (terminate the instance and open a new one in this process
/// on the same persistent cache), re-enable the network, and see the writes arrive on the server — read back
/// with a raw gRPC RunQuery, not through the cache — while the listener's metadata settles to false/false.
///
/// ```swift
/// try await EmulatorDemo.run(emulator: EmulatorAddress(host: "127.0.0.1", port: 8080), directory: cache) { print($0) }
/// ```
enum EmulatorDemo {
    static func run(emulator: EmulatorAddress, directory: URL, say: @escaping (String) -> Void) async throws {
        let project = "demo-cairn-\(getpid())"
        let rpc = try emulator.rpcClient(project: project)
        defer { rpc.shutdown() }
        say("Public API against the Firestore emulator on \(emulator), project \(project),"
            + " persistent cache in \(directory.path)")

        let db = try openPersistentFirestore(appName: "cairn-demo", project: project, directory: directory, emulator: emulator)
        var steps = Steps(say: say, events: cities(db).snapshots(includeMetadataChanges: true).makeAsyncIterator())
        try await steps.event("1. listen to cities ordered by population (includeMetadataChanges: true)") { !$0.metadata.isFromCache }
        try await db.disableNetwork()
        try await steps.event("2. disableNetwork()") { $0.metadata.isFromCache }
        db.document("cities/SF").setData(["name": "San Francisco", "population": 870_000], completion: nil)
        try await steps.event("3. setData SF") { $0.count == 1 }
        db.document("cities/LA").setData(["name": "Los Angeles", "population": 3_900_000], completion: nil)
        try await steps.event("   setData LA") { $0.count == 2 }
        db.document("cities/SF").updateData(["population": FieldValue.increment(Int64(4_000_000))], completion: nil)
        try await steps.event("   updateData SF population += 4,000,000 (FieldValue.increment)") { $0.documents.last?.documentID == "SF" }
        db.document("cities/TOK").setData(
            ["name": "Tokyo", "population": 14_000_000, "founded": FieldValue.serverTimestamp()], completion: nil)
        try await steps.event("   setData TOK with FieldValue.serverTimestamp()") { $0.count == 3 }
        try await showServer(rpc, "4. the server (a raw RunQuery on cities) while offline", say: say)
        try await db.terminate()

        say("5. restart: terminate(), then a new Firestore instance in this process on the same cache directory")
        say("   (its network disabled first, to look at what the cache kept before the server is contacted)")
        let reopened = try openPersistentFirestore(
            appName: "cairn-demo", project: project, directory: directory, emulator: emulator)
        try await reopened.disableNetwork()
        steps.events = cities(reopened).snapshots(includeMetadataChanges: true).makeAsyncIterator()
        try await steps.event("   listen again: the documents and the outbox came back from disk") { $0.count == 3 }
        try await reopened.enableNetwork()
        try await steps.event("6. enableNetwork(): the outbox drains, the listener catches up") {
            !$0.metadata.hasPendingWrites && !$0.metadata.isFromCache
        }
        try await reopened.waitForPendingWrites()
        say("   waitForPendingWrites() returned: the server acknowledged every write")
        try await showServer(rpc, "7. the server (a raw RunQuery on cities) after the sync", say: say)
        try await reopened.terminate()
    }

    private static func cities(_ db: Firestore) -> Cairn.Query { db.collection("cities").order(by: "population") }

    /// Prints what the server holds in `cities`, by population.
    private static func showServer(_ rpc: FirestoreRPC, _ step: String, say: (String) -> Void) async throws {
        let query = CairnModel.Query(
            path: try ResourcePath(parsing: "cities"), collectionGroup: nil, filters: [],
            explicitOrderBy: [OrderBy(CairnModel.FieldPath(segments: ["population"]))], limit: nil, limitType: .first,
            startAt: nil, endAt: nil)
        let documents = try await rpc.runQuery(query)
        say("\(step): \(documents.count) document(s)")
        for document in documents {
            say("    \(document.key.documentID)  \(describe(document.data))  (update time \(iso8601(document.version)))")
        }
    }

    /// `name: "Tokyo", founded: 2026-11-22T08:19:07.036Z`: the fields in name order, timestamps as dates.
    private static func describe(_ data: ObjectValue) -> String {
        data.fields.sorted { $0.key < $1.key }.map { name, value in
            if case .timestamp(let timestamp) = value { return "\(name): \(iso8601(timestamp))" }
            return "\(name): \(value.canonicalString)"
        }.joined(separator: ", ")
    }

    private static func iso8601(_ timestamp: CairnModel.Timestamp) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(
            from: Date(timeIntervalSince1970: Double(timestamp.seconds) + Double(timestamp.nanoseconds) / 1e9))
    }

    /// The listener's events, printed as they come; each step waits for the event it is about.
    private struct Steps {
        let say: (String) -> Void
        var events: AsyncThrowingStream<QuerySnapshot, any Error>.AsyncIterator

        /// Prints `label`, then every event up to and including the first that satisfies `settled`.
        mutating func event(_ label: String, until settled: (QuerySnapshot) -> Bool) async throws {
            say(label)
            while let snapshot = try await events.next() {
                say("    → \(OfflineDemo.describe(snapshot))")
                if settled(snapshot) { return }
            }
            throw FirestoreErrorCode(.internal, "The demo's listener ended during step \"\(label)\".")
        }
    }
}
