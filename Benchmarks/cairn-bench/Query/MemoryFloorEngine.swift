// The floor (`limit` column): the query as a tight loop over an in-memory array of already-decoded
// documents — `Query.results(from:)` over the documents of the query's collection (or collection group),
// with nothing to read, decode or look up. No cache can answer a scan faster with the same matching code.

import CairnModel

/// Decoded documents in memory, grouped by collection; it only answers queries.
final class MemoryFloorEngine: QueryEngine {
    let name = "limit"
    let isPersistent = false
    let layout = "decoded documents in memory (nothing on disk to cache)"
    private var documentsByCollection: [ResourcePath: [Document]] = [:]

    func load(_ corpus: QueryCorpus, into directory: String) throws {
        documentsByCollection = [:]
        for index in 0..<corpus.count {
            let document = corpus.document(at: index)
            documentsByCollection[document.key.collectionPath, default: []].append(document)
        }
    }

    func open(_ directory: String) throws -> any QueryCache {
        MemoryFloorCache(documentsByCollection: documentsByCollection)
    }
}

/// The floor's "cache": read-only arrays.
final class MemoryFloorCache: QueryCache {
    private let documentsByCollection: [ResourcePath: [Document]]
    private let collectionsByGroup: [String: [ResourcePath]]

    init(documentsByCollection: [ResourcePath: [Document]]) {
        self.documentsByCollection = documentsByCollection
        collectionsByGroup = Dictionary(grouping: documentsByCollection.keys) { $0.lastSegment ?? "" }
    }

    func execute(_ query: Query) throws -> [Document] {
        guard let group = query.collectionGroup else { return query.results(from: documentsByCollection[query.path] ?? []) }
        let collections = (collectionsByGroup[group] ?? []).filter { query.path.isPrefix(of: $0) }
        return query.results(from: collections.lazy.flatMap { self.documentsByCollection[$0] ?? [] })
    }

    func write(_ mutations: [Mutation]) throws { throw unsupported("local writes") }
    func listen(_ query: Query) throws { throw unsupported("listening") }
    func cacheBytes() throws -> Int64 { throw unsupported("a cache size") }
    func collectGarbageRound(threshold: Int64) throws -> Bool { throw unsupported("garbage collection") }
    func close() throws {}

    private func unsupported(_ what: String) -> BenchError {
        BenchError("the in-memory floor has no \(what); only query workloads run against it")
    }
}
