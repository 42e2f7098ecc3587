/// What the server answered for one mutation of a committed batch (`MutationResult` in `model/mutation.h`):
/// the version the write produced and the results of its field transforms.
///
/// ```swift
/// // a set with one serverTimestamp transform, committed at t
/// MutationResult(version: t, transformResults: [.timestamp(t)])
/// ```
package struct MutationResult: Sendable, Hashable {
    /// The version the write committed at: the `WriteResult.update_time`, or for a delete (which has no update
    /// time) the commit time of the batch. A no-op write keeps the document's old update time.
    package var version: Timestamp
    /// One value per field transform of the mutation, in the same order (the server sends null for array
    /// transforms); empty when it has none.
    package var transformResults: [Value]

    package init(version: Timestamp, transformResults: [Value] = []) {
        self.version = version
        self.transformResults = transformResults
    }
}

/// The server's acknowledgement of a whole batch (`MutationBatchResult` in `model/mutation_batch_result.h`):
/// the commit time and one ``MutationResult`` per mutation, checked against the batch when created.
///
/// ```swift
/// let ack = try MutationBatchResult(batch: batch, commitVersion: commitTime,
///                                   mutationResults: [MutationResult(version: commitTime)])
/// var document = remoteCopy
/// if (document?.version ?? .init(seconds: 0, nanoseconds: 0)) < ack.documentVersions[key]! {
///     batch.applyToRemoteDocument(&document, for: key, batchResult: ack)
/// }
/// ```
package struct MutationBatchResult: Sendable, Equatable {
    /// The acknowledged batch.
    package let batch: MutationBatch
    /// The commit time of the whole batch.
    package let commitVersion: Timestamp
    /// One result per mutation of ``batch``, in order.
    package let mutationResults: [MutationResult]
    /// For each document the batch wrote, the version its last write in the batch produced. The local store
    /// applies the acknowledgement to its cached server copy only when that copy is older
    /// (`LocalStore::ApplyWriteToRemoteDocuments`): a newer copy from the watch stream already includes it.
    package let documentVersions: [DocumentKey: Timestamp]

    /// Pairs the server's results with `batch`.
    ///
    /// - Throws: ``ModelError`` `dataLoss` when the answer does not fit the batch: a result count different
    ///   from the mutation count, or a transform-result count different from a mutation's transform count.
    ///   Either means the write-stream response was damaged or misrouted; the batch must not be acknowledged.
    package init(batch: MutationBatch, commitVersion: Timestamp, mutationResults: [MutationResult]) throws(ModelError) {
        guard mutationResults.count == batch.mutations.count else {
            throw ModelError(
                .dataLoss,
                "The server acknowledged batch \(batch.batchID) with \(mutationResults.count) write results, "
                    + "but the batch has \(batch.mutations.count) writes; the write response does not belong to this batch.")
        }
        var versions: [DocumentKey: Timestamp] = [:]
        for (index, (mutation, result)) in zip(batch.mutations, mutationResults).enumerated() {
            guard result.transformResults.count == mutation.fieldTransforms.count else {
                throw ModelError(
                    .dataLoss,
                    "Write \(index) of batch \(batch.batchID) (\(mutation.key)) has \(mutation.fieldTransforms.count) "
                        + "field transforms, but the server returned \(result.transformResults.count) transform results; "
                        + "the write response does not belong to this batch.")
            }
            versions[mutation.key] = result.version
        }
        self.batch = batch
        self.commitVersion = commitVersion
        self.mutationResults = mutationResults
        self.documentVersions = versions
    }
}
