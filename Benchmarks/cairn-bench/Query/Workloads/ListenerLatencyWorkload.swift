// listener_latency: a local write that changes one document of a listened 1,000-result query
// (`rooms/lobby/messages order by sentAt`), timed until the new result is there. Each engine works on its own
// copy of the loaded cache with the query listened to (an active target holding its results).
//
// Cairn's column measures LocalStore's path — `writeLocally` of the patch, then `executeQuery` of the
// listened query — not the client core's `EventManager` callback, which was not usable when this suite was
// written. SQLite's column is Android's `writeLocally` transaction followed by a re-run of the query.

import CairnModel

/// `writes` one-document patches per run, each followed by the re-query.
final class ListenerLatencyWorkload: QueryWorkload {
    let name = "listener_latency"
    let secondaryLabel: String? = "p99 ms"
    let note: String
    private let fixture: QueryFixture
    private let query: Query
    private let writes: Int
    private var caches: [String: (cache: any QueryCache, keys: [DocumentKey])] = [:]

    init(query: Query, writes: Int, fixture: QueryFixture) {
        self.query = query
        self.writes = writes
        self.fixture = fixture
        note = "\(writes) writes per run, each patching one message of the listened `rooms/lobby/messages order by "
            + "sentAt` (\(QueryCorpus.lobbySize) results), timed from the write to the new result. Cairn: "
            + "LocalStore.writeLocally + executeQuery (the client core's listener path was not measured); SQLite: "
            + "Android's writeLocally transaction + the query re-run. Median and p99 over every write."
    }

    func prepare(_ engine: any QueryEngine) throws {
        let directory = try fixture.copy(for: engine, name: "listener/\(engine.name)")
        let cache = try engine.open(directory)
        try cache.catchUp()
        try cache.listen(query)
        let keys = try cache.execute(query).map(\.key)
        caches[engine.name] = (cache, keys)
    }

    func run(_ engine: any QueryEngine, number: Int) throws -> QueryRun {
        guard let (cache, keys) = caches[engine.name], !keys.isEmpty else {
            throw BenchError("\(name): \(engine.name) has no listened documents")
        }
        let edited = FieldPath(segments: ["edited"])
        let text = FieldPath(segments: ["text"])
        var latencies: [Double] = []
        for write in 0..<writes {
            let key = keys[(number * 7919 + write * 104_729) % keys.count]
            let value = ObjectValue(["edited": .boolean(true), "text": .string("edited in run \(number), write \(write)")])
            var result: [Document] = []
            latencies.append(try QueryHarness.milliseconds {
                try cache.write([.patch(key, value: value, mask: FieldMask([edited, text]))])
                result = try cache.execute(query)
            })
            guard result.count == keys.count, result.contains(where: { $0.key == key && $0.hasLocalMutations }) else {
                throw BenchError("\(name): \(engine.name) did not show the write to \(key) in the listened query")
            }
        }
        return QueryRun(values: latencies)
    }

    func secondary(of runs: [QueryRun]) -> Double? {
        let values = runs.flatMap(\.values)
        return values.isEmpty ? nil : EngineResult.percentile(values, 0.99)
    }
}
