import CairnTestSupport
import Foundation
import SegmentLog
@testable import CairnDatabaseCore

/// A fresh directory under the temporary directory, removed by the caller.
func temporaryCacheDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("rtdb-cache-" + UUID().uuidString.prefix(8)).path
}

/// A log on `fs` with small frames and segments, so that tests cross frame and segment boundaries.
func smallCacheLog(_ fs: SimulatedFileSystem) -> SegmentLog.Configuration {
    var configuration = DatabaseCache.defaultLogConfiguration
    configuration.fileSystem = fs
    configuration.frameTargetSize = 512
    configuration.segmentTargetSize = 4096
    configuration.preallocationSize = 0
    return configuration
}

func dbPath(_ text: String) -> DatabasePath { DatabasePath(unvalidated: text) }

func dbNode(_ json: String) -> Node {
    // Test data is valid JSON by construction.
    try! Node(json: try! JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))
}

/// A node as compact JSON with sorted keys.
func json(_ node: Node) -> String { Node.canonicalJSON(node.exportJSON()) }

/// What the cache holds, as text: the server data at `paths`, the tracked queries, their keys, the writes.
func describeCache(_ cache: DatabaseCache, paths: [String]) throws -> [String] {
    try paths.map { "\($0) = \(json(try cache.serverCache(at: dbPath($0))))" }
        + cache.trackedQueries.values.sorted { $0.id < $1.id }.map {
            "query \($0.id) \($0.query) complete=\($0.isComplete) active=\($0.isActive) keys=\((cache.trackedKeys[$0.id] ?? []).sorted())"
        }
        + cache.writes.values.sorted { $0.id < $1.id }.map { write in
            "write \(write.id) \(write.path) \(write.overwrite.map(json) ?? (write.merge ?? []).map { "\($0.0)=\(json($0.1))" }.joined(separator: ","))"
        }
        + ["session \(cache.session)"]
}
