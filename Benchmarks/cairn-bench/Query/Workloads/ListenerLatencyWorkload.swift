// listener_latency: a local write that changes one document of a listened 1,000-result query
// (`rooms/lobby/messages order by sentAt`), timed until the listener sees the new result. Each engine works on
// its own copy of the loaded cache.
//
// Cairn's column goes through the client core: a `Firestore` instance (public API, offline) on the copy, a
// snapshot listener on the query, `updateData` of one message, timed until the snapshot callback shows the
// change (FirestoreListener.swift). SQLite's column is Android's `writeLocally` transaction followed by a
// re-run of the query (RequeryListener in ListenedQuery.swift); LevelDB's is iOS's, the same way.

import CairnModel

/// `writes` one-document patches per run, each timed until the listened result shows it.
final class ListenerLatencyWorkload: QueryWorkload {
    let name = "listener_latency"
    let secondaryLabel: String? = "p99 ms"
    let note: String
    private let fixture: QueryFixture
    private let query: Query
    private let writes: Int
    private var listeners: [String: any ListenedQuery] = [:]

    init(query: Query, writes: Int, fixture: QueryFixture) {
        self.query = query
        self.writes = writes
        self.fixture = fixture
        note = "\(writes) writes per run, each patching one message of the listened `rooms/lobby/messages order by "
            + "sentAt` (\(fixture.corpus.lobbyCount) results), timed from the write to the new result. Cairn: the "
            + "client core through the public API — Firestore offline on the cache, addSnapshotListener, "
            + "DocumentReference.updateData, until the snapshot callback shows the change; SQLite: Android's "
            + "writeLocally transaction + the query re-run; LevelDB: iOS's WriteLocally write batch + the query "
            + "re-run. Median and p99 over every write."
    }

    func prepare(_ engine: any QueryEngine) throws {
        let directory = try fixture.copy(for: engine, name: "listener/\(engine.name)")
        let listener = try engine.openListener(directory, query: query)
        guard listener.documentIDs.count == fixture.corpus.lobbyCount else {
            throw BenchError(
                "\(name): \(engine.name) listens to \(listener.documentIDs.count) documents, not \(fixture.corpus.lobbyCount)")
        }
        listeners[engine.name] = listener
    }

    func run(_ engine: any QueryEngine, number: Int) throws -> QueryRun {
        guard let listener = listeners[engine.name] else {
            throw BenchError("\(name): \(engine.name) has no listened query")
        }
        let ids = listener.documentIDs
        var latencies: [Double] = []
        for write in 0..<writes {
            let id = ids[(number * 7919 + write * 104_729) % ids.count]
            latencies.append(try listener.patch(documentID: id, text: "edited in run \(number), write \(write)"))
        }
        return QueryRun(values: latencies)
    }

    func finish(_ engine: any QueryEngine) throws {
        try listeners.removeValue(forKey: engine.name)?.close()
    }

    func secondary(of runs: [QueryRun]) -> Double? {
        let values = runs.flatMap(\.values)
        return values.isEmpty ? nil : EngineResult.percentile(values, 0.99)
    }
}
