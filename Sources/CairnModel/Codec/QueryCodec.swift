// Cairn query encoding, format version 1: a compact binary form of a ``Query``, stored in the cache's target
// records. Decoding rebuilds the query exactly as it was built: the same filter trees, the same explicit order
// bys (the normalized ones are derived again), limit, limit type and cursors. So a decoded query is `==` to the
// original and has the same canonical id.
//
//   query             = version path collection-group filter-list order-by-list limit start-at end-at
//   version           = 0x01
//   path              = segments                                 ; Query.path
//   segments          = count string{count}
//   string            = length UTF-8-bytes
//   collection-group  = 0x00 | 0x01 string
//   filter-list       = count filter{count}
//   filter            = 0x00 segments operator value              ; FieldFilter: field path, operator, value
//                     | 0x01 junction filter-list                 ; CompositeFilter: 0x00 AND, 0x01 OR
//   operator          = 0x00 "<" | 0x01 "<=" | 0x02 "==" | 0x03 "!=" | 0x04 ">=" | 0x05 ">"
//                     | 0x06 array-contains | 0x07 array-contains-any | 0x08 in | 0x09 not-in
//   value             = length lone-value
//   lone-value        = 0x01 tagged-value                        ; DocumentCodec's version byte, then one value
//                                                                ; in the `value` grammar of DocumentCodec.swift
//   order-by-list     = count (segments direction){count}        ; direction 0x00 ascending, 0x01 descending
//   limit             = limit-type (0x00 | 0x01 signed)          ; limit-type 0x00 first, 0x01 last; then the
//                                                                ; limit, when there is one
//   start-at, end-at  = 0x00 | 0x01 inclusive count value{count} ; inclusive 0x00 or 0x01
//
// `count` and `length` are unsigned LEB128 varints and `signed` a zigzag varint, as in DocumentCodec.swift.
//
// Worked example: collection "rooms" where size >= 2, limit 10 encodes as
//   01                      version 1
//   01 05 72 6F 6F 6D 73    path: 1 segment, "rooms"
//   00                      no collection group
//   01                      1 filter:
//   00 01 04 73 69 7A 65    a field filter on ["size"]
//   04                      >=
//   03 01 03 04             value of 3 bytes: document format 1, integer 2 (zigzag 4)
//   00                      no explicit order by
//   00 01 14                limit type first, limit 10 (zigzag 20)
//   00 00                   no start cursor, no end cursor
//
// Decoding checks every byte: another version, an unknown tag, operator or flag, a truncated input, a count or
// length larger than the bytes left, invalid UTF-8, a damaged value, filters nested deeper than
// `maxFilterDepth`, or bytes after the query all throw `ModelError(.dataLoss, ...)`. It never traps and never
// allocates more than the input's size on the word of a count.

