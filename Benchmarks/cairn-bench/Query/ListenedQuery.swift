// What `listener_latency` needs from an engine: a query kept listened to on an open copy of the cache, and a
// way to patch one of its documents and learn how long it took until the listened result showed the patch.
// Engines without a listen path of their own (the Android-style SQLite and iOS-style LevelDB caches) use `RequeryListener`: the write,
// then a re-run of the whole query — what an app built on such a cache does when it is told of a change.
// Cairn answers through its client core (`FirestoreListener`).

import CairnModel

/// A query listened to on an open cache, for `listener_latency`.
protocol ListenedQuery: AnyObject {
    /// The document IDs of the listened result, in the query's order.
    var documentIDs: [String] { get }
    /// Sets `edited` to true and `text` to `text` on document `documentID` of the listened collection, and
    /// returns the milliseconds from the write to the moment the listened result shows it.
    func patch(documentID: String, text: String) throws -> Double
    /// Stops listening and closes the cache.
    func close() throws
}

/// A listened query answered by re-running it after each write (the SQLite and LevelDB columns).
final class RequeryListener: ListenedQuery {
    private let cache: any QueryCache
    private let query: Query
    private(set) var documentIDs: [String]

    /// Opens `directory` with `engine`, finishes its background work, and saves an active target for `query`.
    init(engine: any QueryEngine, directory: String, query: Query) throws {
        cache = try engine.open(directory)
        self.query = query
        try cache.catchUp()
        try cache.listen(query)
        documentIDs = try cache.execute(query).map(\.key.documentID)
    }

    func patch(documentID: String, text: String) throws -> Double {
        let key = DocumentKey(path: query.path.appending(documentID))
        let value = ObjectValue(["edited": .boolean(true), "text": .string(text)])
        let mask = FieldMask([FieldPath(segments: ["edited"]), FieldPath(segments: ["text"])])
        var result: [Document] = []
        let elapsed = try QueryHarness.milliseconds {
            try cache.write([.patch(key, value: value, mask: mask)])
            result = try cache.execute(query)
        }
        guard result.count == documentIDs.count,
            result.contains(where: { $0.key == key && $0.hasLocalMutations && $0.data.fields["text"] == .string(text) })
        else {
            throw BenchError("listener_latency: the re-run query does not show the write to \(key)")
        }
        return elapsed
    }

    func close() throws { try cache.close() }
}
