// What the query suite needs from an engine, so every workload is written once and runs against Cairn's
// LocalStore, the Android-style SQLite cache and the in-memory floor alike. Each engine runs its own plan for
// a query (Cairn: LocalStore's query path; SQLite: Android's; floor: a loop over decoded documents) and
// returns the documents; the workloads check that all engines return the same ones.

import CairnModel

/// An engine of the query suite.
protocol QueryEngine: AnyObject {
    /// The name in the report and the JSON: `cairn`, `sqlite` or `limit`.
    var name: String { get }
    /// Whether the engine keeps a cache on disk (the floor does not: it only answers queries).
    var isPersistent: Bool { get }
    /// What decides the bytes `load` writes besides the corpus (a layout version and the load's settings); a
    /// fixture-cache entry loaded under another layout is stale. Bump the version when the load changes.
    var layout: String { get }
    /// Creates a cache in the empty `directory` holding the corpus' documents as server documents, with the
    /// suite's field indexes configured and built. Setup, not measured.
    func load(_ corpus: QueryCorpus, into directory: String) throws
    /// Opens the cache in `directory` (created by `load`, or empty for a new cache).
    func open(_ directory: String) throws -> any QueryCache
    /// Opens the cache in `directory` and listens to `query` (a collection ordered by one field), for
    /// `listener_latency`. By default: the cache's write, then a re-run of the query (``RequeryListener``).
    func openListener(_ directory: String, query: Query) throws -> any ListenedQuery
}

extension QueryEngine {
    func openListener(_ directory: String, query: Query) throws -> any ListenedQuery {
        try RequeryListener(engine: self, directory: directory, query: query)
    }
}

/// An open cache. Used from one thread.
protocol QueryCache: AnyObject {
    /// Answers a query from the local view (server documents with pending local writes applied), ordered and
    /// limited as the query says.
    func execute(_ query: Query) throws -> [Document]
    /// Adds one batch of local writes to the outbox, durably as the engine commits.
    func write(_ mutations: [Mutation]) throws
    /// Starts listening to `query`: saves an active target holding its current results, which garbage
    /// collection must keep.
    func listen(_ query: Query) throws
    /// Bytes the cache counts against its size threshold.
    func cacheBytes() throws -> Int64
    /// One garbage-collection round towards `threshold` (at most the least-recently-used 10% / 1,000 sequence
    /// numbers of orphaned documents, as Firebase's collector); returns false when nothing was collected.
    /// Call it while ``cacheBytes()`` is over the threshold.
    func collectGarbageRound(threshold: Int64) throws -> Bool
    /// Finishes the background work an app that has been open a while has done (Cairn: the index backfill).
    func catchUp() throws
    func close() throws
}

extension QueryCache {
    func catchUp() throws {}

    /// The document keys of a result, in order, for cross-checking engines.
    func resultKeys(_ query: Query) throws -> [String] {
        try execute(query).map(\.key.description)
    }
}

/// The timestamp local writes of the suite carry.
let benchWriteTime = Timestamp(seconds: 1_760_000_000, nanoseconds: 0)
