import CairnModel

/// The field filters of ``Filter``, one per `whereField` form of ``Query``, to combine with
/// ``Filter/andFilter(_:)`` and ``Filter/orFilter(_:)``.
///
/// ```swift
/// Filter.orFilter([Filter.whereField("a", isEqualTo: 1), Filter.whereField(FieldPath(["b"]), in: [2, 3])])
/// ```
extension Filter {
    /// Documents whose `field` is equal to `value`.
    public static func whereField(_ field: String, isEqualTo value: Any) -> Filter {
        Filter(FieldPath.dotted(field), .equal, value)
    }

    /// Documents whose `field` is equal to `value`.
    public static func whereField(_ field: FieldPath, isEqualTo value: Any) -> Filter {
        Filter(field.parsed, .equal, value)
    }

    /// Documents whose `field` is present and not equal to `value` (nor null).
    public static func whereField(_ field: String, isNotEqualTo value: Any) -> Filter {
        Filter(FieldPath.dotted(field), .notEqual, value)
    }

    /// Documents whose `field` is present and not equal to `value` (nor null).
    public static func whereField(_ field: FieldPath, isNotEqualTo value: Any) -> Filter {
        Filter(field.parsed, .notEqual, value)
    }

    /// Documents whose `field` is less than `value` (same type only).
    public static func whereField(_ field: String, isLessThan value: Any) -> Filter {
        Filter(FieldPath.dotted(field), .lessThan, value)
    }

    /// Documents whose `field` is less than `value` (same type only).
    public static func whereField(_ field: FieldPath, isLessThan value: Any) -> Filter {
        Filter(field.parsed, .lessThan, value)
    }

    /// Documents whose `field` is at most `value` (same type only).
    public static func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Filter {
        Filter(FieldPath.dotted(field), .lessThanOrEqual, value)
    }

    /// Documents whose `field` is at most `value` (same type only).
    public static func whereField(_ field: FieldPath, isLessThanOrEqualTo value: Any) -> Filter {
        Filter(field.parsed, .lessThanOrEqual, value)
    }

    /// Documents whose `field` is greater than `value` (same type only).
    public static func whereField(_ field: String, isGreaterThan value: Any) -> Filter {
        Filter(FieldPath.dotted(field), .greaterThan, value)
    }

    /// Documents whose `field` is greater than `value` (same type only).
    public static func whereField(_ field: FieldPath, isGreaterThan value: Any) -> Filter {
        Filter(field.parsed, .greaterThan, value)
    }

    /// Documents whose `field` is at least `value` (same type only). Firebase's `Filter` spells this label
    /// `isGreaterOrEqualTo` (its `Query` says `isGreaterThanOrEqualTo`), and so does Cairn's.
    public static func whereField(_ field: String, isGreaterOrEqualTo value: Any) -> Filter {
        Filter(FieldPath.dotted(field), .greaterThanOrEqual, value)
    }

    /// Documents whose `field` is at least `value` (same type only).
    public static func whereField(_ field: FieldPath, isGreaterOrEqualTo value: Any) -> Filter {
        Filter(field.parsed, .greaterThanOrEqual, value)
    }

    /// Documents whose `field` is an array containing `value`.
    public static func whereField(_ field: String, arrayContains value: Any) -> Filter {
        Filter(FieldPath.dotted(field), .arrayContains, value)
    }

    /// Documents whose `field` is an array containing `value`.
    public static func whereField(_ field: FieldPath, arrayContains value: Any) -> Filter {
        Filter(field.parsed, .arrayContains, value)
    }

    /// Documents whose `field` is an array containing at least one of `values`.
    public static func whereField(_ field: String, arrayContainsAny values: [Any]) -> Filter {
        Filter(FieldPath.dotted(field), .arrayContainsAny, values)
    }

    /// Documents whose `field` is an array containing at least one of `values`.
    public static func whereField(_ field: FieldPath, arrayContainsAny values: [Any]) -> Filter {
        Filter(field.parsed, .arrayContainsAny, values)
    }

    /// Documents whose `field` is equal to one of `values`.
    public static func whereField(_ field: String, in values: [Any]) -> Filter {
        Filter(FieldPath.dotted(field), .`in`, values)
    }

    /// Documents whose `field` is equal to one of `values`.
    public static func whereField(_ field: FieldPath, in values: [Any]) -> Filter {
        Filter(field.parsed, .`in`, values)
    }

    /// Documents whose `field` is present and equal to none of `values`.
    public static func whereField(_ field: String, notIn values: [Any]) -> Filter {
        Filter(FieldPath.dotted(field), .notIn, values)
    }

    /// Documents whose `field` is present and equal to none of `values`.
    public static func whereField(_ field: FieldPath, notIn values: [Any]) -> Filter {
        Filter(field.parsed, .notIn, values)
    }
}
