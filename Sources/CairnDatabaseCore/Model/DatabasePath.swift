/// A location in the database: a list of keys from the root. `"/a/b"` and `"a/b/"` are the same path; the root is
/// the empty path. ``DatabasePath/init(_:)`` validates keys as Firebase does (see ``KeyValidation``);
/// ``DatabasePath/init(unvalidated:)`` is for keys that were validated already (server data, internal paths).
///
/// ```swift
/// let path = try DatabasePath("users/ada")
/// path.child("name").description   // "/users/ada/name"
/// path.parent?.description         // "/users"
/// ```
package struct DatabasePath: Hashable, Sendable, CustomStringConvertible {
    package private(set) var keys: [String]

    package static let root = DatabasePath(keys: [])

    package init(keys: [String]) {
        self.keys = keys
    }

    /// A path from a slash-separated string, each key validated; `.info` paths and `.priority` as the last key
    /// are allowed.
    package init(_ string: String) throws(DatabaseCoreError) {
        let keys = string.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for (position, key) in keys.enumerated() {
            let isInfoRoot = position == 0 && key == ".info"
            let isPriority = position == keys.count - 1 && key == ".priority"
            if !isInfoRoot && !isPriority { try KeyValidation.validateKey(key) }
        }
        self.keys = keys
        try KeyValidation.validatePath(self)
    }

    /// A path from a slash-separated string whose keys are trusted (from the server or built internally).
    package init(unvalidated string: String) {
        keys = string.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    package var isEmpty: Bool { keys.isEmpty }
    package var count: Int { keys.count }
    package var front: String? { keys.first }
    package var back: String? { keys.last }

    /// The path without its first key (the root stays the root).
    package var popFront: DatabasePath { DatabasePath(keys: Array(keys.dropFirst())) }

    /// The parent path, nil for the root.
    package var parent: DatabasePath? { keys.isEmpty ? nil : DatabasePath(keys: Array(keys.dropLast())) }

    package func child(_ key: String) -> DatabasePath { DatabasePath(keys: keys + [key]) }

    package func child(_ path: DatabasePath) -> DatabasePath { DatabasePath(keys: keys + path.keys) }

    /// True when `other` is this path or below it.
    package func contains(_ other: DatabasePath) -> Bool {
        other.keys.count >= keys.count && Array(other.keys.prefix(keys.count)) == keys
    }

    /// The path of `inner` relative to `outer`, nil when `inner` is not at or below `outer`.
    package static func relative(from outer: DatabasePath, to inner: DatabasePath) -> DatabasePath? {
        guard outer.contains(inner) else { return nil }
        return DatabasePath(keys: Array(inner.keys.dropFirst(outer.keys.count)))
    }

    package var description: String { keys.isEmpty ? "/" : "/" + keys.joined(separator: "/") }
}
