// The five query workloads (query_scan_eq, query_scan_range_order_limit, query_index_range_order_limit,
// query_index_array_contains, query_collection_group): one query answered by each engine's warm, open cache.
// A run executes the query repeatedly (until a quarter of a second has passed, at most 30 times) and records
// every execution's latency; the first execution of every run is checked against the other engines' answer.

import CairnModel

/// Times one query against every engine's warm cache.
final class QueryExecutionWorkload: QueryWorkload {
    let name: String
    let note: String
    private let query: Query
    private let fixture: QueryFixture
    private var expected: (keys: [String], engine: String)?

    /// Executions per run stop after this much time (at least one execution).
    static let runBudget = Duration.milliseconds(250)
    static let maximumExecutions = 30

    init(name: String, query: Query, description: String, fixture: QueryFixture) {
        self.name = name
        self.query = query
        self.fixture = fixture
        note = "\(description) on \(Console.compact(Double(fixture.corpus.count))) cached documents. Cairn: "
            + "LocalStore.executeQuery(_:usePreviousResults:); SQLite: Android's plan and SQL; LevelDB: iOS's plan, "
            + "seeks and iterators; limit: "
            + "Query.results(from:) over the collection's decoded documents. Latency per execution, warm caches."
    }

    func accepts(_ engine: any QueryEngine) -> Bool { true }

    func prepare(_ engine: any QueryEngine) throws {
        let cache = try fixture.warmCache(for: engine)
        try check(try cache.resultKeys(query), engine)
    }

    func run(_ engine: any QueryEngine, number: Int) throws -> QueryRun {
        let cache = try fixture.warmCache(for: engine)
        var latencies: [Double] = []
        var keys: [String] = []
        let clock = ContinuousClock()
        let start = clock.now
        repeat {
            var result: [Document] = []
            latencies.append(try QueryHarness.milliseconds { result = try cache.execute(query) })
            if latencies.count == 1 { keys = result.map(\.key.description) }
        } while clock.now - start < Self.runBudget && latencies.count < Self.maximumExecutions
        try check(keys, engine)
        return QueryRun(values: latencies)
    }

    private func check(_ keys: [String], _ engine: any QueryEngine) throws {
        guard let expected else {
            expected = (keys, engine.name)
            Console.progress("\(name): \(keys.count) results")
            return
        }
        guard keys == expected.keys else {
            throw BenchError(
                "\(name): \(engine.name) returned \(keys.count) documents (first \(keys.first ?? "none")), but "
                    + "\(expected.engine) returned \(expected.keys.count) (first \(expected.keys.first ?? "none"))")
        }
    }
}
