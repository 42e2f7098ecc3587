import CairnModel

/// The outbox (Firebase's `MutationQueue` with `LocalStore::WriteLocally`, `AcknowledgeBatch`, `RejectBatch`):
/// local writes join it as one batch each, stay until the server acknowledges or rejects them, and survive
/// restarts. Each user has a queue; the current user's pending batches give the local view (see
/// `LocalStore+LocalDocuments.swift`). Every operation appends its events in one atomic batch.
///
/// ```swift
/// let store = try LocalStore.open(at: path)
/// try store.switchUser(to: "ada")
/// let (batchID, changed) = try store.writeLocally([.set(key, value: fields)], localWriteTime: now)
/// // changed[key] is the new local view: hasLocalMutations, version 0 if only local
/// let batch = try store.nextMutationBatch(after: nil)!            // the write pipeline sends it
/// let ack = try MutationBatchResult(batch: batch, commitVersion: commitTime, mutationResults: results)
/// try store.acknowledgeBatch(ack)                                 // the remote copy now has the write
/// ```
extension LocalStore {
    /// The user whose writes go to the outbox and whose pending writes the local view shows; the empty string
    /// is the unauthenticated user (the default after open).
    package var currentUser: String { mutationQueue.currentUser }

    /// Switches the current user. Each user's outbox survives; the local view now shows `user`'s pending writes.
    /// Returns the new local views of the documents either user's pending writes touch, whose view may have
    /// changed (Firebase's `HandleUserChange`).
    ///
    /// ```swift
    /// let changed = try store.switchUser(to: "ada")
    /// store.pendingBatchIDs   // ada's batches only
    /// ```
    @discardableResult
    package func switchUser(to user: String) throws -> [DocumentKey: Document?] {
        try checkOpen()
        var keys = Set(try pendingBatches(of: currentUser).flatMap(\.keys))
        mutationQueue.switchUser(to: user)
        try prepareOverlays()
        keys.formUnion(try pendingBatches(of: user).flatMap(\.keys))
        return try localViews(Array(keys))
    }

    /// Adds a batch of the current user's writes to the outbox, in one atomic append, and returns its id and
    /// the new local views of the documents it writes (`nil` where the cache knows nothing even now, such as
    /// an update of an unknown document).
    ///
    /// Increments are pinned first: each gets a base mutation holding the field's current local value
    /// (``Mutation/baseMutation(for:)``), so the view does not count the increment twice when the server's echo
    /// arrives before the acknowledgement.
    ///
    /// ```swift
    /// let (batchID, changed) = try store.writeLocally(
    ///     [.patch(key, value: ObjectValue(["n": .integer(2)]), mask: FieldMask([FieldPath(segments: ["n"])]))],
    ///     localWriteTime: Timestamp(seconds: 1_700_000_000, nanoseconds: 0))
    /// ```
    ///
    /// A write whose local result is a document larger than Firestore's 1 MiB (in storage size, see CairnModel's
    /// `DocumentValidation`) is refused: the server would reject it, and the local view would show a document
    /// that can never exist.
    ///
    /// - Throws: `invalidArgument` for an empty batch, a resulting document over 1 MiB, or a batch too large
    ///   for one record of the log; `dataLoss` when the log already names batch id `Int.max` (a damaged log: no
    ///   id is left); `storage` when the append fails otherwise (then nothing changed).
    @discardableResult
    package func writeLocally(
        _ mutations: [Mutation], localWriteTime: Timestamp
    ) throws -> (batchID: Int, changed: [DocumentKey: Document?]) {
        try checkOpen()
        guard !mutations.isEmpty else {
            throw LocalStoreError(.invalidArgument, "a write batch needs at least one write; do not commit an empty batch")
        }
        try Self.validate(mutations)
        guard let batchID = mutationQueue.nextBatchID else {
            throw LocalStoreError(
                .dataLoss, "the outbox names batch id \(Int.max), so no batch id is left; the log is damaged: clear the cache")
        }
        try prepareOverlays()
        var keys: [DocumentKey] = []
        var before: [DocumentKey: Document] = [:]
        var seen = Set<DocumentKey>()
        for key in mutations.map(\.key) where seen.insert(key).inserted {
            keys.append(key)
            before[key] = try localView(key)
        }
        let batch = MutationBatch(
            batchID: batchID, localWriteTime: localWriteTime,
            baseMutations: mutations.compactMap { $0.baseMutation(for: before[$0.key]) }, mutations: mutations)
        var changed: [DocumentKey: Document?] = [:]
        for key in keys {
            var document: Document? = before[key]
            batch.applyToLocalDocument(&document, for: key)
            if let document, document.exists, let problem = DocumentValidation.sizeProblem(
                DocumentValidation.storageSize(of: document.data, key: key), key: key)
            {
                throw LocalStoreError(.invalidArgument, problem)
            }
            changed.updateValue(document, forKey: key)
        }
        let user = currentUser
        do {
            try commit([MutationBatchEvent.added(batch, user: user)]) { written in
                mutationQueue.append(QueuedBatch(batchID: batch.batchID, user: user, reference: written[0].reference, batch: batch))
                events.groupCommit?.noteBatch(batch.batchID, sequence: written[0].sequence)
                collector.noteDocumentsPinned(keys)
                refreshOverlays(after: keys)
            }
        } catch let error as LocalStoreError where error.storage?.code == .invalidArgument {
            throw LocalStoreError(
                .invalidArgument,
                "This write batch is too large to store (\(error.message)). Firestore accepts at most 10 MiB per "
                    + "commit: split the batch into smaller ones.")
        }
        return (batch.batchID, changed)
    }

