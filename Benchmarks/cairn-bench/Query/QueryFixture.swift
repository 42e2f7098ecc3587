// The query suite's shared fixture: the corpus loaded once per engine into the scratch directory, a warm
// open cache per engine for the query workloads, and copies of the loaded cache for workloads that change it
// (listener writes, garbage collection) or must open it themselves (cold open). A loaded cache has one owner
// at a time (Cairn's LOCK file, SQLite's exclusive locking mode), so the warm cache is closed before the
// directory is opened or copied by anyone else. With a fixture cache (`--fixture-cache`, FixtureCache.swift)
// a persistent engine's loaded cache is copied from the cache instead of loaded, or stored there after its load;
// either way the runs work on the scratch directory's copy, never on the cache's.

import Foundation

/// The loaded caches of one corpus.
final class QueryFixture {
    let corpus: QueryCorpus
    let scratch: ScratchDirectory
    /// Where loaded caches are kept between runs; nil loads every engine in every run.
    let cache: FixtureCache?
    private var directories: [String: String] = [:]
    private var warm: [String: any QueryCache] = [:]

    init(corpus: QueryCorpus, scratch: ScratchDirectory, cache: FixtureCache? = nil) {
        self.corpus = corpus
        self.scratch = scratch
        self.cache = cache
    }

    /// The directory of `engine`'s loaded cache, loading it (or copying it from the fixture cache) on first use.
    func directory(for engine: any QueryEngine) throws -> String {
        if let directory = directories[engine.name] { return directory }
        let directory = try scratch.freshDirectory("fixture/\(engine.name)")
        let identity = engine.isPersistent ? cache.map { _ in
            FixtureIdentity(engine: engine.name, documents: corpus.count, corpus: corpus.fingerprint, layout: engine.layout)
        } : nil
        if let cache, let identity, try cache.restore(identity, into: directory) {
            sync()
        } else {
            Console.progress("loading \(Console.compact(Double(corpus.count))) documents into \(engine.name)")
            let clock = ContinuousClock()
            let start = clock.now
            try engine.load(corpus, into: directory)
            let elapsed = clock.now - start
            sync()   // as after a copy: no write-back of the load during timed work
            let size = engine.isPersistent ? ", \(Console.megabytes(scratch.diskBytes(directory))) on disk" : ""
            Console.progress("loaded \(engine.name) in \(Console.seconds(elapsed))\(size)")
            if let cache, let identity {
                do {
                    try cache.store(identity, from: directory, loadSeconds: elapsed.seconds)
                } catch {
                    Console.progress("fixture cache: could not store \(engine.name)'s loaded cache (\(error)); the run "
                        + "goes on, the next one loads it again")
                }
            }
        }
        directories[engine.name] = directory
        return directory
    }

    /// `engine`'s loaded cache, open and caught up (index backfill done); opened on first use and kept open.
    func warmCache(for engine: any QueryEngine) throws -> any QueryCache {
        if let cache = warm[engine.name] { return cache }
        let cache = try engine.open(try directory(for: engine))
        try cache.catchUp()
        warm[engine.name] = cache
        return cache
    }

    /// Closes `engine`'s warm cache, if open, so that its directory can be opened or copied.
    func closeWarmCache(for engine: any QueryEngine) throws {
        try warm.removeValue(forKey: engine.name)?.close()
    }

    /// A new copy of `engine`'s loaded cache in `name`, for a run that changes it. The copy is flushed to disk
    /// (`sync`) before this returns: otherwise the kernel writes its hundreds of megabytes back while the next
    /// timed writes wait on their own `fdatasync` (measured: a first listener run at 3.3 ms median, the next
    /// ones at 0.3–0.45 ms).
    func copy(for engine: any QueryEngine, name: String) throws -> String {
        let source = try directory(for: engine)
        try closeWarmCache(for: engine)
        let destination = scratch.path + "/" + name
        try scratch.remove(destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        sync()
        return destination
    }

    /// Closes every warm cache.
    func closeAll() throws {
        for name in Array(warm.keys) { try warm.removeValue(forKey: name)?.close() }
    }
}
