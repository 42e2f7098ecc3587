import CairnModel

// The value of a `globalsChanged` event (kind 8, record key "globals"): the whole globals struct each time, so
// the newest record supersedes every older one. Primitives are those of EventBytes.swift.
//
//   globalsChanged          = 0x01 last-remote-version highest-target-id session-token user-count user{user-count}
//     last-remote-version   = timestamp                 ; the snapshot version of the last remote event
//     highest-target-id     = i32                       ; the largest target id ever allocated
//     session-token         = blob
//     user-count            = varint
//     user                  = string blob               ; user id, then that user's last write-stream token,
//                                                       ; in user-id order
//
// Firebase's `highest_listen_sequence_number` has no field: sequence numbers are LSNs, which the log keeps.

/// The cache-wide state of the target cache and the write stream (Firebase's `TargetGlobal`, plus the
/// write-stream token Firebase keeps per user in its mutation-queue table and the session token of its
/// `GlobalsCache`).
struct TargetGlobals: Equatable {
    /// The snapshot version of the last remote event applied (Firebase's `last_remote_snapshot_version`).
    var lastRemoteSnapshotVersion = TargetData.noSnapshotVersion
    /// The largest target id allocated so far: new ids are larger, so a removed target's id is never reused.
    var highestTargetID: Int32 = 0
    /// Per user id, the token of the last write-stream response, to resume the stream. No entry: none.
    var writeStreamTokens: [String: [UInt8]] = [:]
    /// The token the backend sent to identify the session (empty when none).
    var sessionToken: [UInt8] = []
}

/// Encodes and decodes `globalsChanged` events (grammar at the top of this file).
///
/// ```swift
/// var globals = TargetGlobals()
/// globals.highestTargetID = 2
/// let event = GlobalsEvent.encode(globals)   // kind .globalsChanged, key "globals"
/// ```
enum GlobalsEvent {
    static let formatVersion: UInt8 = 1
    static let key = Array("globals".utf8)

    static func encode(_ globals: TargetGlobals) -> EncodedEvent {
        var writer = EventWriter()
        writer.byte(formatVersion)
        writer.timestamp(globals.lastRemoteSnapshotVersion)
        writer.int32(globals.highestTargetID)
        writer.blob(globals.sessionToken)
        writer.varint(UInt64(globals.writeStreamTokens.count))
        for user in globals.writeStreamTokens.keys.sorted() {
            writer.string(user)
            writer.blob(globals.writeStreamTokens[user]!)
        }
        return EncodedEvent(kind: .globalsChanged, key: key, value: writer.bytes)
    }

    static func decode(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws -> TargetGlobals {
        guard key.elementsEqual(Self.key) else {
            throw LocalStoreError.dataLoss("a globalsChanged event has the record key \(Array(key)) instead of \"globals\"; clear the cache to rebuild it")
        }
        var reader = EventReader(value, event: "globalsChanged event")
        try reader.formatVersion(formatVersion)
        var globals = TargetGlobals()
        globals.lastRemoteSnapshotVersion = try reader.timestamp("last remote snapshot version")
        globals.highestTargetID = try reader.int32("highest target id")
        globals.sessionToken = try reader.blob("session token")
        // A user takes at least the two length bytes of its id and token.
        let users = try reader.count("user count", minimumBytesPerItem: 2)
        for _ in 0..<users {
            let user = try reader.string("user id")
            guard globals.writeStreamTokens.updateValue(try reader.blob("write-stream token"), forKey: user) == nil else {
                throw reader.damaged("user \"\(user)\" appears twice")
            }
        }
        try reader.expectEnd()
        return globals
    }
}
