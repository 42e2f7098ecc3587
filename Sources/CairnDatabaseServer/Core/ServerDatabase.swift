import CairnDatabaseCore

/// The server's data: one tree per namespace (a database), as immutable ``Node``s. Applying a write resolves its
/// server values (`{".sv": "timestamp"}`, `{".sv": {"increment": n}}`) against the data it replaces, optionally
/// after a compare-and-set on the hash of that data (Firebase's transactions), and returns the write as stored.
///
/// ```swift
/// var database = ServerDatabase()
/// let stored = try database.apply(.set(DatabasePath(keys: ["a"]), node), namespace: "demo", timestamp: 1_700_000_000_000)
/// database.read(namespace: "demo", path: .root)
/// ```
package struct ServerDatabase: Sendable {
    private var trees: [String: Node] = [:]

    package init() {}

    /// The namespaces that hold data.
    package var namespaces: [String] { trees.keys.filter { !(trees[$0]?.isEmpty ?? true) }.sorted() }

    package func read(namespace: String, path: DatabasePath) -> Node {
        (trees[namespace] ?? .empty).child(path)
    }

    /// Applies `write` to the namespace's tree and returns it with its server values resolved.
    ///
    /// - Parameter expectedHash: for a set, the hash the data at its path must have (`""` for no data); nil
    ///   writes unconditionally.
    /// - Throws: ``ServerError`` `dataStale` when the hash differs; nothing is changed then.
    @discardableResult
    package mutating func apply(
        _ write: ServerWrite, namespace: String, expectedHash: String? = nil, timestamp: Int64
    ) throws(ServerError) -> ServerWrite {
        var root = trees[namespace] ?? .empty
        let resolved: ServerWrite
        switch write {
        case .set(let path, let node):
            let existing = root.child(path)
            if let expectedHash, existing.hash != expectedHash {
                throw ServerError(.dataStale, "the data at \(path) changed: its hash is no longer \(expectedHash.isEmpty ? "that of no data" : expectedHash)")
            }
            let stored = ServerValues.resolve(node, existing: existing, timestamp: timestamp)
            root = root.updateChild(path, stored)
            resolved = .set(path, stored)
        case .merge(let path, let children):
            var stored: [(DatabasePath, Node)] = []
            for (relative, node) in children {
                let full = path.child(relative)
                let value = ServerValues.resolve(node, existing: root.child(full), timestamp: timestamp)
                root = root.updateChild(full, value)
                stored.append((relative, value))
            }
            resolved = .merge(path, stored)
        }
        trees[namespace] = root
        return resolved
    }
}
