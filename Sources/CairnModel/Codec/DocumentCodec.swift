// Cairn document encoding, format version 1: a compact binary form of an ObjectValue (a document's fields)
// that decodes fast and lets a reader fetch one field without decoding the rest.
//
//   document     = version map-body                     ; version = 0x01, one byte
//   map-body     = count entry{count}                   ; entries in strictly ascending UTF-8 key order
//   entry        = key-length key-bytes value-length value
//   value        = tag payload
//
//   tag   name                      payload
//   0x00  null                      (none)
//   0x01  false                     (none)
//   0x02  true                      (none)
//   0x03  integer                   zigzag varint
//   0x04  double                    8 bytes: IEEE-754 bit pattern, little-endian (-0.0 and NaN payloads kept)
//   0x05  timestamp                 seconds: zigzag varint, nanoseconds: zigzag varint
//   0x06  server timestamp          local write time as in 0x05
//   0x07  server timestamp + prev   local write time as in 0x05, then the previous value (a value)
//   0x08  string                    length varint, UTF-8 bytes
//   0x09  bytes                     length varint, bytes
//   0x0A  reference                 project (length, UTF-8), database (length, UTF-8),
//                                   segment count (varint, even, >= 2), segments (length, UTF-8 each)
//   0x0B  geopoint                  latitude, longitude: 8 bytes each as in 0x04
//   0x0C  array                     count varint, value{count}
//   0x0D  map                       map-body
//
// Every count and length is an unsigned LEB128 varint (at most 10 bytes); zigzag maps n to (n << 1) ^ (n >> 63).
// Maps carry each value's length so that `value(at:in:)` can skip the entries it does not need, and their keys
// are sorted so that it can stop as soon as it passes the wanted key. Arrays need no lengths: field paths never
// step into arrays, and a whole array is skipped through the length of the map entry holding it.
//
// Worked example: {"a": 1, "b": ["x"]} encodes as
//   01                 version 1
//   02                 2 entries
//   01 61  02  03 02   key "a", value length 2, integer 1 (zigzag 2)
//   01 62  05  0C 01 08 01 78
//                      key "b", value length 5, array of 1 value: string "x"
//
// Decoding checks everything: a version other than 1, an unknown tag, a truncated or overlong value, a count or
// length larger than the bytes left, invalid UTF-8, keys out of order or repeated, an odd reference path,
// nanoseconds outside Int32, nesting deeper than `maxNestingDepth`, or bytes after the document all throw
// `ModelError(.dataLoss, ...)`. Decoding never traps, never loops without consuming input, and never allocates
// more than the input's size on the word of a length.

/// Encodes and decodes documents' fields in Cairn's binary document format (grammar at the top of this file).
///
/// ```swift
/// let fields = ObjectValue(["name": .string("Ada"), "born": .integer(1815)])
/// let bytes = DocumentCodec.encode(fields)
/// try DocumentCodec.decode(bytes) == fields                                         // true
/// try bytes.withUnsafeBytes { try DocumentCodec.value(at: FieldPath(segments: ["born"]), in: $0) }
/// // .integer(1815), without decoding "name"
/// ```
package enum DocumentCodec {
    /// The format version this build writes, and the only one it reads.
    package static let formatVersion: UInt8 = 1

    /// The deepest nesting of arrays, maps and server timestamps' previous values that decoding accepts. Firestore
    /// itself rejects documents nested deeper than 20 levels; the bound keeps a corrupt input from exhausting the
    /// stack. `encode` does not check it: validate values before storing them.
    package static let maxNestingDepth = 100

    /// Encodes a document's fields. Map keys are written in UTF-8 order, so equal objects encode identically.
    package static func encode(_ object: ObjectValue) -> [UInt8] {
        var encoder = DocumentEncoder()
        encoder.buffer.append(formatVersion)
        encoder.writeMapBody(object)
        return encoder.buffer
    }

    /// Decodes a whole document; throws `dataLoss` when the bytes are not a valid version-1 encoding.
    package static func decode(_ bytes: [UInt8]) throws(ModelError) -> ObjectValue {
        // `withUnsafeBytes` rethrows untyped errors, so the typed error travels inside a Result.
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(ModelError) in try decode(buffer) } }
        return try result.get()
    }

    /// Decodes a whole document from raw memory (such as a record inside a decompressed log frame).
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(ModelError) -> ObjectValue {
        var decoder = try DocumentDecoder(document: bytes)
        let object = try decoder.readMapBody(depth: 0)
        guard decoder.reader.isAtEnd else {
            throw decoder.reader.corrupt("\(decoder.reader.remaining) unexpected bytes after the document")
        }
        return object
    }

    /// Decodes only the value at `path`, skipping every other entry on the way; `nil` when the field is absent
    /// or a segment before the last is not a map; the empty path decodes the whole document as a `.map`. Like
    /// ``ObjectValue/value(at:)``, it reads fields only: `__name__` is an ordinary key here, not the document key.
    /// Agrees with `decode(bytes).value(at: path)` on valid input;
    /// on damaged input it throws `dataLoss` when the damage lies on the way to the field (damage elsewhere
    /// goes unnoticed, since those bytes are never read).
    package static func value(at path: FieldPath, in bytes: UnsafeRawBufferPointer) throws(ModelError) -> Value? {
        var decoder = try DocumentDecoder(document: bytes)
        guard !path.segments.isEmpty else {
            let object = try decoder.readMapBody(depth: 0)
            guard decoder.reader.isAtEnd else {
                throw decoder.reader.corrupt("\(decoder.reader.remaining) unexpected bytes after the document")
            }
            return .map(object)
        }
        return try decoder.findValue(at: path.segments[...], depth: 0)
    }
}

/// The one-byte type tags of the document format.
enum DocumentTag {
    static let null: UInt8 = 0x00
    static let falseValue: UInt8 = 0x01
    static let trueValue: UInt8 = 0x02
    static let integer: UInt8 = 0x03
    static let double: UInt8 = 0x04
    static let timestamp: UInt8 = 0x05
    static let serverTimestamp: UInt8 = 0x06
    static let serverTimestampWithPrevious: UInt8 = 0x07
    static let string: UInt8 = 0x08
    static let bytes: UInt8 = 0x09
    static let reference: UInt8 = 0x0A
    static let geoPoint: UInt8 = 0x0B
    static let array: UInt8 = 0x0C
    static let map: UInt8 = 0x0D
}
