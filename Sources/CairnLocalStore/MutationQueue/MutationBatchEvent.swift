import CairnModel

// The outbox events, `mutationBatchAdded` (kind 3) and `mutationBatchRemoved` (kind 4). Both are keyed by the
// batch, so the removal of a batch sits next to its addition when compaction clusters records by key. Values
// use the primitives of EventBytes.swift:
//
//   key      := 'b' (0x62) | batchID u64 big-endian
//   added    := formatVersion u8 (1) | user string (empty: the unauthenticated user)
//               | batch (MutationCodec bytes to the end: batch id, local write time, base mutations, mutations)
//   removed  := formatVersion u8 (1) | reason u8 (1 acknowledged, 2 rejected)
//               | commitVersion timestamp                               (acknowledged only)
//
// Replay reads only the key and the user of an `added` event; the batch is decoded when the outbox needs it. An
// acknowledgement's documents are kind-1 `remoteDocumentChanged` records in the same atomic append as its
// `removed` event.
//
// Worked example: batch 5 of user "ada", then its rejection:
//   key      62 00 00 00 00 00 00 00 05
//   added    01 03 61 64 61 | 01 0A ...   (version, user "ada", MutationCodec bytes of batch 5)
//   removed  01 02

/// Why a batch left the outbox.
enum BatchRemoval: Equatable {
    /// The server committed the batch at `commitVersion`.
    case acknowledged(commitVersion: Timestamp)
    /// The server refused the batch; its writes are rolled back.
    case rejected
}

/// Encodes and decodes the outbox events (format at the top of this file).
///
/// ```swift
/// let event = MutationBatchEvent.added(batch, user: "ada")         // kind 3, key "b" + batch id
/// let (user, same) = try event.value.withUnsafeBytes { try MutationBatchEvent.decodeAdded($0, batchID: batch.batchID) }
/// MutationBatchEvent.removed(batch.batchID, .rejected)              // kind 4, same key
/// ```
enum MutationBatchEvent {
    static let formatVersion: UInt8 = 1
    private static let keyPrefix = UInt8(ascii: "b")

    static func key(_ batchID: Int) -> [UInt8] {
        precondition(batchID >= 0, "batch ids are never negative")
        var bytes: [UInt8] = [keyPrefix]
        withUnsafeBytes(of: UInt64(batchID).bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    static func batchID(from key: UnsafeRawBufferPointer) throws -> Int {
        guard key.count == 9, key[0] == keyPrefix,
            let id = Int(exactly: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self)))
        else {
            throw LocalStoreError.dataLoss("an outbox event has a malformed key of \(key.count) bytes (expected 'b' and a batch id)")
        }
        return id
    }

    static func added(_ batch: MutationBatch, user: String) -> EncodedEvent {
        var writer = EventWriter()
        writer.byte(formatVersion)
        writer.string(user)
        writer.rest(MutationCodec.encode(batch))
        return EncodedEvent(kind: .mutationBatchAdded, key: key(batch.batchID), value: writer.bytes)
    }

    static func removed(_ batchID: Int, _ removal: BatchRemoval) -> EncodedEvent {
        var writer = EventWriter()
        writer.byte(formatVersion)
        switch removal {
        case .acknowledged(let commitVersion):
            writer.byte(1)
            writer.timestamp(commitVersion)
        case .rejected:
            writer.byte(2)
        }
        return EncodedEvent(kind: .mutationBatchRemoved, key: key(batchID), value: writer.bytes)
    }

    /// The user of a `mutationBatchAdded` value, and a reader positioned at the batch.
    static func addedUser(_ value: UnsafeRawBufferPointer, batchID: Int) throws -> (user: String, reader: EventReader) {
        var reader = EventReader(value, event: "outbox record of batch \(batchID)")
        try reader.formatVersion(formatVersion)
        return (try reader.string("user id"), reader)
    }

    /// The user and the batch of a `mutationBatchAdded` value; the batch must have `batchID`, the id in the key.
    static func decodeAdded(_ value: UnsafeRawBufferPointer, batchID: Int) throws -> (user: String, batch: MutationBatch) {
        let (user, header) = try addedUser(value, batchID: batchID)
        var reader = header
        let batch: MutationBatch
        do {
            batch = try MutationCodec.decode(reader.rest())
        } catch {
            throw LocalStoreError.dataLoss("batch \(batchID) of the outbox cannot be decoded: \(error.message)")
        }
        guard batch.batchID == batchID else {
            throw LocalStoreError.dataLoss("the outbox record of batch \(batchID) holds batch \(batch.batchID); the log is damaged")
        }
        return (user, batch)
    }

    static func decodeRemoved(_ value: UnsafeRawBufferPointer, batchID: Int) throws -> BatchRemoval {
        var reader = EventReader(value, event: "removal of batch \(batchID)")
        try reader.formatVersion(formatVersion)
        let removal: BatchRemoval
        switch try reader.byte("reason") {
        case 1: removal = .acknowledged(commitVersion: try reader.timestamp("commit version"))
        case 2: removal = .rejected
        case let reason: throw reader.damaged("unknown reason \(reason)")
        }
        try reader.expectEnd()
        return removal
    }
}
