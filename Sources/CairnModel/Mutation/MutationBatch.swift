/// The writes of one user operation (`setData`, a `WriteBatch`, ...) that the client queues, applies to its local
/// view and sends to the server together, to be committed atomically (`MutationBatch` in
/// `model/mutation_batch.cc`, `model/mutation_batch.ts`).
///
/// ``baseMutations`` pin the values that non-idempotent transforms start from (see
/// ``Mutation/baseMutation(for:)``); they are never sent to the server, and they apply first.
///
/// The local store keeps, per document, one ``Overlay``: the net effect of all pending batches. After adding a
/// batch it folds the batch into the overlay of each document the batch writes (`LocalStore::WriteLocally`,
/// `LocalDocumentsView::GetOverlayedDocuments`):
///
/// ```swift
/// for key in batch.keys {
///     var document = remoteDocuments[key]          // the cached server copy; nil when unknown
///     var mask: FieldMask? = FieldMask()
///     if let previous = overlays[key]?.mutation {  // the earlier pending batches, folded
///         previous.applyToLocalView(&document, previousMask: nil, localWriteTime: batch.localWriteTime)
///         mask = previous.fieldMask                // nil after a set or a delete
///     }
///     mask = batch.applyToLocalDocument(&document, for: key, mutatedFields: mask)
///     if let mutation = Overlay.calculateOverlayMutation(for: document, mask: mask) {
///         overlays[key] = Overlay(largestBatchID: batch.batchID, mutation: mutation)
///     }
/// }
/// ```
///
/// When a batch is acknowledged or rejected, the overlays of its documents are recomputed from scratch: apply
/// every remaining batch in order to the server copy, starting from the empty mask, then compute the overlay.
package struct MutationBatch: Sendable, Hashable {
    /// The batch's place in the mutation queue: increasing across users, never reused.
    package let batchID: Int
    /// When the user made the writes: the local estimate of every server timestamp in the batch.
    package let localWriteTime: Timestamp
    /// Patches that pin increment bases, applied before ``mutations`` and never sent.
    package let baseMutations: [Mutation]
    /// The user's writes, in order.
    package let mutations: [Mutation]

    /// A batch of `mutations` (at least one: an empty batch is a programming error).
    package init(batchID: Int, localWriteTime: Timestamp, baseMutations: [Mutation] = [], mutations: [Mutation]) {
        precondition(!mutations.isEmpty, "a mutation batch needs at least one mutation")
        self.batchID = batchID
        self.localWriteTime = localWriteTime
        self.baseMutations = baseMutations
        self.mutations = mutations
        var positions: [DocumentKey: MutationPositions] = [:]
        var keys: [DocumentKey] = []
        for (index, mutation) in baseMutations.enumerated() {
            positions[mutation.key, default: MutationPositions()].base.append(index)
        }
        for (index, mutation) in mutations.enumerated() {
            if positions[mutation.key]?.writes.isEmpty ?? true { keys.append(mutation.key) }
            positions[mutation.key, default: MutationPositions()].writes.append(index)
        }
        self.positions = positions
        self.keys = keys
    }

    /// Where a document's base mutations and mutations sit in the batch.
    struct MutationPositions: Sendable {
        var base: [Int] = []
        var writes: [Int] = []
    }

    /// The positions of each document's mutations, built once so that applying the whole batch, key by key, is
    /// linear in its size (derived from the mutations: left out of equality and hashing).
    private let positions: [DocumentKey: MutationPositions]

    /// The documents the batch writes, each once, in order of first write.
    package let keys: [DocumentKey]

    package static func == (lhs: MutationBatch, rhs: MutationBatch) -> Bool {
        lhs.batchID == rhs.batchID && lhs.localWriteTime == rhs.localWriteTime
            && lhs.baseMutations == rhs.baseMutations && lhs.mutations == rhs.mutations
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(batchID)
        hasher.combine(localWriteTime)
        hasher.combine(baseMutations)
        hasher.combine(mutations)
    }

    /// Applies the batch's base mutations, then its mutations, for `key` to the local view `document` and
    /// returns the fields changed so far (see ``Mutation/applyToLocalView(_:previousMask:localWriteTime:)``).
    ///
    /// - Parameters:
    ///   - document: the local view before this batch; `nil` when the cache knows nothing of the document.
    ///   - mutatedFields: the fields earlier batches changed: start with the empty mask; `nil` means an earlier
    ///     batch replaced or deleted the whole document.
    ///
    /// ```swift
    /// var document: Document? = remoteCopy
    /// let mask = batch.applyToLocalDocument(&document, for: key)
    /// ```
    @discardableResult
    package func applyToLocalDocument(
        _ document: inout Document?, for key: DocumentKey, mutatedFields: FieldMask? = FieldMask()
    ) -> FieldMask? {
        var mask = mutatedFields
        guard let positions = positions[key] else { return mask }
        for index in positions.base {
            mask = baseMutations[index].applyToLocalView(&document, previousMask: mask, localWriteTime: localWriteTime)
        }
        for index in positions.writes {
            mask = mutations[index].applyToLocalView(&document, previousMask: mask, localWriteTime: localWriteTime)
        }
        return mask
    }

    /// Applies the batch's acknowledged mutations for `key` to the cached server copy `document`, with the
    /// server's results (see ``Mutation/applyToRemoteDocument(_:result:)``).
    ///
    /// - Precondition: `batchResult` acknowledges this batch.
    ///
    /// ```swift
    /// var document: Document? = remoteCopy
    /// batch.applyToRemoteDocument(&document, for: key, batchResult: ack)
    /// // document!.hasCommittedMutations, at the write's version
    /// ```
    package func applyToRemoteDocument(_ document: inout Document?, for key: DocumentKey, batchResult: MutationBatchResult) {
        precondition(batchResult.batch.batchID == batchID, "result of batch \(batchResult.batch.batchID) applied to batch \(batchID)")
        for index in positions[key]?.writes ?? [] where index < batchResult.mutationResults.count {
            mutations[index].applyToRemoteDocument(&document, result: batchResult.mutationResults[index])
        }
    }
}
