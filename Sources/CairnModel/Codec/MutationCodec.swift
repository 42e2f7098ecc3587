// Cairn mutation-batch encoding, format version 1: a `MutationBatch` as the outbox stores it (the SDKs store
// the `firestore.client.WriteBatch` proto; this is the same content in the style of the document format).
//
//   batch          = version batch-id local-write-time base-count mutation{base-count} count mutation{count}
//   version        = 0x01, one byte
//   batch-id       = zigzag varint
//   base-count     = varint                       ; the batch's base mutations (increment bases)
//   count          = varint, at least 1           ; the user's mutations: an empty batch is damage
//   mutation       = kind key precondition body
//   kind   body
//   0x01   set     document transforms
//   0x02   patch   document mask transforms
//   0x03   delete  (none)
//   0x04   verify  (none)
//   key            = segment-count segment{segment-count}   ; even count >= 2, no segment empty
//   precondition   = 0x00 none | 0x01 exists(false) | 0x02 exists(true) | 0x03 timestamp (update time)
//   document       = length varint, then a whole DocumentCodec encoding (its own version byte included)
//   mask           = count varint, field-path{count}        ; in FieldMask order (sorted, unique)
//   transforms     = count varint, transform{count}
//   transform      = field-path operation
//   operation      = 0x01                                   ; server timestamp
//                  | 0x02 document                          ; increment: the one-field map {"v": operand},
//                                                           ; operand an integer or a double
//                  | 0x03 document | 0x04 document          ; array union / remove: {"v": array of elements}
//   field-path     = segment-count segment{segment-count}   ; at least one segment
//   segment        = length varint, UTF-8 bytes
//   timestamp      = seconds zigzag varint, nanoseconds zigzag varint (within Int32)
//
// Counts and lengths are unsigned LEB128 varints (at most 10 bytes); zigzag maps n to (n << 1) ^ (n >> 63), as
// in DocumentCodec.swift. Values travel as DocumentCodec documents, so there is one value format in the cache; a
// lone value (an increment operand, array elements) is wrapped in a map with the single field "v".
//
// Worked example: batch 7 written at 100 s with one `set` of rooms/a to {"n": 1}:
//   01                          version 1
//   0E                          batch id 7 (zigzag 14)
//   C8 01 00                    local write time: 100 s (zigzag 200), 0 ns
//   00                          no base mutations
//   01                          1 mutation
//   01                          set
//   02 05 72 6F 6F 6D 73 01 61  key: 2 segments, "rooms", "a"
//   00                          precondition none
//   07 01 01 01 6E 02 03 02     document of 7 bytes: {"n": 1}
//   00                          no transforms
//
// Decoding (MutationDecoder.swift) checks everything and throws `ModelError(.dataLoss, ...)` for a version other
// than 1, an unknown kind, precondition or operation byte, a count or length larger than the bytes left, invalid
// UTF-8, an odd or empty document path, an empty field path, a damaged document, an increment operand that is not
// a number, a batch without mutations, or bytes after the batch. It never traps, whatever the input.

/// Encodes and decodes mutation batches in Cairn's binary outbox format (grammar at the top of this file). The
/// local store writes one per `MutationBatchAdded` event and decodes it again after a restart.
///
/// ```swift
/// let key = DocumentKey(path: ResourcePath(segments: ["rooms", "a"]))
/// let batch = MutationBatch(batchID: 7, localWriteTime: Timestamp(seconds: 100, nanoseconds: 0),
///                           mutations: [.set(key, value: ObjectValue(["n": .integer(1)]))])
/// let bytes = MutationCodec.encode(batch)
/// try MutationCodec.decode(bytes) == batch   // true
/// ```
package enum MutationCodec {
    /// The format version this build writes, and the only one it reads.
    package static let formatVersion: UInt8 = 1

    /// Encodes a batch: its id, local write time, base mutations and mutations.
    package static func encode(_ batch: MutationBatch) -> [UInt8] {
        var encoder = MutationEncoder()
        encoder.buffer.append(formatVersion)
        encoder.writeSignedVarint(Int64(batch.batchID))
        encoder.writeTimestamp(batch.localWriteTime)
        encoder.writeVarint(UInt64(batch.baseMutations.count))
        for mutation in batch.baseMutations { encoder.writeMutation(mutation) }
        encoder.writeVarint(UInt64(batch.mutations.count))
        for mutation in batch.mutations { encoder.writeMutation(mutation) }
        return encoder.buffer
    }

    /// Decodes a batch; throws `dataLoss` when the bytes are not a valid version-1 encoding.
    package static func decode(_ bytes: [UInt8]) throws(ModelError) -> MutationBatch {
        // `withUnsafeBytes` rethrows untyped errors, so the typed error travels inside a Result.
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(ModelError) in try decode(buffer) } }
        return try result.get()
    }

    /// Decodes a batch from raw memory (such as a record inside a decompressed log frame).
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(ModelError) -> MutationBatch {
        var decoder = try MutationDecoder(batch: bytes)
        return try decoder.readBatch()
    }
}

