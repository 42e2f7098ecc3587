import CairnModel

// The events of a target (kinds 5–7, Docs/LocalStore.md §2). They share one record key, "t" followed by the
// target id as a big-endian u32 (the Int32's bit pattern), so compaction that clusters by key keeps a target's
// records together. Primitives (i64, timestamp, varint, blob, document-key) are those of EventBytes.swift.
//
//   targetSaved              = 0x01 purpose flags snapshot-version limbo-free-version resume-token
//                              [expected-count] query
//     purpose                = 0x00 listen | 0x01 existence-filter mismatch | 0x02 limbo resolution
//     flags                  = u8, bit 0: expected-count follows
//     snapshot-version       = timestamp
//     limbo-free-version     = timestamp                 ; lastLimboFreeSnapshotVersion
//     resume-token           = blob
//     expected-count         = i64
//     query                  = QueryCodec bytes, up to the end of the value
//   targetRemoved            = empty
//   targetMembershipChanged  = 0x01 flags added removed
//     flags                  = u8, bit 0: snapshot — `added` is the whole membership, replacing everything
//                              before it, and `removed` is empty
//     added, removed         = varint count, document-key{count}, in key order
//
// A target's sequence number is not stored: it is the LSN of its latest targetSaved record. The canonical id is
// not stored either: it is derived from the query on replay.

/// A change to the documents of a target: keys that joined and keys that left, or (``isSnapshot``) the whole
/// membership, which replaces every earlier change.
struct MembershipChange: Equatable {
    var isSnapshot: Bool
    var added: [DocumentKey]
    var removed: [DocumentKey]

    static func delta(added: Set<DocumentKey>, removed: Set<DocumentKey>) -> MembershipChange {
        MembershipChange(isSnapshot: false, added: added.sorted(), removed: removed.sorted())
    }

    static func snapshot(_ members: Set<DocumentKey>) -> MembershipChange {
        MembershipChange(isSnapshot: true, added: members.sorted(), removed: [])
    }
}

/// A target-cache event, decoded: what the targets view applies, whether just appended or met by replay.
///
/// ```swift
/// let event = TargetCacheEvent.removed(4)
/// event.encoded.kind                                                 // .targetRemoved
/// try TargetCacheEvent.decode(.targetRemoved, key: key, value: value)  // .removed(4)
/// ```
enum TargetCacheEvent {
    case saved(TargetData)
    case removed(Int32)
    case membershipChanged(Int32, MembershipChange)
    case globalsChanged(TargetGlobals)

    var encoded: EncodedEvent {
        switch self {
        case .saved(let data): TargetEvent.saved(data)
        case .removed(let targetID): TargetEvent.removed(targetID)
        case .membershipChanged(let targetID, let change): TargetEvent.membership(targetID, change)
        case .globalsChanged(let globals): GlobalsEvent.encode(globals)
        }
    }

    /// Decodes a record of one of the four target-cache kinds.
    static func decode(_ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> TargetCacheEvent {
        switch kind {
        case .globalsChanged:
            return .globalsChanged(try GlobalsEvent.decode(key: key, value: value))
        case .targetSaved:
            return .saved(try TargetEvent.decodeSaved(value, targetID: try TargetEvent.targetID(from: key)))
        case .targetRemoved:
            let targetID = try TargetEvent.targetID(from: key)
            guard value.isEmpty else {
                throw LocalStoreError.dataLoss("the targetRemoved event of target \(targetID) has a \(value.count)-byte value instead of none; clear the cache to rebuild it")
            }
            return .removed(targetID)
        case .targetMembershipChanged:
            let targetID = try TargetEvent.targetID(from: key)
            return .membershipChanged(targetID, try TargetEvent.decodeMembership(value, targetID: targetID))
        default:
            preconditionFailure("\(kind) is not a target-cache event")
        }
    }
}

/// Encodes and decodes the target events (grammar at the top of this file).
///
/// ```swift
/// let event = TargetEvent.saved(data)                       // kind .targetSaved, key "t" + id
/// let back = try event.value.withUnsafeBytes { try TargetEvent.decodeSaved($0, targetID: data.targetID) }
/// ```
enum TargetEvent {
    static let formatVersion: UInt8 = 1

    static func key(_ targetID: Int32) -> [UInt8] {
        let id = UInt32(bitPattern: targetID)
        return [UInt8(ascii: "t"), UInt8(id >> 24), UInt8(id >> 16 & 0xFF), UInt8(id >> 8 & 0xFF), UInt8(id & 0xFF)]
    }

