/// A client-side field index: the fields of one collection group's documents, each ascending, descending or
/// "contains" (one entry per array element), that the cache keeps in an ordered structure so that queries on
/// those fields need not scan every document (Firestore's `FieldIndex`, firebase-android-sdk
/// `model/FieldIndex.java`, firebase-ios-sdk `model/field_index.cc`; see the semantics notes §4.2).
///
/// Indexes come from ``IndexConfiguration/parse(_:)`` (the `firestore:indexes` JSON of
/// `setIndexConfiguration`) or from ``TargetIndexMatcher/buildTargetIndex()`` (automatic index creation). An
/// index is a value: two indexes with the same collection group and segments are the same index, whatever
/// their origin, and ``canonicalID`` names it stably across runs.
///
/// ```swift
/// let index = try FieldIndex(collectionGroup: "posts", segments: [
///     .init(FieldPath(segments: ["author"]), .ascending),
///     .init(FieldPath(segments: ["tags"]), .contains),
///     .init(FieldPath(segments: ["ts"]), .descending),
/// ])
/// index.arraySegment?.field            // tags
/// index.directionalSegments.count      // 2: author, ts
/// index.canonicalID                    // "posts|author:asc,tags:contains,ts:desc"
/// ```
package struct FieldIndex: Hashable, Sendable, Identifiable, CustomStringConvertible {
    /// One indexed field and how it is indexed.
    package struct Segment: Hashable, Sendable, CustomStringConvertible {
        /// How a field is indexed.
        package enum Kind: String, Hashable, Sendable {
            /// The field's value, in ascending value order (`"order": "ASCENDING"`).
            case ascending = "asc"
            /// The field's value, in descending value order (`"order": "DESCENDING"`).
            case descending = "desc"
            /// Each element of the field's array, for `array-contains` and `array-contains-any`
            /// (`"arrayConfig": "CONTAINS"`).
            case contains
        }

        package let field: FieldPath
        package let kind: Kind

        package init(_ field: FieldPath, _ kind: Kind) {
            self.field = field
            self.kind = kind
        }

        /// True for an ascending or descending segment, false for a contains segment.
        package var isDirectional: Bool { kind != .contains }

        /// True for a descending segment.
        package var isDescending: Bool { kind == .descending }

        /// The segment's part of ``FieldIndex/canonicalID``: the escaped field path, `:`, the kind
        /// (`author:asc`, `` `a.b`:desc ``, `tags:contains`).
        package var canonicalString: String { field.canonicalString + ":" + kind.rawValue }

        package var description: String { canonicalString }
    }

    /// The collection id whose documents the index covers, in every collection of that id (the SDKs do not
    /// tell collection indexes from collection group indexes).
    package let collectionGroup: String
    /// The indexed fields, in index order. At most one is ``Segment/Kind/contains``.
    package let segments: [Segment]
    /// The contains segment, if the index has one (SDK `getArraySegment`).
    package let arraySegment: Segment?
    /// The ascending and descending segments, in index order (SDK `getDirectionalSegments`).
    package let directionalSegments: [Segment]

    /// An index over `collectionGroup` with the given segments.
    ///
    /// - Throws: ``ModelError`` `invalidArgument` for an empty collection group or one containing `/`, no
    ///   segments, more than one contains segment, or a field that appears in two directional segments.
    package init(collectionGroup: String, segments: [Segment]) throws(ModelError) {
        if collectionGroup.isEmpty || collectionGroup.utf8.contains(UInt8(ascii: "/")) {
            throw .invalidArgument(
                "Invalid index: the collection group must be a non-empty collection id without '/', "
                    + "not '\(collectionGroup)'.")
        }
        if segments.isEmpty {
            throw .invalidArgument("Invalid index on '\(collectionGroup)': an index needs at least one field.")
        }
        let contains = segments.filter { $0.kind == .contains }
        if contains.count > 1 {
            throw .invalidArgument(
                "Invalid index on '\(collectionGroup)': at most one field may be CONTAINS, but "
                    + contains.map { "'\($0.field.canonicalString)'" }.joined(separator: " and ") + " are.")
        }
        var seen: Set<FieldPath> = []
        for segment in segments where segment.isDirectional && !seen.insert(segment.field).inserted {
            throw .invalidArgument(
                "Invalid index on '\(collectionGroup)': the field '\(segment.field.canonicalString)' is ordered "
                    + "twice; list each field once (a CONTAINS segment on the same field is allowed).")
        }
        self.collectionGroup = collectionGroup
        self.segments = segments
        self.arraySegment = contains.first
        self.directionalSegments = segments.filter(\.isDirectional)
    }

    /// A stable name for the index: the collection group (escaped like a field-path segment), `|`, then the
    /// segments' ``Segment/canonicalString`` joined with `,`. Equal indexes have ids with equal UTF-8 bytes and
    /// different ones different bytes, so the id can name persisted index state. (Swift's `String` `==` treats
    /// canonically equivalent ids such as `é` and `e\u{301}` as equal: compare ids by their UTF-8 bytes, or key
    /// dictionaries by the `FieldIndex` itself.)
    ///
    /// ```text
    /// canonical-id = escaped-group "|" segment *( "," segment )
    /// segment      = escaped-field-path ":" ( "asc" / "desc" / "contains" )
    /// ```
    package var canonicalID: String {
        FieldPath.escapedSegment(collectionGroup) + "|" + segments.map(\.canonicalString).joined(separator: ",")
    }

    /// The ``canonicalID``.
    package var id: String { canonicalID }

    package var description: String { "FieldIndex(\(canonicalID))" }

    /// Indexes are equal when their collection groups have the same UTF-8 bytes (as Firestore compares ids,
    /// without Unicode normalisation) and their segments are equal.
    package static func == (a: FieldIndex, b: FieldIndex) -> Bool {
        BytewiseOrder.equal(a.collectionGroup, b.collectionGroup) && a.segments == b.segments
    }

    package func hash(into hasher: inout Hasher) {
        BytewiseOrder.hash(collectionGroup, into: &hasher)
        hasher.combine(segments)
    }
}
