import CairnDatabaseCore

/// One write as the server applies it: a set (put) of a node at a path, or a merge (update) of children given by
/// relative paths. Both the WebSocket session (`p`, `m`, onDisconnect `o`/`om`) and the REST API (PUT, PATCH, POST,
/// DELETE) produce these; ``ServerDatabase`` applies them.
///
/// ```swift
/// let write = try ServerWrite.decodeMerge(path: DatabasePath("users/ada"), data: .object(["age": .int(37), "stats/games": .int(1)]))
/// ```
package enum ServerWrite: Sendable {
    case set(DatabasePath, Node)
    /// Children by path relative to the merge's path, in the order they are applied.
    case merge(DatabasePath, [(DatabasePath, Node)])

    package var path: DatabasePath {
        switch self {
        case .set(let path, _), .merge(let path, _): path
        }
    }

    /// Every path the write changes (the set's path, or each merged child's full path): what rules check.
    package var changedPaths: [DatabasePath] {
        switch self {
        case .set(let path, _): [path]
        case .merge(let path, let children): children.map { path.child($0.0) }
        }
    }

    /// A set of JSON data at `path`: the data is validated (keys, depth, numbers, priorities).
    package static func decodeSet(path: DatabasePath, data: JSONValue) throws(ServerError) -> ServerWrite {
        .set(path, try node(data, at: path))
    }

    /// A merge of `{"relative/path": value}` at `path`; an empty object or a non-object is an error.
    package static func decodeMerge(path: DatabasePath, data: JSONValue) throws(ServerError) -> ServerWrite {
        guard case .object(let members) = data else {
            throw ServerError(.invalidData, "an update needs an object of child paths to values, got \(kind(of: data))")
        }
        var children: [(DatabasePath, Node)] = []
        for key in members.keys.sorted() {
            let relative: DatabasePath
            do {
                relative = try DatabasePath(key)
            } catch {
                throw ServerError(.invalidPath, "the update key \"\(key.prefix(64))\": \(error.message)")
            }
            if relative.isEmpty {
                throw ServerError(.invalidPath, "an update key must name a child path, got \"\(key.prefix(64))\"")
            }
            let full = path.child(relative)
            try validate(full)
            children.append((relative, try node(members[key]!, at: full)))
        }
        for (index, child) in children.enumerated() {
            for other in children[(index + 1)...] where child.0.contains(other.0) || other.0.contains(child.0) {
                throw ServerError(.invalidData, "the update paths \(child.0) and \(other.0) overlap; an update's paths must be independent")
            }
        }
        return .merge(path, children)
    }

    /// The path parsed from wire or URL text, validated as Firebase validates paths.
    package static func parsePath(_ text: String) throws(ServerError) -> DatabasePath {
        let path: DatabasePath
        do {
            path = try DatabasePath(text)
        } catch {
            throw ServerError(.invalidPath, "the path \"\(text.prefix(64))\" is invalid: \(error.message)")
        }
        if path.front == ".info" {
            throw ServerError(.invalidPath, "the path \"\(text.prefix(64))\" is under .info, which exists only in clients")
        }
        return path
    }

    private static func validate(_ path: DatabasePath) throws(ServerError) {
        do {
            try KeyValidation.validatePath(path)
        } catch {
            throw ServerError(.invalidPath, error.message)
        }
    }

    private static func node(_ data: JSONValue, at path: DatabasePath) throws(ServerError) -> Node {
        do {
            return try Node(json: data)
        } catch {
            throw ServerError(.invalidData, "the data for \(path): \(error.message)")
        }
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
