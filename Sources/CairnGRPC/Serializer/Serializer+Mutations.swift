import CairnCore
import CairnModel
import SwiftProtobuf

/// Writes: a CairnModel ``Mutation`` to `google.firestore.v1.Write` and back, and `WriteResult` to
/// ``MutationResult``.
///
/// | mutation | write |
/// |---|---|
/// | set | `update` (no mask) |
/// | patch | `update` + `update_mask` (the mask's fields, backtick-quoted) |
/// | delete | `delete` (the resource name) |
/// | verify `updateTime(t)` / `exists(true)` | `update` with no fields + an empty `update_mask` + the precondition |
/// | verify `exists(false)` | `delete` + `exists: false` |
///
/// The mobile SDKs send verify as a `verify` field that is not part of the public Firestore v1 API. Cairn sends
/// the equivalent public writes: an update whose mask is empty changes nothing (the server reports the stored
/// update time) but still checks its precondition, and a delete of a missing document with `exists: false`
/// changes nothing and fails if the document exists. Decoding therefore returns such a verify as a patch with an
/// empty mask, which has the same effect.
/// Transforms: serverTimestamp → `set_to_server_value: REQUEST_TIME`, increment → `increment`, arrayUnion →
/// `append_missing_elements`, arrayRemove → `remove_all_from_array`.
extension FirestoreSerializer {
    package func encode(_ mutation: Mutation) throws(FirestoreErrorCode) -> Google_Firestore_V1_Write {
        var write = Google_Firestore_V1_Write()
        switch mutation.kind {
        case .set(let value):
            write.update = try encodeDocument(key: mutation.key, data: value)
        case .patch(let value, let mask):
            write.update = try encodeDocument(key: mutation.key, data: value)
            write.updateMask = Self.encode(mask)
        case .delete:
            write.delete = name(for: mutation.key)
        case .verify:
            switch mutation.precondition {
            case .exists(false):
                write.delete = name(for: mutation.key)
            case .exists(true), .updateTime:
                write.update = try encodeDocument(key: mutation.key, data: ObjectValue())
                write.updateMask = Google_Firestore_V1_DocumentMask()
            case .none:
                throw FirestoreErrorCode(
                    .invalidArgument,
                    "A verify mutation for \(mutation.key) needs a precondition (the version that was read); "
                        + "without one it checks nothing.")
            }
        }
        write.updateTransforms = try mutation.fieldTransforms.map { (transform) throws(FirestoreErrorCode) in
            try encode(transform)
        }
        switch mutation.precondition {
        case .none: break
        case .exists(let exists): write.currentDocument = Google_Firestore_V1_Precondition.with { $0.exists = exists }
        case .updateTime(let version):
            write.currentDocument = Google_Firestore_V1_Precondition.with { $0.updateTime = Self.encode(version) }
        }
        return write
    }

    package func decodeMutation(_ write: Google_Firestore_V1_Write) throws(FirestoreErrorCode) -> Mutation {
        let precondition = try Self.decodePrecondition(write)
        let transforms = try write.updateTransforms.map { (transform) throws(FirestoreErrorCode) in
            try decode(transform)
        }
        switch write.operation {
        case .update(let document):
            let key = try decodeKey(document.name)
            let value = try decodeFields(document.fields)
            guard write.hasUpdateMask else {
                return .set(key, value: value, precondition: precondition, transforms: transforms)
            }
            let mask = try write.updateMask.fieldPaths.map { (path) throws(FirestoreErrorCode) in
                try Self.decodeFieldPath(.with { $0.fieldPath = path })
            }
            return .patch(key, value: value, mask: FieldMask(mask), precondition: precondition, transforms: transforms)
        case .delete(let name):
            return .delete(try decodeKey(name), precondition: precondition)
        case .transform:
            throw Self.malformed("a standalone DocumentTransform write (the legacy form Cairn never sends)")
        case nil:
            throw Self.malformed("a write has no operation")
        }
    }

    /// The result of one write: its version is `update_time`, or the commit time after a delete.
    package func decodeWriteResult(
        _ result: Google_Firestore_V1_WriteResult, commitTime: Timestamp
    ) throws(FirestoreErrorCode) -> MutationResult {
        let version = result.hasUpdateTime ? try Self.decode(result.updateTime) : commitTime
        let transformResults = try result.transformResults.map { (value) throws(FirestoreErrorCode) in
            try decode(value)
        }
        return MutationResult(version: version, transformResults: transformResults)
    }

    static func encode(_ mask: FieldMask) -> Google_Firestore_V1_DocumentMask {
        Google_Firestore_V1_DocumentMask.with { $0.fieldPaths = mask.fields.map(\.canonicalString) }
    }

    private func encode(
        _ transform: FieldTransform
    ) throws(FirestoreErrorCode) -> Google_Firestore_V1_DocumentTransform.FieldTransform {
        var proto = Google_Firestore_V1_DocumentTransform.FieldTransform()
        proto.fieldPath = transform.field.canonicalString
        switch transform.operation {
        case .serverTimestamp: proto.setToServerValue = .requestTime
        case .increment(let operand): proto.increment = try encode(operand)
        case .arrayUnion(let elements): proto.appendMissingElements = try encodeArray(elements)
        case .arrayRemove(let elements): proto.removeAllFromArray = try encodeArray(elements)
        }
        return proto
    }

    private func decode(
        _ proto: Google_Firestore_V1_DocumentTransform.FieldTransform
    ) throws(FirestoreErrorCode) -> FieldTransform {
        let field = try Self.decodeFieldPath(.with { $0.fieldPath = proto.fieldPath })
        let operation: TransformOperation
        switch proto.transformType {
        case .setToServerValue(.requestTime): operation = .serverTimestamp
        case .increment(let operand): operation = .increment(try decode(operand))
        case .appendMissingElements(let array): operation = .arrayUnion(try decodeArray(array))
        case .removeAllFromArray(let array): operation = .arrayRemove(try decodeArray(array))
        default:
            throw Self.malformed("the field transform on \(proto.fieldPath) is of a kind Cairn does not support")
        }
        return FieldTransform(field: field, operation: operation)
    }

    private func encodeArray(_ elements: [Value]) throws(FirestoreErrorCode) -> Google_Firestore_V1_ArrayValue {
        var array = Google_Firestore_V1_ArrayValue()
        array.values = try elements.map { (element) throws(FirestoreErrorCode) in try encode(element) }
        return array
    }

    private func decodeArray(_ array: Google_Firestore_V1_ArrayValue) throws(FirestoreErrorCode) -> [Value] {
        try array.values.map { (element) throws(FirestoreErrorCode) in try decode(element) }
    }

    private static func decodePrecondition(_ write: Google_Firestore_V1_Write) throws(FirestoreErrorCode)
        -> Precondition
    {
        guard write.hasCurrentDocument else { return .none }
        switch write.currentDocument.conditionType {
        case .exists(let exists): return .exists(exists)
        case .updateTime(let time): return .updateTime(try decode(time))
        case nil: return .none
        }
    }
}
