/// How Firestore compares, equates and hashes path segments (of resource paths and field paths alike).
///
/// Segments are compared by their UTF-8 bytes (``BytewiseOrder``), never by Swift's `String` comparison, which
/// treats canonically equivalent strings such as `"é"` and `"e\u{301}"` as equal: Firestore stores them as two
/// different document IDs. Numeric IDs are the one exception to byte order. Documents imported from Datastore
/// expose their integer IDs as segments of the form `__id<integer>__`; the backend sorts those before every
/// other segment and by numeric value, and the Firebase SDKs do the same
/// (firebase-ios-sdk `Firestore/core/src/model/base_path.h` `CompareSegments`, firebase-js-sdk
/// `packages/firestore/src/model/path.ts` `compareSegments`).
///
/// Two details differ from the SDKs, on purpose:
/// - a segment counts as numeric only when everything between `__id` and `__` is a base-10 `Int64` (the iOS SDK
///   would crash on `__idabc__`, the JS SDK compares it as NaN);
/// - two numeric segments with the same value but different bytes (`__id7__`, `__id07__`) are ordered by their
///   bytes, so that the order is total and consistent with `==`.
///
/// ```swift
/// PathSegmentOrder.compare("__id20__", "__id3__")   // +1: 20 > 3, numerically
/// PathSegmentOrder.compare("__id99__", "a")         // -1: numeric IDs first
/// PathSegmentOrder.compare("\u{FFFF}", "😀")         // -1: EF BF BF < F0 9F 98 80 (UTF-16 order says +1)
/// ```
enum PathSegmentOrder {
    /// Three-way comparison of two segments: -1, 0 or 1.
    static func compare(_ a: String, _ b: String) -> Int {
        switch (numericID(a), numericID(b)) {
        case let (x?, y?):
            if x != y { return x < y ? -1 : 1 }
            return BytewiseOrder.compare(a, b)
        case (.some, nil):
            return -1
        case (nil, .some):
            return 1
        case (nil, nil):
            return BytewiseOrder.compare(a, b)
        }
    }

    /// Three-way comparison of two paths, segment by segment; a proper prefix sorts first.
    static func compare(_ a: [String], _ b: [String]) -> Int {
        for (x, y) in zip(a, b) {
            let result = compare(x, y)
            if result != 0 { return result }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// True when both paths have the same segments, byte for byte.
    static func equal(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { BytewiseOrder.equal($0, $1) }
    }

    /// True when `prefix` has no more segments than `path` and they agree byte for byte on them.
    static func isPrefix(_ prefix: [String], of path: [String]) -> Bool {
        prefix.count <= path.count && zip(prefix, path).allSatisfy { BytewiseOrder.equal($0, $1) }
    }

    /// Feeds the segments to `hasher` consistently with ``equal(_:_:)``.
    static func hash(_ segments: [String], into hasher: inout Hasher) {
        hasher.combine(segments.count)
        for segment in segments { BytewiseOrder.hash(segment, into: &hasher) }
    }

    /// The integer of a numeric ID segment `__id<integer>__` (an optional sign and base-10 digits that fit an
    /// `Int64`), or `nil` for any other segment.
    static func numericID(_ segment: String) -> Int64? {
        let bytes = segment.utf8
        guard bytes.count > 6, bytes.starts(with: "__id".utf8), bytes.reversed().starts(with: "__".utf8) else {
            return nil
        }
        // The prefix and suffix are ASCII, so these UTF-8 indices fall on character boundaries.
        let start = bytes.index(bytes.startIndex, offsetBy: 4)
        let end = bytes.index(bytes.endIndex, offsetBy: -2)
        return Int64(segment[start..<end])
    }
}
