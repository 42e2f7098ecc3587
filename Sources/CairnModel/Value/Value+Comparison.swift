extension Value: Comparable {
    /// Firestore's total order of values; returns -1 when `a` sorts first, 0 when they are equivalent, 1 otherwise.
    ///
    /// Values of different types sort by ``TypeOrder``. Within a type:
    /// - booleans: `false < true`;
    /// - numbers: integers and doubles by exact numeric value, NaN first (see `NumberOrder`), -0.0 == 0.0;
    /// - timestamps by (seconds, nanoseconds); pending server timestamps by their local write time;
    /// - strings by UTF-8 bytes (not Swift's `String.<`, which follows Unicode canonical order);
    /// - bytes lexicographically, a proper prefix first;
    /// - references by project id, database id (UTF-8), then path segment by segment, shorter first (the order
    ///   of document keys: `PathSegmentOrder`, UTF-8 bytes except that numeric IDs `__id<n>__` sort first);
    /// - geopoints by latitude, then longitude (as doubles);
    /// - arrays element by element, then shorter first;
    /// - vectors (``TypeOrder/vector``, between arrays and maps) by length, shorter first, then element by element;
    /// - maps by their (key, value) entries in UTF-8 key order, then fewer entries first.
    ///
    /// `compare` is coarser than `==`: `compare(.integer(1), .double(1.0)) == 0` although the values are not
    /// equal, and likewise for `-0.0` and `0.0`, or two server timestamps with different previous values.
    ///
    /// ```swift
    /// Value.compare(.integer(1), .double(1.5))        // -1
    /// Value.compare(.string("b"), .integer(99))       //  1: strings sort after numbers
    /// Value.compare(.array([.null]), .array([]))       //  1: longer array after its prefix
    /// ```
    package static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null):
            return 0
        case let (.boolean(x), .boolean(y)):
            return x == y ? 0 : (x ? 1 : -1)
        case let (.integer(x), .integer(y)):
            return NumberOrder.compare(x, y)
        case let (.integer(x), .double(y)):
            return NumberOrder.compare(x, y)
        case let (.double(x), .integer(y)):
            return NumberOrder.compare(x, y)
        case let (.double(x), .double(y)):
            return NumberOrder.compare(x, y)
        case let (.timestamp(x), .timestamp(y)):
            return compareTimestamps(x, y)
        case let (.serverTimestamp(x, _), .serverTimestamp(y, _)):
            return compareTimestamps(x, y)
        case let (.string(x), .string(y)):
            return BytewiseOrder.compare(x, y)
        case let (.bytes(x), .bytes(y)):
            return BytewiseOrder.compare(x, y)
        case let (.reference(xDatabase, xKey), .reference(yDatabase, yKey)):
            return compareReferences((xDatabase, xKey), (yDatabase, yKey))
        case let (.geoPoint(x), .geoPoint(y)):
            return compareGeoPoints(x, y)
        case let (.array(x), .array(y)):
            return compareArrays(x, y)
        case let (.map(x), .map(y)):
            let xElements = x.vectorElements
            let yElements = y.vectorElements
            if let xElements, let yElements { return compareVectors(xElements, yElements) }
            if xElements == nil && yElements == nil { return compareMaps(x, y) }
            return xElements == nil ? 1 : -1
        default:
            return a.typeOrder < b.typeOrder ? -1 : 1
        }
    }

    /// `compare(a, b) < 0`. Note that neither `a < b` nor `b < a` holds for `1` and `1.0`, which are not `==`.
    package static func < (a: Value, b: Value) -> Bool { compare(a, b) < 0 }

    static func compareTimestamps(_ a: Timestamp, _ b: Timestamp) -> Int {
        if a.seconds != b.seconds { return a.seconds < b.seconds ? -1 : 1 }
        if a.nanoseconds != b.nanoseconds { return a.nanoseconds < b.nanoseconds ? -1 : 1 }
        return 0
    }

    static func compareGeoPoints(_ a: GeoPoint, _ b: GeoPoint) -> Int {
        let latitude = NumberOrder.compare(a.latitude, b.latitude)
        return latitude != 0 ? latitude : NumberOrder.compare(a.longitude, b.longitude)
    }

    static func compareReferences(_ a: (DatabaseID, DocumentKey), _ b: (DatabaseID, DocumentKey)) -> Int {
        let project = BytewiseOrder.compare(a.0.projectID, b.0.projectID)
        if project != 0 { return project }
        let database = BytewiseOrder.compare(a.0.databaseID, b.0.databaseID)
        if database != 0 { return database }
        return PathSegmentOrder.compare(a.1.path.segments, b.1.path.segments)
    }

    static func compareArrays(_ a: [Value], _ b: [Value]) -> Int {
        for (x, y) in zip(a, b) {
            let result = compare(x, y)
            if result != 0 { return result }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    static func compareVectors(_ a: [Value], _ b: [Value]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        return compareArrays(a, b)
    }

    static func compareMaps(_ a: ObjectValue, _ b: ObjectValue) -> Int {
        let aKeys = BytewiseOrder.sortedKeys(a.fields)
        let bKeys = BytewiseOrder.sortedKeys(b.fields)
        for (aKey, bKey) in zip(aKeys, bKeys) {
            let keyOrder = BytewiseOrder.compare(aKey, bKey)
            if keyOrder != 0 { return keyOrder }
            let valueOrder = compare(a.fields[aKey]!, b.fields[bKey]!)
            if valueOrder != 0 { return valueOrder }
        }
        return aKeys.count == bKeys.count ? 0 : (aKeys.count < bKeys.count ? -1 : 1)
    }
}
