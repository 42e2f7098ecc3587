import CairnModel

/// Every `whereField` form of Firebase's `Query`, each with a dotted `String` and a ``FieldPath`` variant. The
/// values are Firestore values (see ``UserDataReader``); on ``FieldPath/documentID()`` a `String` is a document
/// ID (a path relative to the collection group for collection group queries) and a ``DocumentReference`` names
/// the document itself.
///
/// ```swift
/// cities.whereField("state", isEqualTo: "CA")
/// cities.whereField("population", isLessThan: 100_000)
/// cities.whereField(FieldPath(["regions"]), arrayContainsAny: ["west_coast", "east_coast"])
/// cities.whereField(FieldPath.documentID(), in: ["SF", "LA"])
/// ```
extension Query {
    /// Documents whose `field` is equal to `value`.
    public func whereField(_ field: String, isEqualTo value: Any) -> Query {
        whereField(FieldPath.dotted(field), .equal, value)
    }

    /// Documents whose `field` is equal to `value`.
    public func whereField(_ field: FieldPath, isEqualTo value: Any) -> Query {
        whereField(field.parsed, .equal, value)
    }

    /// Documents whose `field` is present and not equal to `value` (nor null).
    public func whereField(_ field: String, isNotEqualTo value: Any) -> Query {
        whereField(FieldPath.dotted(field), .notEqual, value)
    }

    /// Documents whose `field` is present and not equal to `value` (nor null).
    public func whereField(_ field: FieldPath, isNotEqualTo value: Any) -> Query {
        whereField(field.parsed, .notEqual, value)
    }

    /// Documents whose `field` is less than `value` (same type only).
    public func whereField(_ field: String, isLessThan value: Any) -> Query {
        whereField(FieldPath.dotted(field), .lessThan, value)
    }

    /// Documents whose `field` is less than `value` (same type only).
    public func whereField(_ field: FieldPath, isLessThan value: Any) -> Query {
        whereField(field.parsed, .lessThan, value)
    }

    /// Documents whose `field` is at most `value` (same type only).
    public func whereField(_ field: String, isLessThanOrEqualTo value: Any) -> Query {
        whereField(FieldPath.dotted(field), .lessThanOrEqual, value)
    }

    /// Documents whose `field` is at most `value` (same type only).
    public func whereField(_ field: FieldPath, isLessThanOrEqualTo value: Any) -> Query {
        whereField(field.parsed, .lessThanOrEqual, value)
    }

    /// Documents whose `field` is greater than `value` (same type only).
    public func whereField(_ field: String, isGreaterThan value: Any) -> Query {
        whereField(FieldPath.dotted(field), .greaterThan, value)
    }

    /// Documents whose `field` is greater than `value` (same type only).
    public func whereField(_ field: FieldPath, isGreaterThan value: Any) -> Query {
        whereField(field.parsed, .greaterThan, value)
    }

    /// Documents whose `field` is at least `value` (same type only).
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: Any) -> Query {
        whereField(FieldPath.dotted(field), .greaterThanOrEqual, value)
    }

    /// Documents whose `field` is at least `value` (same type only).
    public func whereField(_ field: FieldPath, isGreaterThanOrEqualTo value: Any) -> Query {
        whereField(field.parsed, .greaterThanOrEqual, value)
    }

    /// Documents whose `field` is an array containing `value`.
    public func whereField(_ field: String, arrayContains value: Any) -> Query {
        whereField(FieldPath.dotted(field), .arrayContains, value)
    }

    /// Documents whose `field` is an array containing `value`.
    public func whereField(_ field: FieldPath, arrayContains value: Any) -> Query {
        whereField(field.parsed, .arrayContains, value)
    }

    /// Documents whose `field` is an array containing at least one of `values`.
    public func whereField(_ field: String, arrayContainsAny values: [Any]) -> Query {
        whereField(FieldPath.dotted(field), .arrayContainsAny, values)
    }

    /// Documents whose `field` is an array containing at least one of `values`.
    public func whereField(_ field: FieldPath, arrayContainsAny values: [Any]) -> Query {
        whereField(field.parsed, .arrayContainsAny, values)
    }

    /// Documents whose `field` is equal to one of `values`.
    public func whereField(_ field: String, in values: [Any]) -> Query {
        whereField(FieldPath.dotted(field), .`in`, values)
    }

    /// Documents whose `field` is equal to one of `values`.
    public func whereField(_ field: FieldPath, in values: [Any]) -> Query {
        whereField(field.parsed, .`in`, values)
    }

    /// Documents whose `field` is present and equal to none of `values`.
    public func whereField(_ field: String, notIn values: [Any]) -> Query {
        whereField(FieldPath.dotted(field), .notIn, values)
    }

    /// Documents whose `field` is present and equal to none of `values`.
    public func whereField(_ field: FieldPath, notIn values: [Any]) -> Query {
        whereField(field.parsed, .notIn, values)
    }
}
