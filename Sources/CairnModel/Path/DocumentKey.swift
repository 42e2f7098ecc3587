/// The key of a document: a resource path with an even, non-zero number of segments, such as `users/ada`.
///
/// Keys compare, hash and sort as their paths do (UTF-8 bytes per segment, numeric Datastore IDs first, a
/// parent collection's documents contiguous), which is the order the server uses for `__name__`.
///
/// ```swift
/// let key = try DocumentKey(parsing: "users/ada/posts/p1")
/// key.collectionGroup                        // "posts"
/// key.documentID                             // "p1"
/// try DocumentKey(parsing: "users")          // throws: a document path needs an even number of segments
/// ```
package struct DocumentKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let path: ResourcePath

    /// A key from a path already known to be a document path (no validation beyond a precondition).
    package init(path: ResourcePath) {
        precondition(path.count >= 2 && path.count % 2 == 0, "a document key needs an even number of segments")
        self.path = path
    }

    /// A key from a path that must name a document: an even, non-zero number of segments, none empty. The
    /// message follows the Firebase SDKs' `validateDocumentPath`.
    ///
    /// This is the structural check every document reference needs; the server's constraints on the IDs
    /// themselves (reserved names, lengths) are ``PathValidation``'s, applied to writes.
    ///
    /// ```swift
    /// try DocumentKey(validating: ResourcePath(segments: ["users", "ada"]))   // users/ada
    /// try DocumentKey(validating: ResourcePath(segments: ["users"]))
    /// // invalidArgument: "Invalid document reference. Document references must have an even number of
    /// //                   segments, but users has 1."
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` naming the path and its segment count.
    package init(validating path: ResourcePath) throws(ModelError) {
        guard path.isDocumentPath else {
            throw ModelError.invalidArgument(
                "Invalid document reference. Document references must have an even number of segments, "
                    + "but \(path.quotedForMessage) has \(path.count).")
        }
        try path.validateNoEmptySegments(kind: "document")
        self.path = path
    }

    /// Parses a slash-separated document path (see ``ResourcePath/init(parsing:)``) and validates it as
    /// ``init(validating:)`` does.
    ///
    /// ```swift
    /// try DocumentKey(parsing: "/rooms/eros/")   // rooms/eros
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` for `//` or an odd number of segments.
    package init(parsing string: String) throws(ModelError) {
        try self.init(validating: ResourcePath(parsing: string))
    }

    /// The collection the document is in (e.g. `users/ada/posts` for `users/ada/posts/p1`).
    package var collectionPath: ResourcePath { path.parent! }
    /// The last segment of the collection path (the collection group).
    package var collectionGroup: String { path.segments[path.count - 2] }
    package var documentID: String { path.segments[path.count - 1] }

    /// The path joined with `/`, such as `users/ada`.
    package var description: String { path.canonicalString }

    package static func < (a: DocumentKey, b: DocumentKey) -> Bool { a.path < b.path }
    package static func == (a: DocumentKey, b: DocumentKey) -> Bool { a.path == b.path }
    package func hash(into hasher: inout Hasher) { path.hash(into: &hasher) }
}
