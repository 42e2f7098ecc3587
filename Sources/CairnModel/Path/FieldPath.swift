/// A path to a field inside a document: segments such as `["address", "city"]`. The special path
/// `__name__` stands for the document key.
///
/// There are three ways to build one from user or wire input, matching the Firebase SDKs:
/// - ``init(_:)``: literal segments, as `FieldPath(["a.b", "c"])` in the public API (a dot is just a character);
/// - ``init(parsingDotted:)``: a dotted string from the user, as in `whereField("address.city", ...)`;
/// - ``init(parsingServerFormat:)``: the escaped form the server uses (``canonicalString``).
///
/// Equality, hashing and order are segment-wise by UTF-8 bytes (see ``PathSegmentOrder``), never Swift's
/// Unicode-equivalence `String` comparison.
///
/// ```swift
/// let city = try FieldPath(parsingDotted: "address.city")   // ["address", "city"]
/// let odd = try FieldPath(["a.b", "c"])                      // two segments; the first contains a dot
/// odd.canonicalString                                        // "`a.b`.c"
/// city.parent?.isPrefix(of: city)                            // true
/// ```
package struct FieldPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    package private(set) var segments: [String]

    /// A field path from segments already known to be valid (no validation).
    package init(segments: [String]) { self.segments = segments }

    /// A field path from literal segment names (the public `FieldPath(["a", "b"])` form): a `.` or backtick in a
    /// name is part of the name. Needs at least one segment and no empty segment, with the Firebase SDKs'
    /// messages (`FIRFieldPath initWithFields:`, `FieldPath::ValidateSegments`).
    ///
    /// ```swift
    /// try FieldPath(["prices", "1.5kg"]).count   // 2
    /// try FieldPath([])                          // throws: names must not be empty
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` for no segments or an empty segment.
    package init(_ segments: [String]) throws(ModelError) {
        guard !segments.isEmpty else {
            throw ModelError.invalidArgument(
                "Invalid field path. Provided names must not be empty; pass at least one field name.")
        }
        if let index = segments.firstIndex(where: \.isEmpty) {
            throw ModelError.invalidArgument(
                "Invalid field name at index \(index). Field names must not be empty.")
        }
        self.segments = segments
    }

    /// Parses a user's dot-separated field path such as `"address.city"`, as the Firebase SDKs' string
    /// overloads do (`FieldPath::FromDotSeparatedString`): the characters `~ * / [ ]` are rejected, and so are
    /// an empty string, a leading or trailing `.`, and `..`. Backticks have no meaning here; to name a field
    /// that contains a dot, use ``init(_:)``.
    ///
    /// ```swift
    /// try FieldPath(parsingDotted: "a.b.c").segments   // ["a", "b", "c"]
    /// try FieldPath(parsingDotted: "a..b")             // throws: must not contain '..'
    /// try FieldPath(parsingDotted: "tags[0]")          // throws: must not contain '[' or ']'
    /// ```
    ///
    /// - Throws: ``ModelError`` `invalidArgument` with the Firebase SDKs' messages.
    package init(parsingDotted string: String) throws(ModelError) {
        if string.utf8.contains(where: Self.reservedInDottedPaths.contains) {
            throw ModelError.invalidArgument(
                "Invalid field path (\(string)). Paths must not contain '~', '*', '/', '[', or ']'. "
                    + "To use such characters in a field name, pass the segments to FieldPath([...]).")
        }
        let parts = string.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.contains(where: \.isEmpty) {
            throw ModelError.invalidArgument(Self.emptySegmentMessage(string))
        }
        segments = parts.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The document key pseudo-field `__name__`.
    package static let documentKey = FieldPath(segments: ["__name__"])

    package var isDocumentKey: Bool { self == FieldPath.documentKey }
    package var count: Int { segments.count }
    package var isEmpty: Bool { segments.isEmpty }

    /// The last segment: `"city"` for `address.city`; `nil` for the empty path.
    package var lastSegment: String? { segments.last }

    /// The path without its last segment: `address` for `address.city`, the empty path for `address`, and `nil`
    /// for the empty path.
    package var parent: FieldPath? { segments.isEmpty ? nil : FieldPath(segments: Array(segments.dropLast())) }

    /// This path followed by one more (literal) segment.
    package func appending(_ segment: String) -> FieldPath { FieldPath(segments: segments + [segment]) }

    /// This path followed by the segments of `other`.
    package func appending(_ other: FieldPath) -> FieldPath { FieldPath(segments: segments + other.segments) }

    /// True when this path's segments are the first segments of `other`: `a` is a prefix of `a.b` and of `a`.
    package func isPrefix(of other: FieldPath) -> Bool { PathSegmentOrder.isPrefix(segments, of: other.segments) }

    /// The escaped form (``canonicalString``).
    package var description: String { canonicalString }

    package static func < (a: FieldPath, b: FieldPath) -> Bool {
        PathSegmentOrder.compare(a.segments, b.segments) < 0
    }

    package static func == (a: FieldPath, b: FieldPath) -> Bool { PathSegmentOrder.equal(a.segments, b.segments) }

    package func hash(into hasher: inout Hasher) { PathSegmentOrder.hash(segments, into: &hasher) }

    /// The bytes a user's dotted field path must not contain: `~ * / [ ]`.
    static let reservedInDottedPaths: Set<UInt8> = Set("~*/[]".utf8)

    /// The Firebase SDKs' message for an empty segment in a parsed field path.
    static func emptySegmentMessage(_ string: String) -> String {
        "Invalid field path (\(string)). Paths must not be empty, begin with '.', end with '.', or contain '..'"
    }
}
