extension Value {
    /// True for `.null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// True for a double NaN (integers are never NaN). A `where x == NaN` filter matches exactly these.
    package var isNaN: Bool {
        if case .double(let value) = self { return value.isNaN }
        return false
    }

    /// True for integers and doubles (``TypeOrder/number``).
    package var isNumber: Bool {
        switch self {
        case .integer, .double: true
        default: false
        }
    }

    /// True for arrays.
    package var isArray: Bool { arrayElements != nil }

    /// The elements of an array value; `nil` for every other type.
    ///
    /// ```swift
    /// Value.array([.integer(1)]).arrayElements  // [.integer(1)]
    /// Value.string("x").arrayElements           // nil
    /// ```
    package var arrayElements: [Value]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// The fields of a map value; `nil` for every other type.
    package var mapValue: ObjectValue? {
        if case .map(let object) = self { return object }
        return nil
    }
}