    /// Firebase's limits and the model's preconditions, as errors instead of crashes.
    static func validate(_ mutations: [Mutation]) throws {
        guard mutations.count <= 500 else {
            throw LocalStoreError(.invalidArgument, "a write batch holds at most 500 writes, not \(mutations.count); split it")
        }
        for mutation in mutations {
            if case .verify = mutation.kind {
                throw LocalStoreError(.invalidArgument, "a verify mutation is only valid inside a transaction, which runs online")
            }
            for transform in mutation.fieldTransforms {
                guard !transform.field.segments.isEmpty else {
                    throw LocalStoreError(.invalidArgument, "a field transform on \(mutation.key) names an empty field path")
                }
                if case .increment(let operand) = transform.operation, !operand.isNumber {
                    throw LocalStoreError(
                        .invalidArgument,
                        "FieldValue.increment() needs a number, not \(operand.canonicalString) (field \(transform.field.canonicalString) of \(mutation.key))")
                }
            }
            if let mask = mutation.fieldMask, mask.fields.contains(where: { $0.segments.isEmpty }) {
                throw LocalStoreError(.invalidArgument, "a write to \(mutation.key) names an empty field path in its field mask")
            }
        }
    }

    /// Records the server's acknowledgement of a batch of the current user, in one atomic append: the documents
    /// the write produced (applied to the cached server copies that are older than the write, at the commit
    /// version, with `hasCommittedMutations`) and the batch's removal. Returns the new local views of the
    /// batch's documents. The write pipeline acknowledges batches in order; any pending batch is accepted.
    ///
    /// ```swift
    /// let ack = try MutationBatchResult(batch: batch, commitVersion: t, mutationResults: [MutationResult(version: t)])
    /// let changed = try store.acknowledgeBatch(ack)
    /// ```
    ///
    /// - Throws: `invalidArgument` when the batch is not pending for the current user, or differs from the
    ///   stored batch with that id.
    @discardableResult
    package func acknowledgeBatch(_ result: MutationBatchResult) throws -> [DocumentKey: Document?] {
        try checkOpen()
        try prepareOverlays()
        let batch = result.batch
        guard try pendingBatch(batch.batchID) == batch else {
            throw LocalStoreError(
                .invalidArgument,
                "batch \(batch.batchID) is not pending for user \"\(currentUser)\" (already removed, another user's, or "
                    + "different from the stored batch); acknowledge the batch that nextMutationBatch returned")
        }
        var documents: [Document] = []
        for key in batch.keys {
            var document = try localDocuments.remoteDocument(key)
            // Firebase's ApplyWriteToRemoteDocuments: a copy at the write's version or newer already has it.
            guard let ackVersion = result.documentVersions[key], (document?.version ?? Self.noVersion) < ackVersion else { continue }
            batch.applyToRemoteDocument(&document, for: key, batchResult: result)
            guard var document else { continue }
            document.readTime = result.commitVersion
            documents.append(document)
        }
        let removal = MutationBatchEvent.removed(batch.batchID, .acknowledged(commitVersion: result.commitVersion))
        try commit(documents.map(RemoteDocumentEvent.encode) + [removal]) { written in
            noteRemoteDocuments(documents, written: Array(written.dropLast()))
            applyRemoval(of: batch, removal: written.last!)
        }
        return try viewsAfterRemoval(of: batch)
    }

    /// Records the server's rejection of a batch of the current user in one append: its writes are rolled back.
    /// Returns the new local views of the batch's documents.
    ///
    /// ```swift
    /// let changed = try store.rejectBatch(batchID)   // the documents as if the batch had never been written
    /// ```
    ///
    /// - Throws: `invalidArgument` when the batch is not pending for the current user.
    @discardableResult
    package func rejectBatch(_ batchID: Int) throws -> [DocumentKey: Document?] {
        try checkOpen()
        try prepareOverlays()
        guard let batch = try pendingBatch(batchID) else {
            throw LocalStoreError(
                .invalidArgument, "batch \(batchID) is not pending for user \"\(currentUser)\"; reject a batch of pendingBatchIDs")
        }
        try commit([MutationBatchEvent.removed(batchID, .rejected)]) { written in applyRemoval(of: batch, removal: written[0]) }
        return try viewsAfterRemoval(of: batch)
    }

