import CairnDatabaseCore

/// The REST API's event stream (`Accept: text/event-stream`), as Firebase documents it: events `put` (replace
/// the data at a path relative to the stream's location) and `patch` (update children there), each with a JSON
/// object `{"path": ..., "data": ...}`, and `keep-alive` with data `null`.
///
/// ```text
/// event: put
/// data: {"path":"/","data":{"a":1}}
///
/// ```
enum EventStreamFormat {
    static func put(_ relative: DatabasePath, _ node: Node) -> String {
        format("put", .object(["path": .string(relative.description), "data": node.valueJSON()]))
    }

    static let keepAlive = "event: keep-alive\ndata: null\n\n"

    /// The event for an update of the stream's data, its path made relative to the stream's location.
    static func event(_ update: PathUpdate, relativeTo base: DatabasePath) -> String {
        switch update {
        case .overwrite(let path, let node):
            return put(DatabasePath.relative(from: base, to: path) ?? .root, node)
        case .merge(let path, let children):
            var data: [String: JSONValue] = [:]
            for (relative, node) in children { data[relative.keys.joined(separator: "/")] = node.valueJSON() }
            let relative = DatabasePath.relative(from: base, to: path) ?? .root
            return format("patch", .object(["path": .string(relative.description), "data": .object(data)]))
        }
    }

    private static func format(_ event: String, _ data: JSONValue) -> String {
        "event: \(event)\ndata: \(ServerMessages.encode(data))\n\n"
    }
}
