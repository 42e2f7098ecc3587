// cold_open_first_query: open the loaded cache from disk and answer the first query (the equality query of
// query_scan_eq), timed together. Cairn replays its log into its views; SQLite and LevelDB open their files
// and read their index configuration. The OS page cache is warm (the files were just written and read): this measures the
// engines, not the disk.

import CairnModel

/// Opens the loaded cache and runs one query, per run.
final class ColdOpenWorkload: QueryWorkload {
    let name = "cold_open_first_query"
    let note: String
    private let fixture: QueryFixture
    private let query: Query
    private var expected: Int?

    init(query: Query, fixture: QueryFixture) {
        self.query = query
        self.fixture = fixture
        note = "Open a cache of \(Console.compact(Double(fixture.corpus.count))) documents and answer "
            + "`orders where region == \"r42\"`. Cairn: LocalStore.open (log replay) + executeQuery; SQLite: "
            + "DatabaseQueue open (Android's pragmas, index_configuration/index_state read) + Android's scan; "
            + "LevelDB: leveldb_open (log recovery) + iOS's start-up reads (index_configuration, index_state, "
            + "mutation, target_global) + iOS's scan. OS page cache warm."
    }

    func prepare(_ engine: any QueryEngine) throws {
        _ = try fixture.directory(for: engine)
        try fixture.closeWarmCache(for: engine)
    }

    func run(_ engine: any QueryEngine, number: Int) throws -> QueryRun {
        let directory = try fixture.directory(for: engine)
        var opened: (any QueryCache)?
        var count = 0
        let elapsed = try QueryHarness.milliseconds {
            let cache = try engine.open(directory)
            opened = cache
            count = try cache.execute(query).count
        }
        try opened?.close()
        if let expected, expected != count {
            throw BenchError("\(name): \(engine.name) found \(count) documents, not \(expected)")
        }
        expected = count
        return QueryRun(values: [elapsed])
    }
}
