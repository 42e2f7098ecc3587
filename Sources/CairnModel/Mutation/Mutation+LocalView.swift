/// Applying a mutation to the client's local view, before the server has seen it
/// (`ApplyToLocalView` in `set_mutation.cc`, `patch_mutation.cc`, `delete_mutation.cc`; `mutation.ts`).
extension Mutation {
    /// Applies this mutation to the local view of its document and returns the fields changed so far.
    ///
    /// `document` is `nil` when the cache knows nothing of the document; a mutation that applies creates it.
    /// A mutation whose ``precondition`` fails leaves the document as it is and returns `previousMask`: the
    /// write will fail on the server too, so the local view must not show it. Otherwise the document ends with
    /// `hasLocalMutations` set and its version unset (a local view has no server version).
    ///
    /// The returned mask accumulates what a sequence of mutations changed, for computing an overlay
    /// (``Overlay/calculateOverlayMutation(for:mask:)``): start with an empty mask; a set or delete returns
    /// `nil` (the whole document was replaced) and `nil` stays `nil`; a patch adds its mask and its transformed
    /// fields.
    ///
    /// - Set: the document becomes the set's value, then the transforms apply to it, in order.
    /// - Patch: each mask path is written (or deleted), then the transforms apply, in order; on a missing
    ///   document (nil, tombstone, unknown) only when the precondition allows it (`.none` does, `update`'s
    ///   `exists(true)` does not).
    /// - Delete: the document becomes a tombstone.
    /// - Verify: nothing changes (verifies belong to transactions, which never reach the local view; the SDKs
    ///   treat applying one as a bug).
    ///
    /// ```swift
    /// var document: Document? = nil
    /// let mask = Mutation.set(key, value: ObjectValue(["a": .integer(1)]))
    ///     .applyToLocalView(&document, previousMask: FieldMask(), localWriteTime: now)
    /// // mask == nil; document!.data == {a: 1}; document!.hasLocalMutations
    /// ```
    @discardableResult
    package func applyToLocalView(
        _ document: inout Document?, previousMask: FieldMask?, localWriteTime: Timestamp
    ) -> FieldMask? {
        if let document {
            Swift.precondition(document.key == key, "mutation for \(key) applied to document \(document.key)")
        }
        guard precondition.isValid(for: document) else { return previousMask }

        var updated = document ?? .placeholder(for: key)
        switch kind {
        case .set(let value):
            var data = value
            applyLocalTransforms(to: &data, before: updated.data, localWriteTime: localWriteTime)
            updated.convertToFoundDocument(version: updated.version, data: data)
            updated.setHasLocalMutations()
            document = updated
            return nil

        case .patch(let value, let mask):
            var data = updated.data
            data.applyPatch(value, mask: mask)
            applyLocalTransforms(to: &data, before: updated.data, localWriteTime: localWriteTime)
            updated.convertToFoundDocument(version: updated.version, data: data)
            updated.setHasLocalMutations()
            document = updated
            return previousMask?.union(mask).union(fieldTransforms.map(\.field))

        case .delete:
            updated.convertToNoDocument(version: Document.unsetVersion)
            updated.setHasLocalMutations()
            document = updated
            return nil

        case .verify:
            return previousMask
        }
    }
}

extension ObjectValue {
    /// Writes `patch` under `mask`: each (non-empty) mask path takes `patch`'s value at that path, or is
    /// deleted when `patch` has none (`GetPatch` + `SetAll` in the SDKs). Paths go in mask order, so a parent
    /// is written before its children.
    mutating func applyPatch(_ patch: ObjectValue, mask: FieldMask) {
        for path in mask.fields where path.count > 0 {
            if let value = patch.value(at: path) {
                set(value, at: path)
            } else {
                delete(at: path)
            }
        }
    }
}
