/// The net effect of all pending batches on one document, saved so that reads need not replay the mutation
/// queue (`Overlay` in `model/overlay.h`; `DocumentOverlayCache` stores one per document).
///
/// Applying ``mutation`` to the cached server copy gives the local view the user sees. ``largestBatchID`` is
/// the last batch folded in: when that batch is acknowledged or rejected, the overlay is recomputed from the
/// batches still pending.
///
/// ```swift
/// var view: Document? = remoteCopy
/// overlay.mutation.applyToLocalView(&view, previousMask: FieldMask(), localWriteTime: overlayTime)
/// ```
package struct Overlay: Sendable, Hashable {
    /// The highest batch id whose mutations the overlay includes.
    package var largestBatchID: Int
    /// A set, patch or delete with precondition `.none` and no transforms (their results are already values).
    package var mutation: Mutation

    package init(largestBatchID: Int, mutation: Mutation) {
        self.largestBatchID = largestBatchID
        self.mutation = mutation
    }

    /// The document the overlay writes.
    package var key: DocumentKey { mutation.key }

    /// The single mutation that turns the server copy into `document`, the local view after pending batches
    /// were applied to it (`Mutation::CalculateOverlayMutation`), or `nil` when no batch changed the document.
    ///
    /// - `mask == nil` (a set or delete replaced the document): a delete for a tombstone, else a set of the
    ///   document's data.
    /// - Otherwise: a patch of the document's values at the mask's paths; a path whose value is gone is
    ///   deleted. When a nested path's value is gone, its parent is written instead: `{foo.bar: 1}` followed by
    ///   deleting `foo.bar` leaves `foo` as an empty map, which a patch deleting only `foo.bar` would not
    ///   create.
    ///
    /// The result has precondition `.none` (the batches' preconditions were already evaluated) and no
    /// transforms (their local results are in the values), so applying it to the same server copy reproduces
    /// `document`.
    ///
    /// ```swift
    /// var document: Document? = remoteCopy
    /// let mask = batch.applyToLocalDocument(&document, for: key)
    /// let overlay = Overlay.calculateOverlayMutation(for: document, mask: mask)
    /// ```
    package static func calculateOverlayMutation(for document: Document?, mask: FieldMask?) -> Mutation? {
        guard let document, document.hasLocalMutations else { return nil }
        guard let mask else {
            if document.state == .noDocument {
                return .delete(document.key, precondition: .none)
            }
            return .set(document.key, value: document.data, precondition: .none)
        }

        var patch = ObjectValue()
        var written = Set<FieldPath>()
        for field in mask.fields where !written.contains(field) {
            var path = field
            var value = document.data.value(at: path)
            if value == nil, path.count > 1 {
                path = FieldPath(segments: Array(path.segments.dropLast()))
                value = document.data.value(at: path)
            }
            if let value {
                patch.set(value, at: path)
            } else {
                patch.delete(at: path)
            }
            written.insert(path)
        }
        return .patch(document.key, value: patch, mask: FieldMask(written), precondition: .none)
    }
}
