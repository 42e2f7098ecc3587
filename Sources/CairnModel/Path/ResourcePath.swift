/// A slash-separated path of segments relative to a database's `documents` root, such as `users/ada/posts/p1`.
/// An odd number of segments names a collection, an even number a document.
///
/// Equality, hashing and order follow Firestore, not Swift's `String`: segments are compared by their UTF-8
/// bytes (so `"é"` and `"e\u{301}"` are different IDs), numeric Datastore IDs (`__id42__`) sort first, and a
/// path sorts before every longer path it is a prefix of (see ``PathSegmentOrder``). That is the order in which
/// the server returns documents by key.
///
/// ```swift
/// let path = try ResourcePath(parsing: "/users/ada/")   // ["users", "ada"]; outer slashes are ignored
/// path.isDocumentPath                                   // true
/// path.appending("posts").isCollectionPath              // true
/// try ResourcePath(parsing: "users//ada")               // throws invalidArgument: empty segment
/// ResourcePath(segments: ["a"]) < ResourcePath(segments: ["a", "b"])   // true: a prefix sorts first
/// ```
package struct ResourcePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    package private(set) var segments: [String]

    /// A path from segments that are already known to be valid (no validation).
    package init(segments: [String]) { self.segments = segments }

    /// Parses a slash-separated path the way the Firebase SDKs do (`ResourcePath::FromString`): a leading or
    /// trailing `/` is ignored, `""` and `"/"` are the root path, and an empty segment anywhere else (`"a//b"`)
    /// is an error. Segments are split on the byte `/`, so a `/` followed by a combining mark still separates.
    ///
    /// ```swift
    /// try ResourcePath(parsing: "rooms/eros/messages").segments   // ["rooms", "eros", "messages"]
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` when the path contains `//`.
    package init(parsing string: String) throws(ModelError) {
        let slash = UInt8(ascii: "/")
        if zip(string.utf8, string.utf8.dropFirst()).contains(where: { $0 == slash && $1 == slash }) {
            throw ModelError.invalidArgument(
                "Invalid path (\(string)). Paths must not contain // in them; remove the empty segment.")
        }
        segments = string.utf8.split(separator: slash).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The root path: no segments.
    package static let root = ResourcePath(segments: [])

    package var count: Int { segments.count }
    package var isEmpty: Bool { segments.isEmpty }
    package var lastSegment: String? { segments.last }

    /// True for an odd number of segments: the path names a collection (`users`, `users/ada/posts`).
    package var isCollectionPath: Bool { count % 2 == 1 }
    /// True for an even, non-zero number of segments: the path names a document (`users/ada`).
    package var isDocumentPath: Bool { count > 0 && count % 2 == 0 }

    package func appending(_ segment: String) -> ResourcePath { ResourcePath(segments: segments + [segment]) }
    package func appending(_ other: ResourcePath) -> ResourcePath { ResourcePath(segments: segments + other.segments) }
    package var parent: ResourcePath? { segments.isEmpty ? nil : ResourcePath(segments: Array(segments.dropLast())) }

    /// The segments joined with `/`.
    package var canonicalString: String { segments.joined(separator: "/") }

    /// The segments joined with `/` (``canonicalString``).
    package var description: String { canonicalString }

    /// True when this path's segments are the first segments of `other` (a path is a prefix of itself).
    package func isPrefix(of other: ResourcePath) -> Bool {
        PathSegmentOrder.isPrefix(segments, of: other.segments)
    }

    /// True when `prefix` is a prefix of this path: `users/ada/posts/p1` has the prefix `users/ada`.
    package func hasPrefix(_ prefix: ResourcePath) -> Bool { prefix.isPrefix(of: self) }

    /// Checks that `path` can address a collection: an odd number of segments, none of them empty. The message
    /// follows the Firebase SDKs' `validateCollectionPath`.
    ///
    /// ```swift
    /// try ResourcePath.validateCollectionPath(ResourcePath(segments: ["users"]))          // ok
    /// try ResourcePath.validateCollectionPath(ResourcePath(segments: ["users", "ada"]))   // throws
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` naming the path and its segment count.
    package static func validateCollectionPath(_ path: ResourcePath) throws(ModelError) {
        guard path.isCollectionPath else {
            throw ModelError.invalidArgument(
                "Invalid collection reference. Collection references must have an odd number of segments, "
                    + "but \(path.quotedForMessage) has \(path.count).")
        }
        try path.validateNoEmptySegments(kind: "collection")
    }

    /// Throws when a segment is empty: `init(segments:)` accepts them, Firestore never does.
    func validateNoEmptySegments(kind: String) throws(ModelError) {
        if let index = segments.firstIndex(where: \.isEmpty) {
            throw ModelError.invalidArgument(
                "Invalid \(kind) reference (\(canonicalString)). Segment \(index + 1) is empty; "
                    + "collection and document IDs must not be empty.")
        }
    }

    /// The path as Firebase's messages show it, with the root path spelled out.
    var quotedForMessage: String { isEmpty ? "the root path" : canonicalString }

    package static func < (a: ResourcePath, b: ResourcePath) -> Bool {
        PathSegmentOrder.compare(a.segments, b.segments) < 0
    }

    package static func == (a: ResourcePath, b: ResourcePath) -> Bool {
        PathSegmentOrder.equal(a.segments, b.segments)
    }

    package func hash(into hasher: inout Hasher) { PathSegmentOrder.hash(segments, into: &hasher) }
}