/// The one-byte tags of the mutation format.
enum MutationTag {
    static let set: UInt8 = 0x01
    static let patch: UInt8 = 0x02
    static let delete: UInt8 = 0x03
    static let verify: UInt8 = 0x04

    static let noPrecondition: UInt8 = 0x00
    static let mustNotExist: UInt8 = 0x01
    static let mustExist: UInt8 = 0x02
    static let updateTime: UInt8 = 0x03

    static let serverTimestamp: UInt8 = 0x01
    static let increment: UInt8 = 0x02
    static let arrayUnion: UInt8 = 0x03
    static let arrayRemove: UInt8 = 0x04

    /// The field of the one-field map that carries a lone value.
    static let valueField = "v"
}

/// Writes mutations in the format described at the top of this file.
struct MutationEncoder {
    var buffer: [UInt8] = []

    mutating func writeMutation(_ mutation: Mutation) {
        switch mutation.kind {
        case .set: buffer.append(MutationTag.set)
        case .patch: buffer.append(MutationTag.patch)
        case .delete: buffer.append(MutationTag.delete)
        case .verify: buffer.append(MutationTag.verify)
        }
        writeSegments(mutation.key.path.segments)
        switch mutation.precondition {
        case .none: buffer.append(MutationTag.noPrecondition)
        case .exists(let exists): buffer.append(exists ? MutationTag.mustExist : MutationTag.mustNotExist)
        case .updateTime(let version):
            buffer.append(MutationTag.updateTime)
            writeTimestamp(version)
        }
        switch mutation.kind {
        case .set(let value):
            writeDocument(value)
            writeTransforms(mutation.fieldTransforms)
        case .patch(let value, let mask):
            writeDocument(value)
            writeVarint(UInt64(mask.fields.count))
            for path in mask.fields { writeSegments(path.segments) }
            writeTransforms(mutation.fieldTransforms)
        case .delete, .verify:
            break
        }
    }

    private mutating func writeTransforms(_ transforms: [FieldTransform]) {
        writeVarint(UInt64(transforms.count))
        for transform in transforms {
            writeSegments(transform.field.segments)
            switch transform.operation {
            case .serverTimestamp:
                buffer.append(MutationTag.serverTimestamp)
            case .increment(let operand):
                buffer.append(MutationTag.increment)
                writeDocument(ObjectValue([MutationTag.valueField: operand]))
            case .arrayUnion(let elements):
                buffer.append(MutationTag.arrayUnion)
                writeDocument(ObjectValue([MutationTag.valueField: .array(elements)]))
            case .arrayRemove(let elements):
                buffer.append(MutationTag.arrayRemove)
                writeDocument(ObjectValue([MutationTag.valueField: .array(elements)]))
            }
        }
    }

    private mutating func writeDocument(_ object: ObjectValue) {
        let document = DocumentCodec.encode(object)
        writeVarint(UInt64(document.count))
        buffer.append(contentsOf: document)
    }

    /// A segment count, then each segment as length and UTF-8 bytes (document keys and field paths).
    private mutating func writeSegments(_ segments: [String]) {
        writeVarint(UInt64(segments.count))
        for segment in segments {
            var segment = segment
            segment.withUTF8 { bytes in
                writeVarint(UInt64(bytes.count))
                buffer.append(contentsOf: bytes)
            }
        }
    }

    mutating func writeTimestamp(_ time: Timestamp) {
        writeSignedVarint(time.seconds)
        writeSignedVarint(Int64(time.nanoseconds))
    }

    mutating func writeSignedVarint(_ value: Int64) { buffer.appendSignedVarint(value) }

    mutating func writeVarint(_ value: UInt64) { buffer.appendVarint(value) }
}