    /// The current user's first pending batch with an id above `batchID` (the first of all when `nil`): what
    /// the write pipeline sends next (`GetNextMutationBatchAfterBatchId`).
    ///
    /// ```swift
    /// var last: Int? = nil
    /// while let batch = try store.nextMutationBatch(after: last) { send(batch); last = batch.batchID }
    /// ```
    package func nextMutationBatch(after batchID: Int?) throws -> MutationBatch? {
        try checkOpen()
        guard let next = mutationQueue.queue(of: currentUser).first(where: { $0.batchID > (batchID ?? Int.min) }) else {
            return nil
        }
        return try pendingBatch(next.batchID)
    }

    /// The current user's pending batch `batchID`, decoded (and kept decoded), or nil when it is not pending.
    func pendingBatch(_ batchID: Int) throws -> MutationBatch? {
        guard let (index, entry) = mutationQueue.find(batchID, of: currentUser) else { return nil }
        if let batch = entry.batch { return batch }
        let (stored, batch) = try events.withValue(of: entry.reference) {
            try MutationBatchEvent.decodeAdded($0, batchID: entry.batchID)
        }
        guard stored == currentUser else {
            throw LocalStoreError.dataLoss("batch \(entry.batchID) belongs to user \"\(stored)\" in the log but was replayed for \"\(currentUser)\"")
        }
        mutationQueue.cache(batch, at: index, of: currentUser)
        return batch
    }

    /// The ids of the current user's pending batches, ascending.
    package var pendingBatchIDs: [Int] { mutationQueue.queue(of: currentUser).map(\.batchID) }

    /// The id of the current user's last pending batch, or nil when the outbox is empty
    /// (`GetHighestUnacknowledgedBatchId`).
    package var highestUnacknowledgedBatchID: Int? { mutationQueue.queue(of: currentUser).last?.batchID }

    /// The version of a document the cache knows nothing about: older than every write.
    static let noVersion = Timestamp(seconds: 0, nanoseconds: 0)

    /// Drops an acknowledged or rejected batch from the view and recomputes the overlays it touched (marks them
    /// stale when that fails: the append is durable already).
    ///
    /// Retirement, the simple rule for now: the batch's `added` event is retired, and its `removed` event is
    /// never retired in persistent mode, because a removal must outlive what it removed (Docs/LocalStore.md §4),
    /// or replay would bring the batch back. Refined with the compaction work: retire a removal once the segment
    /// holding its `added` event is compacted away. In memory mode nothing is replayed, so the removal is dead at
    /// once.
    ///
    /// The batch's documents that nothing else references become orphans at the removal's sequence number.
    private func applyRemoval(of batch: MutationBatch, removal: (reference: EventReference, sequence: UInt64)) {
        if let removed = mutationQueue.remove(batch.batchID, of: currentUser) { events.retire(removed.reference) }
        events.removalApplied(removal.reference)
        collector.noteReleased(batch.keys, sequence: removal.sequence)
        refreshOverlays(after: batch.keys)
    }

    /// The new local views of a removed batch's documents; then, in eager memory mode, the documents nothing
    /// references any more leave the cache (after the views were computed, as Firebase removes them when the
    /// acknowledgement's transaction commits).
    private func viewsAfterRemoval(of batch: MutationBatch) throws -> [DocumentKey: Document?] {
        try prepareOverlays()
        let views = try localViews(batch.keys)
        try collectEagerly()
        return views
    }

    /// The pending batches of `user`, in order, decoding (and keeping) those not decoded yet.
    func pendingBatches(of user: String) throws -> [MutationBatch] {
        var batches: [MutationBatch] = []
        for (index, entry) in mutationQueue.queue(of: user).enumerated() {
            if let batch = entry.batch {
                batches.append(batch)
                continue
            }
            let (stored, batch) = try events.withValue(of: entry.reference) {
                try MutationBatchEvent.decodeAdded($0, batchID: entry.batchID)
            }
            guard stored == user else {
                throw LocalStoreError.dataLoss("batch \(entry.batchID) belongs to user \"\(stored)\" in the log but was replayed for \"\(user)\"")
            }
            mutationQueue.cache(batch, at: index, of: user)
            batches.append(batch)
        }
        return batches
    }

    /// The documents that a pending batch of any user writes (decoding batches not decoded yet).
    func keysUnderPendingWrites() throws -> Set<DocumentKey> {
        var keys = Set<DocumentKey>()
        for user in mutationQueue.usersWithPendingBatches {
            for batch in try pendingBatches(of: user) { keys.formUnion(batch.keys) }
        }
        return keys
    }
}
