// Cairn index-key encoding: an order-preserving byte form of values for field-index entries.
//
// For any values a and b, Value.compare(a, b) < 0 exactly when enc(a) < enc(b) as unsigned bytes (and
// compare == 0 exactly when the encodings are identical). No encoding is a proper prefix of another, so the
// concatenation of several encodings orders like the tuple of values, and a descending column, written as the
// bitwise complement of every byte of its ascending encoding, reverses that column's order without disturbing
// the columns around it.
//
//   value     = label payload                   ; labels as in Firestore's FirestoreIndexValueWriter
//   0x05 null            (none)
//   0x0A boolean         0x00 | 0x01
//   0x0D NaN             (none)                  ; NaN sorts before every number
//   0x0F number          number                  ; integers and doubles together, exactly (below)
//   0x14 timestamp       int64(seconds) int32(nanoseconds)
//   0x16 server ts       int64(seconds) int32(nanoseconds) of the local write time
//   0x19 string          escaped(UTF-8 bytes)
//   0x1E bytes           escaped(bytes)
//   0x25 reference       escaped(project id) escaped(database id) segment* 0x02
//   0x2D geopoint        double(latitude) double(longitude)
//   0x32 array           value* 0x02
//   0x35 vector          number(element count) value* 0x02   ; a map of Firestore's vector shape (Value+Vector)
//   0x37 map             (0x19 escaped(key) value)* 0x02      ; keys in UTF-8 order
//   segment   = 0x3B int64(n) escaped(bytes)    ; a numeric id "__id<n>__": first, by n, then by bytes
//             | 0x3C escaped(bytes)              ; any other segment, by UTF-8 bytes
//   document key (appendDocumentKey) = segment* 0x02
//
// The terminator 0x02 sorts below every label, so a shorter array, map or path sorts before a longer one
// that extends it. int64/int32 are big-endian with the sign bit flipped; double is 8 big-endian bytes with -0.0
// folded into 0.0 and NaN below -infinity; escaped writes 0x00 as 00 FF and 0xFF as FF 00, then ends with
// 00 01; number is the nearest double, plus a 2-byte tiebreak when that double is at least 2^53 in magnitude
// (OrderedCode.appendNumber explains why this orders every Int64 and Double exactly).
//
// Differences from Firestore's scheme, which Cairn does not need to match byte for byte: integers keep their
// exact order above 2^53 (Firestore writes them as doubles and merges neighbours); values are self-delimiting,
// so no separator follows each one; strings are not truncated; references carry the database id, as
// Value.compare orders by it; pending server timestamps get the label 0x16 between timestamps and strings.
// Vectors take Firestore's vector label (53) and, as Firestore's writer, their length before their elements.

