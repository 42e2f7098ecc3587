/// One write to one document, as the client queues it, applies it to its local view and sends it to the server
/// (`Mutation` in `model/mutation.h`, `model/mutation.ts`).
///
/// Four kinds, all addressed by ``key`` and guarded by a ``precondition``:
/// - ``Kind/set(value:)`` replaces the whole document (`setData`), then applies ``fieldTransforms``;
/// - ``Kind/patch(value:mask:)`` writes only the fields in the mask (`updateData`, `setData(merge:)`): each
///   path in the mask takes the value's value at that path, or is deleted when the value has none there;
///   then applies ``fieldTransforms``;
/// - ``Kind/delete`` deletes the document;
/// - ``Kind/verify`` changes nothing and only makes the server check the precondition (transactions).
///
/// Build mutations from user data with ``MutationBuilder``, or directly:
///
/// ```swift
/// let key = DocumentKey(path: ResourcePath(segments: ["users", "ada"]))
/// let rename = Mutation.patch(key,
///                             value: ObjectValue(["name": .string("Ada")]),
///                             mask: FieldMask([FieldPath(segments: ["name"])]))   // precondition: exists(true)
/// let bump = Mutation.set(key, value: ObjectValue(),
///                         transforms: [FieldTransform(field: FieldPath(segments: ["n"]),
///                                                     operation: .increment(.integer(1)))])
/// ```
///
/// Mutations are values (`Hashable`, `Sendable`): the local store persists a batch's mutations and replays them
/// after a restart; they carry everything needed to do so.
package struct Mutation: Sendable, Hashable {
    /// What the mutation writes.
    package enum Kind: Sendable, Hashable {
        /// Replace the document's contents with `value`.
        case set(value: ObjectValue)
        /// Write the fields in `mask`: set from `value` where it has a value, delete where it has none.
        case patch(value: ObjectValue, mask: FieldMask)
        /// Delete the document.
        case delete
        /// Check the precondition on the server only.
        case verify
    }

    /// The document written.
    package let key: DocumentKey
    package let kind: Kind
    /// The condition under which the write applies; a write whose precondition fails locally changes nothing
    /// in the local view (the server will reject it).
    package let precondition: Precondition
    /// Transforms applied after the value is written, in order. Empty for deletes and verifies.
    package let fieldTransforms: [FieldTransform]

    private init(key: DocumentKey, kind: Kind, precondition: Precondition, fieldTransforms: [FieldTransform]) {
        self.key = key
        self.kind = kind
        self.precondition = precondition
        self.fieldTransforms = fieldTransforms
    }

    /// A mutation that replaces the document's contents with `value`, then applies `transforms`.
    ///
    /// ```swift
    /// Mutation.set(key, value: ObjectValue(["a": .integer(1)]))
    /// ```
    package static func set(
        _ key: DocumentKey, value: ObjectValue, precondition: Precondition = .none,
        transforms: [FieldTransform] = []
    ) -> Mutation {
        Mutation(key: key, kind: .set(value: value), precondition: precondition, fieldTransforms: transforms)
    }

    /// A mutation that writes the fields in `mask` from `value` (deleting those `value` lacks), then applies
    /// `transforms`. The default precondition, `exists(true)`, is `updateData`'s; `setData(merge:)` uses `.none`.
    ///
    /// ```swift
    /// // update {"a.b": 1, "c": FieldValue.delete()}
    /// Mutation.patch(key, value: ObjectValue(["a": .map(ObjectValue(["b": .integer(1)]))]),
    ///                mask: FieldMask([FieldPath(segments: ["a", "b"]), FieldPath(segments: ["c"])]))
    /// ```
    package static func patch(
        _ key: DocumentKey, value: ObjectValue, mask: FieldMask, precondition: Precondition = .exists(true),
        transforms: [FieldTransform] = []
    ) -> Mutation {
        Mutation(key: key, kind: .patch(value: value, mask: mask), precondition: precondition, fieldTransforms: transforms)
    }

    /// A mutation that deletes the document.
    ///
    /// ```swift
    /// Mutation.delete(key)
    /// ```
    package static func delete(_ key: DocumentKey, precondition: Precondition = .none) -> Mutation {
        Mutation(key: key, kind: .delete, precondition: precondition, fieldTransforms: [])
    }

    /// A mutation that only asks the server to check `precondition` (a transaction's read of `key`).
    ///
    /// ```swift
    /// Mutation.verify(key, precondition: .updateTime(readVersion))
    /// ```
    package static func verify(_ key: DocumentKey, precondition: Precondition) -> Mutation {
        Mutation(key: key, kind: .verify, precondition: precondition, fieldTransforms: [])
    }

    /// The fields this mutation changes, or `nil` when it replaces or removes the whole document (set, delete)
    /// or changes nothing (verify). Transformed fields of a patch are not included (`getFieldMask`).
    package var fieldMask: FieldMask? {
        if case .patch(_, let mask) = kind { return mask }
        return nil
    }
}

extension Mutation: CustomStringConvertible {
    /// `patch(users/ada, {name}, exists(true), 1 transform)`: for logs and test failures.
    package var description: String {
        let transforms = fieldTransforms.isEmpty ? "" : ", \(fieldTransforms.count) transform(s)"
        switch kind {
        case .set: return "set(\(key), \(precondition)\(transforms))"
        case .patch(_, let mask): return "patch(\(key), \(mask), \(precondition)\(transforms))"
        case .delete: return "delete(\(key), \(precondition))"
        case .verify: return "verify(\(key), \(precondition))"
        }
    }
}
