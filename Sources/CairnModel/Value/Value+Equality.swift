extension Value: Hashable {
    /// Firestore's `valuesEqual`: the equality used by `==` filters, `array-contains`, `in` and change detection.
    ///
    /// - Numbers are type-strict: `.integer(1) != .double(1.0)` (they still *compare* equal, see ``compare(_:_:)``).
    /// - Doubles are equal when their bit patterns are, except that every NaN equals every NaN. So
    ///   `-0.0 != 0.0`, as in the iOS (`DoubleBitwiseEquals`), Android (`doubleToLongBits`) and JS SDKs.
    /// - Strings, map keys and reference segments are equal when their UTF-8 bytes are (no Unicode
    ///   normalisation, unlike Swift's `String.==`).
    /// - Geopoints are equal when latitude and longitude compare equal as numbers (`-0.0 == 0.0`, as the SDKs'
    ///   plain `==` does; NaN equals NaN so that equality stays reflexive).
    /// - Arrays element by element; maps by their entries, regardless of insertion order.
    /// - Pending server timestamps are equal when their local write times are; the previous value is ignored.
    ///
    /// ```swift
    /// Value.integer(1) == .double(1)                        // false
    /// Value.double(.nan) == .double(.nan)                   // true
    /// Value.string("é") == .string("e\u{301}")              // false
    /// ```
    package static func == (a: Value, b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null):
            return true
        case let (.boolean(x), .boolean(y)):
            return x == y
        case let (.integer(x), .integer(y)):
            return x == y
        case let (.double(x), .double(y)):
            return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case let (.timestamp(x), .timestamp(y)):
            return x == y
        case let (.serverTimestamp(x, _), .serverTimestamp(y, _)):
            return x == y
        case let (.string(x), .string(y)):
            return BytewiseOrder.equal(x, y)
        case let (.bytes(x), .bytes(y)):
            return x == y
        case let (.reference(xDatabase, xKey), .reference(yDatabase, yKey)):
            return BytewiseOrder.equal(xDatabase.projectID, yDatabase.projectID)
                && BytewiseOrder.equal(xDatabase.databaseID, yDatabase.databaseID)
                && PathSegmentOrder.equal(xKey.path.segments, yKey.path.segments)
        case let (.geoPoint(x), .geoPoint(y)):
            return compareGeoPoints(x, y) == 0
        case let (.array(x), .array(y)):
            return x == y
        case let (.map(x), .map(y)):
            return x == y
        default:
            return false
        }
    }

    /// Hashes consistently with `==`: equal values hash alike.
    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .boolean(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
        case .timestamp(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .serverTimestamp(let localWriteTime, _):
            hasher.combine(5 as UInt8)
            hasher.combine(localWriteTime)
        case .string(let value):
            hasher.combine(6 as UInt8)
            BytewiseOrder.hash(value, into: &hasher)
        case .bytes(let value):
            hasher.combine(7 as UInt8)
            hasher.combine(value)
        case .reference(let database, let key):
            hasher.combine(8 as UInt8)
            BytewiseOrder.hash(database.projectID, into: &hasher)
            BytewiseOrder.hash(database.databaseID, into: &hasher)
            PathSegmentOrder.hash(key.path.segments, into: &hasher)
        case .geoPoint(let value):
            hasher.combine(9 as UInt8)
            hasher.combine(Self.numericBits(value.latitude))
            hasher.combine(Self.numericBits(value.longitude))
        case .array(let values):
            hasher.combine(10 as UInt8)
            hasher.combine(values)
        case .map(let object):
            hasher.combine(11 as UInt8)
            hasher.combine(object)
        }
    }

    /// The bit pattern of `value` with -0.0 folded into 0.0 and every NaN into one NaN: equal under
    /// `NumberOrder.compare` implies equal bits.
    private static func numericBits(_ value: Double) -> UInt64 {
        if value.isNaN { return Double.nan.bitPattern }
        return value == 0 ? 0 : value.bitPattern
    }
}

extension ObjectValue: Hashable {
    /// Equal when both have the same keys (compared by UTF-8 bytes) with equal values, in any insertion order.
    package static func == (a: ObjectValue, b: ObjectValue) -> Bool {
        guard a.fields.count == b.fields.count else { return false }
        for (key, value) in a.fields {
            guard let index = b.fields.index(forKey: key) else { return false }
            let (otherKey, otherValue) = b.fields[index]
            // Swift's dictionary matches keys up to Unicode canonical equivalence; Firestore wants bytes.
            guard BytewiseOrder.equal(key, otherKey), value == otherValue else { return false }
        }
        return true
    }

    /// Hashes the entries independently of their order, consistently with `==`.
    package func hash(into hasher: inout Hasher) {
        var entries: UInt64 = 0
        for (key, value) in fields {
            var entryHasher = Hasher()
            BytewiseOrder.hash(key, into: &entryHasher)
            entryHasher.combine(value)
            entries &+= UInt64(UInt(bitPattern: entryHasher.finalize()))
        }
        hasher.combine(fields.count)
        hasher.combine(entries)
    }
}
