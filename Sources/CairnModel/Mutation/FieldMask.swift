/// A set of field paths that a patch mutation writes: every path in the mask is replaced with the patch's value
/// at that path, or deleted when the patch has no value there.
///
/// The paths are kept sorted (``FieldPath`` order) and unique, so two masks with the same paths are equal and
/// a mask is applied in the same order on every device, as the Firebase SDKs do (`FieldMask` in
/// `model/field_mask.cc`, `model/field_mask.ts`).
///
/// ```swift
/// let mask = FieldMask([FieldPath(segments: ["address"]), FieldPath(segments: ["name"])])
/// mask.covers(FieldPath(segments: ["address", "city"]))   // true: `address` is a prefix
/// mask.covers(FieldPath(segments: ["age"]))               // false
/// ```
package struct FieldMask: Sendable, Hashable {
    /// The paths, sorted and without duplicates.
    package let fields: [FieldPath]

    /// A mask of the given paths (duplicates are dropped, order does not matter).
    package init<S: Sequence>(_ fields: S) where S.Element == FieldPath {
        self.fields = Array(Set(fields)).sorted()
    }

    /// The empty mask: a patch with it writes no field.
    package init() { self.fields = [] }

    package var isEmpty: Bool { fields.isEmpty }

    /// Whether `path` is one of the mask's paths or lies below one (a mask path is a prefix of it).
    ///
    /// ```swift
    /// FieldMask([FieldPath(segments: ["a"])]).covers(FieldPath(segments: ["a", "b"]))   // true
    /// ```
    package func covers(_ path: FieldPath) -> Bool {
        fields.contains { $0.isPrefix(of: path) }
    }

    /// Whether `path` is exactly one of the mask's paths.
    package func contains(_ path: FieldPath) -> Bool {
        fields.contains(path)
    }

    /// The mask with the paths of both masks.
    ///
    /// ```swift
    /// FieldMask([a]).union([b, a])   // FieldMask([a, b])
    /// ```
    package func union<S: Sequence>(_ other: S) -> FieldMask where S.Element == FieldPath {
        FieldMask(fields + Array(other))
    }

    /// The mask with the paths of both masks.
    package func union(_ other: FieldMask) -> FieldMask { union(other.fields) }

    /// The mask that writes every leaf of `object`: one path per non-map value, descending into maps. An empty
    /// nested map is a leaf (its own path), so writing the mask keeps it. This is how "set with merge" without
    /// explicit merge fields picks the fields to write (`ObjectValue::ToFieldMask` in the SDKs).
    ///
    /// ```swift
    /// // {a: 1, b: {c: 2, d: {}}}  →  [a, b.c, b.d]
    /// FieldMask(leavesOf: object)
    /// ```
    package init(leavesOf object: ObjectValue) {
        var paths: [FieldPath] = []
        Self.collectLeaves(of: object, under: [], into: &paths)
        self.init(paths)
    }

    private static func collectLeaves(of object: ObjectValue, under prefix: [String], into paths: inout [FieldPath]) {
        for (key, value) in object.fields {
            let segments = prefix + [key]
            // A vector is one value, not a map of fields to patch one by one.
            if case .map(let nested) = value, !nested.fields.isEmpty, nested.vectorElements == nil {
                collectLeaves(of: nested, under: segments, into: &paths)
            } else {
                paths.append(FieldPath(segments: segments))
            }
        }
    }
}

extension FieldMask: CustomStringConvertible {
    /// `{a b.c}`: the canonical strings of the paths.
    package var description: String {
        "{" + fields.map(\.canonicalString).joined(separator: " ") + "}"
    }
}