/// Builds an index key: the order-preserving encodings of values (and finally a document key), each ascending
/// or descending, concatenated so that keys compare lexicographically like the tuples they encode. The byte
/// grammar is at the top of this file.
///
/// ```swift
/// var key = IndexKeyEncoder()
/// key.append(.string("Oslo"))
/// key.append(.integer(1815), descending: true)
/// key.appendDocumentKey(DocumentKey(path: ResourcePath(segments: ["users", "ada"])))
/// key.bytes   // compare with other keys of the same index using lexicographic byte order
/// ```
package struct IndexKeyEncoder: Sendable {
    /// The key built so far.
    package private(set) var bytes: [UInt8] = []

    package init() {}

    /// Appends one value. Descending columns sort their values in reverse.
    package mutating func append(_ value: Value, descending: Bool = false) {
        let start = bytes.count
        writeValue(value)
        if descending { complement(from: start) }
    }

    /// Appends a document key (usually the last column, which makes entries unique). Keys order segment by
    /// segment like the path of a reference; a key carries no database, so compare keys only with keys.
    package mutating func appendDocumentKey(_ key: DocumentKey, descending: Bool = false) {
        let start = bytes.count
        writeSegments(key.path.segments)
        if descending { complement(from: start) }
    }

    private mutating func complement(from start: Int) {
        for index in start..<bytes.count { bytes[index] = ~bytes[index] }
    }

    private mutating func writeValue(_ value: Value) {
        switch value {
        case .null:
            bytes.append(IndexLabel.null)
        case .boolean(let flag):
            bytes.append(IndexLabel.boolean)
            bytes.append(flag ? 1 : 0)
        case .integer(let integer):
            bytes.append(IndexLabel.number)
            OrderedCode.appendNumber(integer, to: &bytes)
        case .double(let double) where double.isNaN:
            bytes.append(IndexLabel.nan)
        case .double(let double):
            bytes.append(IndexLabel.number)
            OrderedCode.appendNumber(double, to: &bytes)
        case .timestamp(let time):
            bytes.append(IndexLabel.timestamp)
            writeTimestamp(time)
        case .serverTimestamp(let localWriteTime, _):
            bytes.append(IndexLabel.serverTimestamp)
            writeTimestamp(localWriteTime)
        case .string(let string):
            bytes.append(IndexLabel.string)
            OrderedCode.appendEscaped(string, to: &bytes)
        case .bytes(let data):
            bytes.append(IndexLabel.bytes)
            OrderedCode.appendEscaped(data, to: &bytes)
        case .reference(let database, let key):
            bytes.append(IndexLabel.reference)
            OrderedCode.appendEscaped(database.projectID, to: &bytes)
            OrderedCode.appendEscaped(database.databaseID, to: &bytes)
            writeSegments(key.path.segments)
        case .geoPoint(let point):
            bytes.append(IndexLabel.geoPoint)
            OrderedCode.appendDouble(point.latitude, to: &bytes)
            OrderedCode.appendDouble(point.longitude, to: &bytes)
        case .array(let values):
            bytes.append(IndexLabel.array)
            for element in values { writeValue(element) }
            bytes.append(IndexLabel.end)
        case .map(let object) where object.vectorElements != nil:
            let elements = object.vectorElements ?? []
            bytes.append(IndexLabel.vector)
            OrderedCode.appendNumber(Int64(elements.count), to: &bytes)
            for element in elements { writeValue(element) }
            bytes.append(IndexLabel.end)
        case .map(let object):
            bytes.append(IndexLabel.map)
            for key in BytewiseOrder.sortedKeys(object.fields) {
                bytes.append(IndexLabel.string)
                OrderedCode.appendEscaped(key, to: &bytes)
                writeValue(object.fields[key]!)
            }
            bytes.append(IndexLabel.end)
        }
    }

    private mutating func writeTimestamp(_ time: Timestamp) {
        OrderedCode.appendInt64(time.seconds, to: &bytes)
        OrderedCode.appendInt32(time.nanoseconds, to: &bytes)
    }

    /// Path segments in `PathSegmentOrder`, then the terminator.
    private mutating func writeSegments(_ segments: [String]) {
        for segment in segments {
            if let id = PathSegmentOrder.numericID(segment) {
                bytes.append(IndexLabel.numericSegment)
                OrderedCode.appendInt64(id, to: &bytes)
            } else {
                bytes.append(IndexLabel.segment)
            }
            OrderedCode.appendEscaped(segment, to: &bytes)
        }
        bytes.append(IndexLabel.end)
    }
}

/// The one-byte labels of the index-key encoding.
enum IndexLabel {
    static let end: UInt8 = 0x02
    static let null: UInt8 = 0x05
    static let boolean: UInt8 = 0x0A
    static let nan: UInt8 = 0x0D
    static let number: UInt8 = 0x0F
    static let timestamp: UInt8 = 0x14
    static let serverTimestamp: UInt8 = 0x16
    static let string: UInt8 = 0x19
    static let bytes: UInt8 = 0x1E
    static let reference: UInt8 = 0x25
    static let geoPoint: UInt8 = 0x2D
    static let array: UInt8 = 0x32
    static let vector: UInt8 = 0x35
    static let map: UInt8 = 0x37
    static let numericSegment: UInt8 = 0x3B
    static let segment: UInt8 = 0x3C
}
