/// A mutation's field transforms: applying them after the mutation's value, and the base values that keep
/// non-idempotent transforms stable (`LocalTransformResults`, `ServerTransformResults`,
/// `ExtractTransformBaseValue` in `model/mutation.cc`).
///
/// One deliberate difference from the SDKs: they compute every transform from the document *before* the write,
/// so `setData(["tags": FieldValue.arrayUnion(["x"])])` shows the old tags plus `x` locally, and keeps showing
/// that after the acknowledgement, although the server replaced the document first and stored `["x"]`
/// (firebase/flutterfire#168 shows the server's result). Cairn applies transforms to the data as written, as
/// the server does, so the local view and the acknowledged document match the server's result. Only a server
/// timestamp's remembered previous value still comes from before the write.
extension Mutation {
    /// The base mutation to store with this mutation's batch, or `nil` when none is needed.
    ///
    /// An increment is not idempotent: applied twice it counts twice. The local view is rebuilt by re-applying
    /// pending batches to the latest server copy of the document, and that copy may already include the
    /// increment (the server echoed it before acknowledging the write). So when the batch is written, the local
    /// store pins each incremented field's current value (``TransformOperation/computeBaseValue(_:)``) in a
    /// patch with precondition `exists(true)` (`LocalStore::WriteLocally`); ``MutationBatch`` applies it before
    /// the batch's own mutations, and the view never flickers.
    ///
    /// - Parameter document: the document as the user sees it now: the server copy with all earlier pending
    ///   batches applied (`nil` if the cache knows nothing of it).
    ///
    /// ```swift
    /// // the local view of users/ada is {visits: 41}
    /// let bump = Mutation.patch(key, value: ObjectValue(), mask: FieldMask(),
    ///                           transforms: [FieldTransform(field: visits, operation: .increment(.integer(1)))])
    /// bump.baseMutation(for: localView)
    /// // patch(users/ada, {visits: 41}, mask {visits}, exists(true))
    /// ```
    package func baseMutation(for document: Document?) -> Mutation? {
        var base: ObjectValue?
        for transform in fieldTransforms {
            let current = document?.data.value(at: transform.field)
            if let pinned = transform.operation.computeBaseValue(current) {
                var object = base ?? ObjectValue()
                object.set(pinned, at: transform.field)
                base = object
            }
        }
        guard let base else { return nil }
        return .patch(key, value: base, mask: FieldMask(leavesOf: base), precondition: .exists(true))
    }

    /// Applies the transforms' local estimates to `data`, the document's data after this mutation's value was
    /// written, in order: each transform reads the value the previous ones left, as the server performs
    /// `update_transforms` "after update ... in order". A server timestamp's `previous` value is the field's value
    /// before the write (`before`), what `ServerTimestampBehavior.previous` promises to show.
    func applyLocalTransforms(to data: inout ObjectValue, before: ObjectValue, localWriteTime: Timestamp) {
        for transform in fieldTransforms {
            let previous: Value?
            if case .serverTimestamp = transform.operation {
                previous = before.value(at: transform.field)
            } else {
                previous = data.value(at: transform.field)
            }
            data.set(transform.operation.applyToLocalView(previous: previous, localWriteTime: localWriteTime),
                     at: transform.field)
        }
    }

    /// Applies the server's transform results to `data`, the acknowledged document's data after this mutation's
    /// value was written, in order (array transforms are recomputed from the value the earlier ones left).
    func applyServerTransforms(to data: inout ObjectValue, results: [Value]) {
        for (transform, result) in zip(fieldTransforms, results) {
            let previous = data.value(at: transform.field)
            data.set(transform.operation.applyToRemoteDocument(previous: previous, transformResult: result),
                     at: transform.field)
        }
    }
}
