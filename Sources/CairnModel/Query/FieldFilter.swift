/// A filter on one field: `field op value`, such as `age >= 18` or `tags array-contains "swift"`.
///
/// Matching follows the Firebase SDKs' client-side rules (iOS `core/field_filter.cc` and the `*_filter.cc`
/// subclasses, JS `core/filter.ts`), which is how the cache answers queries offline:
/// - a document without the field never matches (not even `!=` or `not-in`);
/// - `<`, `<=`, `==`, `>=`, `>` compare with ``Value/compare(_:_:)`` and only match values of the filter value's
///   ``TypeOrder``: `== 1` matches `1.0`, `> 1` never matches a string, `== null` matches only null,
///   `== NaN` matches only NaN, and NaN sorts below every other number (so `< 1` matches NaN, as in the SDKs);
/// - `!=` matches any type except null: `!= NaN` excludes NaN and null, `!= 1` also excludes `1.0`;
/// - `array-contains`, `array-contains-any`, `in` and `not-in` test membership with Firestore's `valuesEqual`
///   (``Value``'s `==`), which is type-strict for numbers: `in [1]` does not match `1.0`, exactly as the SDKs;
/// - `not-in` never matches null, and matches nothing when its list contains null;
/// - on ``FieldPath/documentKey`` (`__name__`) the value is a `.reference` (for `in`/`not-in` an array of them)
///   and the document's key is compared instead of a field: keys order segment by segment
///   (iOS `key_field_filter.cc`, `key_field_in_filter.cc`, `key_field_not_in_filter.cc`).
///
/// These are the SDKs' rules, and the backend differs from them in corners (measured on the Cloud Firestore
/// emulator, CLI 528): it tests `in`, `not-in`, `array-contains` and `array-contains-any` membership
/// numerically (`1.0` is in `[1]`), keeps NaN out of `<` and `<=` ranges, matches nothing for `in [null]` or
/// `in [NaN]`, and keeps NaN for `not-in [NaN]`.
///
/// ```swift
/// let adults = FieldFilter(FieldPath(segments: ["age"]), .greaterThanOrEqual, .integer(18))
/// adults.matches(document)   // true when document.age is a number ≥ 18
/// adults.canonicalID         // "age>=18"
/// ```
package struct FieldFilter: Sendable, Hashable, CustomStringConvertible {
    package var field: FieldPath
    package var op: FilterOperator
    package var value: Value

    /// A filter as given, without validation (``Query/filtered(by:)`` validates).
    package init(_ field: FieldPath, _ op: FilterOperator, _ value: Value) {
        self.field = field
        self.op = op
        self.value = value
    }

    /// True when the filter makes ``field`` an inequality field (see ``FilterOperator/isInequality``).
    package var isInequality: Bool { op.isInequality }

    /// Whether the document satisfies the filter; see the type's documentation for the rules.
    package func matches(_ document: Document) -> Bool {
        if field.isDocumentKey { return matchesKey(document.key) }
        return matches(fieldValue: document.data.value(at: field))
    }

    /// Whether a document whose ``field`` holds `fieldValue` (nil when it has none) satisfies the filter: what
    /// ``matches(_:)`` decides for a field other than `__name__`, so a scan can test a filter on a value read
    /// alone (``DocumentCodec/value(at:in:)``) before decoding the whole document.
    ///
    /// ```swift
    /// let adults = FieldFilter(FieldPath(segments: ["age"]), .greaterThanOrEqual, .integer(18))
    /// adults.matches(fieldValue: try DocumentCodec.value(at: adults.field, in: encoded))
    /// ```
    package func matches(fieldValue: Value?) -> Bool {
        guard let fieldValue else { return false }
        switch op {
        case .notEqual:
            return !fieldValue.isNull && Value.compare(fieldValue, value) != 0
        case .lessThan, .lessThanOrEqual, .equal, .greaterThanOrEqual, .greaterThan:
            return fieldValue.typeOrder == value.typeOrder && op.accepts(comparison: Value.compare(fieldValue, value))
        case .arrayContains:
            return fieldValue.arrayElements?.contains(value) ?? false
        case .arrayContainsAny:
            guard let elements = fieldValue.arrayElements, let wanted = value.arrayElements else { return false }
            return elements.contains { wanted.contains($0) }
        case .in:
            return value.arrayElements?.contains(fieldValue) ?? false
        case .notIn:
            guard let excluded = value.arrayElements, !excluded.contains(.null) else { return false }
            return !fieldValue.isNull && !excluded.contains(fieldValue)
        }
    }

    /// Matching on `__name__`: the value names document keys. A value of another type (which
    /// ``Query/filtered(by:)`` rejects) matches nothing.
    private func matchesKey(_ key: DocumentKey) -> Bool {
        switch op {
        case .in:
            return value.arrayElements?.contains { Self.referencedKey($0) == key } ?? false
        case .notIn:
            return !(value.arrayElements?.contains { Self.referencedKey($0) == key } ?? true)
        case .arrayContains, .arrayContainsAny:
            return false
        case .lessThan, .lessThanOrEqual, .equal, .notEqual, .greaterThanOrEqual, .greaterThan:
            guard let target = Self.referencedKey(value) else { return false }
            return op.accepts(comparison: OrderBy.compareKeys(key, target))
        }
    }

    /// The key a reference value points at; `nil` for other values.
    static func referencedKey(_ value: Value) -> DocumentKey? {
        if case .reference(_, let key) = value { return key }
        return nil
    }

    /// The filter's part of a query canonical id: the escaped field path, the operator and the value's
    /// canonical string, with no separators (`a.b==1`, `` `x.y`!="s" ``, `tagsarray-contains"swift"`), as the
    /// SDKs' `FieldFilter::CanonicalId`.
    package var canonicalID: String { field.canonicalString + op.rawValue + value.canonicalString }

    package var description: String { canonicalID }
}
