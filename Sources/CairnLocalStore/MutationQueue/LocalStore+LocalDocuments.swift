import CairnModel

/// The local view: the cached server copies with the current user's pending writes on top (Firebase's
/// `LocalDocumentsView` over the `DocumentOverlayCache`). Each document the pending batches change has one
/// ``Overlay``, a single mutation equal to all of them; reads apply it to the server copy.
///
/// ```swift
/// try store.writeLocally([.set(key, value: ObjectValue(["n": .integer(1)]))], localWriteTime: now)
/// let mine = try store.localDocument(key)!          // {n: 1}, hasLocalMutations, version 0
/// let theirs = try store.remoteDocument(key)        // nil: the server has not seen it yet
/// let rooms = try store.executeLocalQuery(Query(path: try ResourcePath(parsing: "rooms")))
/// ```
extension LocalStore {
    /// The document as the current user sees it: the cached server copy with the pending writes applied, or
    /// `nil` when the cache knows nothing and no pending write changes it. A document written only locally
    /// exists at version 0 with `hasLocalMutations`; one deleted locally is a `noDocument` with
    /// `hasLocalMutations`, as the SDKs return it.
    ///
    /// ```swift
    /// try store.localDocument(key)?.hasLocalMutations   // true while a write to it is pending
    /// ```
    package func localDocument(_ key: DocumentKey) throws -> Document? {
        try checkOpen()
        try prepareOverlays()
        return try localView(key)
    }

    /// Answers a query from the local view: the cached documents of the query's collection (or collection
    /// group) plus every document a pending write changes there, with the pending writes applied, then
    /// matched, ordered and limited as the query says. Documents with pending writes have `hasLocalMutations`;
    /// documents deleted locally are left out. The same as
    /// ``executeQuery(_:usePreviousResults:)`` without previous results (so ready field indexes are used).
    ///
    /// ```swift
    /// let open = try store.executeLocalQuery(Query(path: try ResourcePath(parsing: "rooms"))
    ///     .filtered(by: .field(FieldFilter(FieldPath(["open"]), .equal, .boolean(true)))))
    /// ```
    package func executeLocalQuery(_ query: Query) throws -> [Document] {
        try executeQuery(query, usePreviousResults: false).documents
    }

    /// The local view of `key`; the overlays must be current.
    func localView(_ key: DocumentKey) throws -> Document? { try localDocuments.localView(key) }

    /// The local views of `keys`, `nil` where the cache knows nothing.
    func localViews(_ keys: [DocumentKey]) throws -> [DocumentKey: Document?] {
        var views: [DocumentKey: Document?] = [:]
        for key in keys { views.updateValue(try localView(key), forKey: key) }
        return views
    }

    /// Rebuilds the overlays when they are stale (after open or a user switch): groups the current user's
    /// pending batches by document and folds each document's batches, in order, into its server copy.
    func prepareOverlays() throws {
        guard !mutationQueue.overlaysAreCurrent else { return }
        var batchesByKey: [DocumentKey: [MutationBatch]] = [:]
        for batch in try pendingBatches(of: currentUser) {
            for key in batch.keys { batchesByKey[key, default: []].append(batch) }
        }
        var overlays: [DocumentKey: Overlay] = [:]
        for (key, batches) in batchesByKey {
            overlays[key] = try foldOverlay(key, batches)
        }
        mutationQueue.replaceOverlays(overlays, batchesTouching: batchesByKey)
    }

    /// Recomputes the overlays of `keys` from the current user's pending batches (after a write, an
    /// acknowledgement or a rejection). On failure the overlays are marked stale, so the next read rebuilds them.
    func recalculateOverlays(for keys: [DocumentKey]) throws {
        guard mutationQueue.overlaysAreCurrent else { return try prepareOverlays() }
        do {
            for key in keys {
                mutationQueue.overlays[key] = try foldOverlay(key, mutationQueue.batchesTouching[key] ?? [])
            }
        } catch {
            mutationQueue.invalidateOverlays()
            throw error
        }
    }

    /// The overlay of `key` after `batches` (in order): each applied to the server copy, starting from the
    /// empty mask, as `MutationBatch` describes; nil when no batch changes the document (none touches it, or
    /// every precondition failed).
    private func foldOverlay(_ key: DocumentKey, _ batches: [MutationBatch]) throws -> Overlay? {
        guard let last = batches.last else { return nil }
        var document = try localDocuments.remoteDocument(key)
        var mask: FieldMask? = FieldMask()
        for batch in batches {
            mask = batch.applyToLocalDocument(&document, for: key, mutatedFields: mask)
        }
        return Overlay.calculateOverlayMutation(for: document, mask: mask).map {
            Overlay(largestBatchID: last.batchID, mutation: $0)
        }
    }

    /// Recomputes overlays after an append that already succeeded: a failure must not make the caller think the
    /// append failed, so it only marks the overlays stale (the next read rebuilds them).
    func refreshOverlays(after keys: [DocumentKey]) {
        try? recalculateOverlays(for: keys)
    }
}
