/// Reads the query format described in `QueryCodec.swift`, checking every byte it reads. Values are decoded by
/// ``DocumentDecoder``; the query is rebuilt with `Query`'s trusted memberwise initialiser, so nothing is
/// validated or simplified again and the query comes back exactly as it was encoded.
///
/// ```swift
/// var decoder = QueryDecoder(reader: ByteReader(buffer, subject: .query))
/// let query = try decoder.readQuery()   // checks the version byte and that nothing follows the query
/// ```
struct QueryDecoder {
    var reader: ByteReader

    mutating func readQuery() throws(ModelError) -> Query {
        let version = try reader.readByte("query format version")
        guard version == QueryCodec.formatVersion else {
            guard version > QueryCodec.formatVersion else {
                throw reader.corrupt("query format version byte \(version) (these bytes are not a Cairn query)")
            }
            throw ModelError(
                .dataLoss,
                "cannot decode stored query: format version \(version) is newer than the version "
                    + "\(QueryCodec.formatVersion) this build reads; the cache was written by a newer Cairn "
                    + "(upgrade Cairn, or clear the cache) or is damaged")
        }
        let path = ResourcePath(segments: try readSegments("query path"))
        var collectionGroup: String?
        if try readFlag("collection group flag") { collectionGroup = try readString("collection group") }
        let filters = try readFilters(depth: 0)
        // An order by takes at least its segment count and its direction.
        let orderByCount = try reader.readLength("order by count", minimumBytesPerUnit: 2)
        var orderBy: [OrderBy] = []
        orderBy.reserveCapacity(orderByCount)
        for _ in 0..<orderByCount {
            let field = FieldPath(segments: try readSegments("order by field path"))
            orderBy.append(OrderBy(field, descending: try readFlag("order by direction")))
        }
        let limitType: Query.LimitType = try readFlag("limit type") ? .last : .first
        var limit: Int?
        if try readFlag("limit flag") {
            guard let value = Int(exactly: try reader.readSignedVarint("limit")), value >= 1 else {
                throw reader.corrupt("limit below 1 or outside the range of Int")
            }
            limit = value
        }
        let startAt = try readBound("start cursor")
        let endAt = try readBound("end cursor")
        guard reader.isAtEnd else { throw reader.corrupt("\(reader.remaining) unexpected bytes after the query") }
        return Query(
            path: path, collectionGroup: collectionGroup, filters: filters, explicitOrderBy: orderBy, limit: limit,
            limitType: limitType, startAt: startAt, endAt: endAt)
    }

    /// Reads a filter list; `depth` counts the composite filters around it.
    private mutating func readFilters(depth: Int) throws(ModelError) -> [Filter] {
        guard depth <= QueryCodec.maxFilterDepth else {
            throw reader.corrupt("filters nested deeper than \(QueryCodec.maxFilterDepth) levels")
        }
        // A filter takes at least 2 bytes: its kind and a junction or a segment count.
        let count = try reader.readLength("filter count", minimumBytesPerUnit: 2)
        var filters: [Filter] = []
        filters.reserveCapacity(count)
        for _ in 0..<count {
            let kind = try reader.readByte("filter kind")
            switch kind {
            case 0:
                let field = FieldPath(segments: try readSegments("filter field path"))
                let code = try reader.readByte("filter operator")
                guard let op = FilterOperator(queryFormatCode: code) else {
                    throw reader.corrupt("unknown filter operator \(code)")
                }
                filters.append(.field(FieldFilter(field, op, try readValue("filter value"))))
            case 1:
                let op: CompositeFilter.Operator = try readFlag("composite filter junction") ? .or : .and
                filters.append(.composite(CompositeFilter(op, try readFilters(depth: depth + 1))))
            default:
                throw reader.corrupt("unknown filter kind \(kind)")
            }
        }
        return filters
    }

    private mutating func readBound(_ what: StaticString) throws(ModelError) -> Bound? {
        guard try readFlag(what) else { return nil }
        let inclusive = try readFlag("cursor inclusive flag")
        // A value takes at least its length, the document format version and a tag.
        let count = try reader.readLength("cursor value count", minimumBytesPerUnit: 3)
        var position: [Value] = []
        position.reserveCapacity(count)
        for _ in 0..<count { position.append(try readValue("cursor value")) }
        return Bound(position: position, inclusive: inclusive)
    }

    /// Reads a length-prefixed lone value in the document format.
    private mutating func readValue(_ what: StaticString) throws(ModelError) -> Value {
        let length = try reader.readLength(what, minimumBytesPerUnit: 1)
        let bytes = try reader.readBytes(length, what)
        var decoder = try DocumentDecoder(document: bytes)
        let value = try decoder.readValue(depth: 0)
        guard decoder.reader.isAtEnd else {
            throw reader.corrupt("\(decoder.reader.remaining) unexpected bytes after a \(what)")
        }
        return value
    }

    /// Reads a byte that must be 0 (false) or 1 (true).
    private mutating func readFlag(_ what: StaticString) throws(ModelError) -> Bool {
        let byte = try reader.readByte(what)
        guard byte <= 1 else { throw reader.corrupt("\(what) byte \(byte) (expected 0 or 1)") }
        return byte == 1
    }

    private mutating func readSegments(_ what: StaticString) throws(ModelError) -> [String] {
        let count = try reader.readLength(what, minimumBytesPerUnit: 1)
        var segments: [String] = []
        segments.reserveCapacity(count)
        for _ in 0..<count { segments.append(try readString(what)) }
        return segments
    }

    private mutating func readString(_ what: StaticString) throws(ModelError) -> String {
        let length = try reader.readLength(what, minimumBytesPerUnit: 1)
        guard let string = String(validating: try reader.readBytes(length, what), as: UTF8.self) else {
            throw reader.corrupt("invalid UTF-8 in \(what)")
        }
        return string
    }
}