/// Encodes and decodes queries in Cairn's binary query format (grammar at the top of this file): how the cache
/// stores the query of each target it keeps.
///
/// ```swift
/// let query = try Query(path: ResourcePath(parsing: "rooms"))
///     .filtered(by: .field(FieldFilter(FieldPath(["size"]), .greaterThanOrEqual, .integer(2))))
///     .limited(to: 10)
/// let bytes = QueryCodec.encode(query)
/// let decoded = try bytes.withUnsafeBytes { try QueryCodec.decode($0) }
/// decoded == query && decoded.canonicalID == query.canonicalID   // true
/// ```
package enum QueryCodec {
    /// The format version this build writes, and the only one it reads.
    package static let formatVersion: UInt8 = 1

    /// The deepest nesting of composite filters that decoding accepts. Queries nest a few levels at most; the
    /// bound keeps damaged input from exhausting the stack.
    package static let maxFilterDepth = 100

    /// Encodes a query exactly as it is built (filters as given, explicit order bys only).
    package static func encode(_ query: Query) -> [UInt8] {
        var encoder = QueryEncoder()
        encoder.buffer.append(formatVersion)
        encoder.writeSegments(query.path.segments)
        if let group = query.collectionGroup {
            encoder.buffer.append(1)
            encoder.writeString(group)
        } else {
            encoder.buffer.append(0)
        }
        encoder.writeFilters(query.filters)
        encoder.writeVarint(UInt64(query.explicitOrderBy.count))
        for orderBy in query.explicitOrderBy {
            encoder.writeSegments(orderBy.field.segments)
            encoder.buffer.append(orderBy.descending ? 1 : 0)
        }
        encoder.buffer.append(query.limitType == .last ? 1 : 0)
        if let limit = query.limit {
            encoder.buffer.append(1)
            encoder.writeSignedVarint(Int64(limit))
        } else {
            encoder.buffer.append(0)
        }
        encoder.writeBound(query.startAt)
        encoder.writeBound(query.endAt)
        return encoder.buffer
    }

    /// Decodes a query; throws `dataLoss` when the bytes are not a valid version-1 encoding.
    package static func decode(_ bytes: [UInt8]) throws(ModelError) -> Query {
        // `withUnsafeBytes` rethrows untyped errors, so the typed error travels inside a Result.
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(ModelError) in try decode(buffer) } }
        return try result.get()
    }

    /// Decodes a query from raw memory (such as a record inside a decompressed log frame).
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(ModelError) -> Query {
        var decoder = QueryDecoder(reader: ByteReader(bytes, subject: .query))
        return try decoder.readQuery()
    }
}

/// Operator bytes of the query format. They are part of the format: never renumber them.
extension FilterOperator {
    var queryFormatCode: UInt8 {
        switch self {
        case .lessThan: 0
        case .lessThanOrEqual: 1
        case .equal: 2
        case .notEqual: 3
        case .greaterThanOrEqual: 4
        case .greaterThan: 5
        case .arrayContains: 6
        case .arrayContainsAny: 7
        case .in: 8
        case .notIn: 9
        }
    }

    init?(queryFormatCode code: UInt8) {
        guard let match = FilterOperator.allCases.first(where: { $0.queryFormatCode == code }) else { return nil }
        self = match
    }
}

/// Writes the query format; values go through ``DocumentEncoder``.
private struct QueryEncoder {
    var buffer: [UInt8] = []

    mutating func writeFilters(_ filters: [Filter]) {
        writeVarint(UInt64(filters.count))
        for filter in filters {
            switch filter {
            case .field(let field):
                buffer.append(0)
                writeSegments(field.field.segments)
                buffer.append(field.op.queryFormatCode)
                writeValue(field.value)
            case .composite(let composite):
                buffer.append(1)
                buffer.append(composite.op == .and ? 0 : 1)
                writeFilters(composite.filters)
            }
        }
    }

    mutating func writeBound(_ bound: Bound?) {
        guard let bound else { return buffer.append(0) }
        buffer.append(1)
        buffer.append(bound.inclusive ? 1 : 0)
        writeVarint(UInt64(bound.position.count))
        for value in bound.position { writeValue(value) }
    }

    /// A value as a length-prefixed lone value in the document format.
    mutating func writeValue(_ value: Value) {
        var encoder = DocumentEncoder()
        encoder.buffer.append(DocumentCodec.formatVersion)
        encoder.writeValue(value)
        writeVarint(UInt64(encoder.buffer.count))
        buffer.append(contentsOf: encoder.buffer)
    }

    mutating func writeSegments(_ segments: [String]) {
        writeVarint(UInt64(segments.count))
        for segment in segments { writeString(segment) }
    }

    mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            writeVarint(UInt64(bytes.count))
            buffer.append(contentsOf: bytes)
        }
    }

    mutating func writeSignedVarint(_ value: Int64) { buffer.appendSignedVarint(value) }

    mutating func writeVarint(_ value: UInt64) { buffer.appendVarint(value) }
}
