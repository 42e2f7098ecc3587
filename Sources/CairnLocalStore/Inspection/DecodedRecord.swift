import CairnModel
import Foundation
import SegmentLog

/// One log record as `cairn dump` shows it: where it is, which event it holds, and the event's contents
/// decoded (documents with their Firestore types marked, see `InspectionJSON.swift`).
///
/// Decoding never fails: a record of a kind this build does not know reads "unknown kind N, M bytes", and a
/// record whose bytes cannot be decoded keeps the reason in ``problem``.
///
/// ```swift
/// try inspector.forEachRecord(matching: RecordFilter(kinds: [1])) { record in
///     print(record.lsn, record.event, record.key, record.body.render())
/// }
/// ```
package struct DecodedRecord: Sendable {
    package var lsn: UInt64
    package var location: RecordLocation
    /// The SegmentLog record kind.
    package var kind: UInt8
    /// The event's name (`remoteDocumentChanged`, ...) or `unknown`.
    package var event: String
    /// The record key, readable: a document path, `batch 7`, `target 2`, `globals`, or hex.
    package var key: String
    /// Whether the cache's replay superseded this record (compaction drops it); nil when replay failed.
    package var isRetired: Bool?
    /// The event's contents; an empty object when there are none or they could not be decoded.
    package var body: InspectionJSON
    /// Why the record could not be decoded, when it could not.
    package var problem: String?

    /// The record as one JSON object, as `cairn dump --json` prints it: lsn, segment, frameOffset, index, size,
    /// kind, event, key, retired, value, and problem when there is one. Every number is written exactly, whatever
    /// the log holds.
    package var json: InspectionJSON {
        var members: [(String, InspectionJSON)] = [
            ("lsn", .unsigned(lsn)), ("segment", .unsigned(UInt64(location.segment))),
            ("frameOffset", .unsigned(UInt64(location.frameOffset))), ("index", .unsigned(UInt64(location.index))),
            ("size", .unsigned(UInt64(location.size))), ("kind", .unsigned(UInt64(kind))),
            ("event", .string(event)), ("key", .string(key)),
            ("retired", isRetired.map { .bool($0) } ?? .null), ("value", body),
        ]
        if let problem { members.append(("problem", .string(problem))) }
        return .object(members)
    }

    /// The event names by record kind, as `dump --type` accepts them.
    package static let eventNames: [UInt8: String] = Dictionary(
        uniqueKeysWithValues: EventKind.allCases.map { ($0.rawValue, "\($0)") })

    /// Decodes `view`. `isRetired` comes from the caller (the inspector's replay).
    static func decode(_ view: RecordView, isRetired: Bool?) -> DecodedRecord {
        var record = DecodedRecord(
            lsn: view.lsn, location: view.location, kind: view.kind, event: eventNames[view.kind] ?? "unknown",
            key: describeKey(view.key), isRetired: isRetired, body: .object([]), problem: nil)
        guard let kind = EventKind(rawValue: view.kind) else {
            record.problem = "unknown kind \(view.kind), \(view.value.count) bytes (a newer Cairn wrote it?)"
            return record
        }
        do {
            (record.key, record.body) = try decodeEvent(kind, key: view.key, value: view.value)
        } catch {
            record.problem = "cannot decode (\((error as? LocalStoreError)?.message ?? "\(error)"))"
        }
        return record
    }

    private static func decodeEvent(
        _ kind: EventKind, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
    ) throws -> (String, InspectionJSON) {
        guard let owner = ComponentRegistry.ownerType(of: kind) else {
            throw LocalStoreError.dataLoss("no component owns event kind \(kind)")
        }
        return try owner.describe(kind, key: key, value: value)
    }

    /// A target or globals event as JSON.
    static func targetEvent(_ event: TargetCacheEvent) -> (String, InspectionJSON) {
        switch event {
        case .saved(let data):
            var members: [(String, InspectionJSON)] = [
                ("query", .string(data.target.canonicalID)),
                ("purpose", .string("\(data.purpose)")),
                ("snapshotVersion", .string(InspectionJSON.formatTimestamp(data.snapshotVersion))),
                ("lastLimboFreeSnapshotVersion", .string(InspectionJSON.formatTimestamp(data.lastLimboFreeSnapshotVersion))),
                ("resumeToken", .object([("__bytes__", .string(Data(data.resumeToken).base64EncodedString()))])),
            ]
            if let expected = data.expectedCount { members.append(("expectedCount", .integer(Int64(expected)))) }
            return ("target \(data.targetID)", .object(members))
        case .removed(let targetID):
            return ("target \(targetID)", .object([]))
        case .membershipChanged(let targetID, let change):
            return ("target \(targetID)", .object([
                ("snapshot", .bool(change.isSnapshot)),
                ("added", .array(change.added.map { .string($0.description) })),
                ("removed", .array(change.removed.map { .string($0.description) })),
            ]))
        case .globalsChanged(let globals):
            return ("globals", .object([
                ("lastRemoteSnapshotVersion", .string(InspectionJSON.formatTimestamp(globals.lastRemoteSnapshotVersion))),
                ("highestTargetID", .integer(Int64(globals.highestTargetID))),
                ("sessionToken", .object([("__bytes__", .string(Data(globals.sessionToken).base64EncodedString()))])),
                ("writeStreamTokens", .object(globals.writeStreamTokens.keys.sorted().map { user in
                    (user, .object([("__bytes__", .string(Data(globals.writeStreamTokens[user]!).base64EncodedString()))]))
                })),
            ]))
        }
    }

    /// An index as in the Firebase CLI's `firestore:indexes` JSON (what `setIndexConfiguration` reads), with
    /// its canonical id: `{"id":"users|age:asc","collectionGroup":"users","fields":[{"fieldPath":"age",
    /// "order":"ASCENDING"},{"fieldPath":"tags","arrayConfig":"CONTAINS"}]}`.
    static func indexJSON(_ index: FieldIndex) -> InspectionJSON {
        .object([
            ("id", .string(index.canonicalID)),
            ("collectionGroup", .string(index.collectionGroup)),
            ("fields", .array(index.segments.map { segment in
                let setting: (String, InspectionJSON) = switch segment.kind {
                case .ascending: ("order", .string("ASCENDING"))
                case .descending: ("order", .string("DESCENDING"))
                case .contains: ("arrayConfig", .string("CONTAINS"))
                }
                return .object([("fieldPath", .string(segment.field.canonicalString)), setting])
            })),
        ])
    }

    /// A batch as JSON: user, local write time, base writes and writes.
    static func batchJSON(_ batch: MutationBatch, user: String) -> InspectionJSON {
        .object([
            ("batchID", .integer(Int64(batch.batchID))),
            ("user", .string(user)),
            ("localWriteTime", .string(InspectionJSON.formatTimestamp(batch.localWriteTime))),
            ("baseWrites", .array(batch.baseMutations.map(mutationJSON))),
            ("writes", .array(batch.mutations.map(mutationJSON))),
        ])
    }

    /// One write: `{"op":"patch","key":"users/ada","fields":{...},"mask":["name"],"precondition":...}`.
    static func mutationJSON(_ mutation: Mutation) -> InspectionJSON {
        var members: [(String, InspectionJSON)] = []
        switch mutation.kind {
        case .set(let value):
            members = [("op", .string("set")), ("key", .string(mutation.key.description)), ("fields", InspectionJSON.fields(value))]
        case .patch(let value, let mask):
            members = [
                ("op", .string("patch")), ("key", .string(mutation.key.description)),
                ("fields", InspectionJSON.fields(value)), ("mask", .array(mask.fields.map { .string($0.canonicalString) })),
            ]
        case .delete:
            members = [("op", .string("delete")), ("key", .string(mutation.key.description))]
        case .verify:
            members = [("op", .string("verify")), ("key", .string(mutation.key.description))]
        }
        switch mutation.precondition {
        case .none: break
        case .exists(let exists): members.append(("precondition", .object([("exists", .bool(exists))])))
        case .updateTime(let version):
            members.append(("precondition", .object([("updateTime", .string(InspectionJSON.formatTimestamp(version)))])))
        }
        if !mutation.fieldTransforms.isEmpty {
            members.append(("transforms", .array(mutation.fieldTransforms.map { transform in
                let operation: (String, InspectionJSON)
                switch transform.operation {
                case .serverTimestamp: operation = ("serverTimestamp", .bool(true))
                case .increment(let operand): operation = ("increment", InspectionJSON.value(operand))
                case .arrayUnion(let items): operation = ("arrayUnion", .array(items.map { InspectionJSON.value($0) }))
                case .arrayRemove(let items): operation = ("arrayRemove", .array(items.map { InspectionJSON.value($0) }))
                }
                return .object([("field", .string(transform.field.canonicalString)), operation])
            })))
        }
        return .object(members)
    }

    /// Key bytes as UTF-8 when they are printable, else `hex:` and the bytes.
    static func describeKey(_ key: UnsafeRawBufferPointer) -> String {
        if let text = String(validating: key, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            return text
        }
        return "hex:" + key.map { String(format: "%02x", $0) }.joined()
    }
}
