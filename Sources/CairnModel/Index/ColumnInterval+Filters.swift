/// The encodings a filter or a cursor admits in one index column, as a union of ``ColumnInterval``s in
/// ascending encoding space (semantics notes §6.2 for the filter rules; the SDKs' counterpart is
/// firebase-android-sdk `core/Target.java` `getLowerBound` / `getUpperBound` / `getNotInValues`).
///
/// Each union is a superset of the encodings of the values the filter matches, and for `==` and the range
/// operators exactly that set, because `IndexKeyEncoder` encodes values that compare equal (`1` and `1.0`,
/// `0.0` and `-0.0`) identically and orders encodings like `Value.compare`:
///
/// | filter | intervals |
/// |---|---|
/// | `== v` | the point `enc(v)` |
/// | `in [v…]` | the points `enc(vᵢ)`; `in` is type-strict (`in [1]` misses `1.0`), so this may admit more |
/// | `< v`, `<= v` | from the start of `v`'s type to `enc(v)`: range filters only match their own type |
/// | `> v`, `>= v` | from `enc(v)` to the end of `v`'s type |
/// | `!= v` | everything above null, except `enc(v)` |
/// | `not-in [v…]` | everything above null, except `enc(vᵢ)` for the `vᵢ` without numbers; nothing with null |
/// | `array-contains(-any)` on a directional column | unconstrained (the contains column takes them) |
///
/// `not-in` keeps the encodings of excluded values that hold numbers because it is type-strict: `not-in [1]`
/// matches `1.0`, which encodes like `1`.
/// In a `__name__` column the values are document keys (`IndexKeyEncoder.appendDocumentKey`), the filter
/// values references, and the ranges are not limited to a type; a value that is not a reference matches no
/// key and leaves the column unconstrained.
extension ColumnInterval {
    /// The intervals admitted by `filter` in a directional column of `filter.field` (a `__name__` column when
    /// the field is the document key); `nil` when the filter does not constrain the column.
    static func intervals(admittedBy filter: FieldFilter) -> [ColumnInterval]? {
        if filter.field.isDocumentKey { return keyIntervals(admittedBy: filter) }
        let value = filter.value
        switch filter.op {
        case .equal:
            return [.point(encode(value))]
        case .in:
            return points(value.arrayElements ?? [])
        case .lessThan, .lessThanOrEqual:
            let end = ColumnBound.value(encode(value), inclusive: filter.op == .lessThanOrEqual)
            return [ColumnInterval(lower: .typeEdge(typeStart(value.typeOrder), asLower: true), upper: end)]
        case .greaterThan, .greaterThanOrEqual:
            let start = ColumnBound.value(encode(value), inclusive: filter.op == .greaterThanOrEqual)
            return [ColumnInterval(lower: start, upper: .typeEdge(typeEnd(value.typeOrder), asLower: false))]
        case .notEqual:
            return excluding([encode(value)], above: encode(.null))
        case .notIn:
            let excluded = value.arrayElements ?? []
            if excluded.contains(.null) { return [] }
            return excluding(excluded.filter { !containsNumber($0) }.map(encode), above: encode(.null))
        case .arrayContains, .arrayContainsAny:
            return nil
        }
    }

    /// The points of a contains column an `array-contains` or `array-contains-any` filter admits; `nil` for
    /// other filters.
    static func elementIntervals(admittedBy filter: FieldFilter) -> [ColumnInterval]? {
        switch filter.op {
        case .arrayContains: [.point(encode(filter.value))]
        case .arrayContainsAny: points(filter.value.arrayElements ?? [])
        default: nil
        }
    }

    /// The interval a start cursor (`isStart`) or an end cursor admits in the column of `order`, the query's
    /// first order by; `nil` when the cursor says nothing about that column.
    ///
    /// A cursor is a position in the query's whole order, so only its first value bounds a single column:
    /// `start(at: [v, …])` on an ascending order keeps values ≥ v (any type: cursors compare across types),
    /// and > v when `v` is the cursor's only value and the cursor is exclusive.
    static func interval(admittedBy cursor: Bound, isStart: Bool, on order: OrderBy) -> ColumnInterval? {
        guard let first = cursor.position.first else { return nil }
        let bytes: [UInt8]
        if order.field.isDocumentKey {
            guard let key = FieldFilter.referencedKey(first) else { return nil }
            bytes = encode(key)
        } else {
            bytes = encode(first)
        }
        let bound = ColumnBound.value(bytes, inclusive: cursor.inclusive || cursor.position.count > 1)
        let isLowerBound = isStart != order.descending
        return isLowerBound ? ColumnInterval(lower: bound, upper: nil) : ColumnInterval(lower: nil, upper: bound)
    }