    static func targetID(from key: UnsafeRawBufferPointer) throws -> Int32 {
        guard key.count == 5, key[0] == UInt8(ascii: "t") else {
            throw LocalStoreError.dataLoss("a target event has the malformed record key \(Array(key)); clear the cache to rebuild it")
        }
        return Int32(bitPattern: key[1...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    static func saved(_ data: TargetData) -> EncodedEvent {
        var writer = EventWriter()
        writer.byte(formatVersion)
        writer.byte(data.purpose.rawValue)
        writer.byte(data.expectedCount == nil ? 0 : 1)
        writer.timestamp(data.snapshotVersion)
        writer.timestamp(data.lastLimboFreeSnapshotVersion)
        writer.blob(data.resumeToken)
        if let expectedCount = data.expectedCount { writer.int64(Int64(expectedCount)) }
        writer.rest(QueryCodec.encode(data.query))
        return EncodedEvent(kind: .targetSaved, key: key(data.targetID), value: writer.bytes)
    }

    /// The target data of a `targetSaved` value; its ``TargetData/sequenceNumber`` is left 0 for the caller
    /// to set from the record.
    static func decodeSaved(_ value: UnsafeRawBufferPointer, targetID: Int32) throws -> TargetData {
        var reader = EventReader(value, event: "targetSaved event of target \(targetID)")
        try reader.formatVersion(formatVersion)
        let purposeByte = try reader.byte("purpose")
        guard let purpose = TargetData.Purpose(rawValue: purposeByte) else {
            throw reader.damaged("unknown target purpose \(purposeByte)")
        }
        let flags = try reader.byte("flags")
        guard flags <= 1 else { throw reader.damaged("unknown flags \(flags)") }
        let snapshotVersion = try reader.timestamp("snapshot version")
        let limboFreeVersion = try reader.timestamp("last limbo-free snapshot version")
        let resumeToken = try reader.blob("resume token")
        var expectedCount: Int?
        if flags & 1 != 0 { expectedCount = Int(try reader.int64("expected count")) }
        let query: Query
        do {
            query = try QueryCodec.decode(reader.rest())
        } catch {
            throw LocalStoreError.dataLoss("the query of target \(targetID) cannot be decoded: \(error.message)")
        }
        return TargetData(
            targetID: targetID, query: query, purpose: purpose, snapshotVersion: snapshotVersion,
            lastLimboFreeSnapshotVersion: limboFreeVersion, resumeToken: resumeToken, expectedCount: expectedCount)
    }

    static func removed(_ targetID: Int32) -> EncodedEvent {
        EncodedEvent(kind: .targetRemoved, key: key(targetID), value: [])
    }

    static func membership(_ targetID: Int32, _ change: MembershipChange) -> EncodedEvent {
        var writer = EventWriter()
        writer.byte(formatVersion)
        writer.byte(change.isSnapshot ? 1 : 0)
        for keys in [change.added, change.removed] {
            writer.varint(UInt64(keys.count))
            for key in keys { writer.documentKey(key) }
        }
        return EncodedEvent(kind: .targetMembershipChanged, key: key(targetID), value: writer.bytes)
    }

    static func decodeMembership(_ value: UnsafeRawBufferPointer, targetID: Int32) throws -> MembershipChange {
        var reader = EventReader(value, event: "targetMembershipChanged event of target \(targetID)")
        try reader.formatVersion(formatVersion)
        let flags = try reader.byte("flags")
        guard flags <= 1 else { throw reader.damaged("unknown flags \(flags)") }
        // A key takes at least its length byte and the 3 characters of the shortest path ("a/b").
        var lists: [[DocumentKey]] = []
        for what in ["added key", "removed key"] {
            let count = try reader.count("\(what) count", minimumBytesPerItem: 4)
            var keys: [DocumentKey] = []
            keys.reserveCapacity(count)
            for _ in 0..<count { keys.append(try reader.documentKey(what)) }
            lists.append(keys)
        }
        try reader.expectEnd()
        let change = MembershipChange(isSnapshot: flags == 1, added: lists[0], removed: lists[1])
        guard !change.isSnapshot || change.removed.isEmpty else { throw reader.damaged("a snapshot that removes keys") }
        return change
    }
}