    private static func keyIntervals(admittedBy filter: FieldFilter) -> [ColumnInterval]? {
        switch filter.op {
        case .in:
            return points(keys(in: filter.value.arrayElements ?? []))
        case .notIn:
            return excluding(keys(in: filter.value.arrayElements ?? []).map(encode), above: nil)
        case .arrayContains, .arrayContainsAny:
            return nil
        case .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard let key = FieldFilter.referencedKey(filter.value) else { return nil }
            let bytes = encode(key)
            switch filter.op {
            case .equal: return [.point(bytes)]
            case .notEqual: return excluding([bytes], above: nil)
            case .lessThan, .lessThanOrEqual:
                return [ColumnInterval(lower: nil, upper: .value(bytes, inclusive: filter.op == .lessThanOrEqual))]
            default:
                return [ColumnInterval(lower: .value(bytes, inclusive: filter.op == .greaterThanOrEqual), upper: nil)]
            }
        }
    }

    /// One point per distinct encoding.
    private static func points(_ values: [Value]) -> [ColumnInterval] { points(values.map(encode)) }

    private static func points(_ keys: [DocumentKey]) -> [ColumnInterval] { points(keys.map(encode)) }

    private static func points(_ encodings: [[UInt8]]) -> [ColumnInterval] { Set(encodings).map(ColumnInterval.point) }

    /// Everything above `floor` (exclusive; unbounded when `nil`), except the given encodings.
    private static func excluding(_ encodings: [[UInt8]], above floor: [UInt8]?) -> [ColumnInterval] {
        var lower = floor.map { ColumnBound.value($0, inclusive: false) }
        var result: [ColumnInterval] = []
        for bytes in Set(encodings).sorted(by: { BytewiseOrder.compare($0, $1) < 0 }) {
            let upper = ColumnBound.value(bytes, inclusive: false)
            result.append(ColumnInterval(lower: lower, upper: upper))
            lower = upper
        }
        result.append(ColumnInterval(lower: lower, upper: nil))
        return result.filter { !$0.isEmpty }
    }

    private static func keys(in values: [Value]) -> [DocumentKey] { values.compactMap(FieldFilter.referencedKey) }

    /// True when `value` is or holds a number: such values share their encoding with values that are not `==`.
    private static func containsNumber(_ value: Value) -> Bool {
        switch value {
        case .integer, .double: true
        case .array(let elements): elements.contains(where: containsNumber)
        case .map(let object): object.fields.values.contains(where: containsNumber)
        default: false
        }
    }

    static func encode(_ value: Value) -> [UInt8] {
        var encoder = IndexKeyEncoder()
        encoder.append(value)
        return encoder.bytes
    }

    static func encode(_ key: DocumentKey) -> [UInt8] {
        var encoder = IndexKeyEncoder()
        encoder.appendDocumentKey(key)
        return encoder.bytes
    }

    /// The first label of a type's encodings (NaN's for numbers: NaN sorts, and range-matches, as a number).
    static func typeStart(_ type: TypeOrder) -> UInt8 {
        switch type {
        case .null: IndexLabel.null
        case .boolean: IndexLabel.boolean
        case .number: IndexLabel.nan
        case .timestamp: IndexLabel.timestamp
        case .serverTimestamp: IndexLabel.serverTimestamp
        case .string: IndexLabel.string
        case .bytes: IndexLabel.bytes
        case .reference: IndexLabel.reference
        case .geoPoint: IndexLabel.geoPoint
        case .array: IndexLabel.array
        case .vector: IndexLabel.vector
        case .map: IndexLabel.map
        }
    }

    /// The first label after a type's encodings: the next type's first label, or the one after maps.
    static func typeEnd(_ type: TypeOrder) -> UInt8 {
        guard let next = TypeOrder(rawValue: type.rawValue + 1) else { return IndexLabel.map + 1 }
        return typeStart(next)
    }
}
