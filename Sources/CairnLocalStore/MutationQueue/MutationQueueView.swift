import CairnModel

/// One batch in the outbox: its id, the user who wrote it, and where its `mutationBatchAdded` event lives.
struct QueuedBatch {
    let batchID: Int
    let user: String
    /// The batch's `mutationBatchAdded` event, retired when the batch leaves the outbox (moved by compaction).
    var reference: EventReference
    /// The decoded batch, once something needed it. Replay leaves it `nil`: it reads only the event's header.
    var batch: MutationBatch?
}

/// The outbox and the overlays (Docs/LocalStore.md §3): per user, the batches whose `mutationBatchAdded` has no
/// `mutationBatchRemoved`, in batch-id order; and, for the current user, one ``Overlay`` per document that the
/// pending batches change.
///
/// Batch ids only grow and are never reused, across users and restarts: ``nextBatchID`` is one more than the
/// highest id any event ever named, and replay sees the removals too. So each user's queue is a suffix of the
/// batches ever added, and a new batch always goes at the end.
///
/// Overlays are derived, never stored. They are stale after open and after a user switch (``overlaysAreCurrent``
/// is false) and the store rebuilds them before their next use, from the remote documents and the pending
/// batches; afterwards it recomputes the touched keys on every write, acknowledgement and rejection.
///
/// ```swift
/// var view = MutationQueueView()
/// view.append(QueuedBatch(batchID: view.nextBatchID!, user: "", reference: ref, batch: batch))
/// view.queue(of: "").map(\.batchID)   // [1]
/// ```
struct MutationQueueView {
    /// The user whose batches the overlays apply; the empty string is the unauthenticated user.
    private(set) var currentUser = ""
    /// User → pending batches, ascending by id. Users with an empty queue have no entry.
    private var queues: [String: [QueuedBatch]] = [:]
    /// Pending batch id → its user.
    private var owners: [Int: String] = [:]
    /// The highest batch id any event named (0 when none did).
    private(set) var highestBatchID = 0
    /// The current user's overlays, valid when ``overlaysAreCurrent``.
    var overlays: [DocumentKey: Overlay] = [:]
    /// The current user's pending batches that touch each document, in batch order, valid when
    /// ``overlaysAreCurrent`` (Firebase's `document_mutations` index): recomputing a document's overlay reads
    /// only its own batches, not the whole outbox.
    private(set) var batchesTouching: [DocumentKey: [MutationBatch]] = [:]
    private(set) var overlaysAreCurrent = false
    /// Batches whose removal replay has seen. Compaction may move a removal before its addition in log order,
    /// so replay must remember removals until it ends; the first rebuild of the overlays (which happens after
    /// replay) drops them.
    private var replayedRemovals: Set<Int> = []

    /// The id the next batch gets; nil when the log already names `Int.max` (only a damaged log does).
    var nextBatchID: Int? { highestBatchID == Int.max ? nil : highestBatchID + 1 }

    /// A user's pending batches, ascending by id.
    func queue(of user: String) -> [QueuedBatch] { queues[user] ?? [] }

    /// The users with pending batches.
    var usersWithPendingBatches: [String] { Array(queues.keys) }

    /// The pending batch `batchID` of `user`, with its position in the user's queue.
    func find(_ batchID: Int, of user: String) -> (index: Int, entry: QueuedBatch)? {
        guard let queue = queues[user], let index = queue.firstIndex(where: { $0.batchID == batchID }) else { return nil }
        return (index, queue[index])
    }

    /// Points the pending batch `batchID` at its record's new place after compaction moved it from `from`.
    mutating func relocate(_ batchID: Int, from: EventReference, to: EventReference) {
        guard let user = owners[batchID], let index = queues[user]?.firstIndex(where: { $0.batchID == batchID }),
            queues[user]![index].reference == from
        else { return }
        queues[user]![index].reference = to
    }

    // MARK: Replay

    /// Records a `mutationBatchAdded` event seen by replay. Returns the event's reference when the batch was
    /// already removed (its removal came first in log order), so the caller retires it.
    mutating func replayAdded(_ entry: QueuedBatch) throws -> EventReference? {
        highestBatchID = max(highestBatchID, entry.batchID)
        if replayedRemovals.contains(entry.batchID) { return entry.reference }
        guard owners.updateValue(entry.user, forKey: entry.batchID) == nil else {
            throw LocalStoreError.dataLoss("the log adds batch \(entry.batchID) to the outbox twice; it is damaged")
        }
        // Log order is batch order except where compaction moved records: insert from the end.
        let index = queue(of: entry.user).lastIndex { $0.batchID < entry.batchID }.map { $0 + 1 } ?? 0
        queues[entry.user, default: []].insert(entry, at: index)
        return nil
    }

    /// Records a `mutationBatchRemoved` event seen by replay; returns the removed batch, whose `added` event the
    /// caller retires, or nil when replay has not seen the addition (yet, or ever: compaction dropped it).
    mutating func replayRemoved(_ batchID: Int) -> QueuedBatch? {
        highestBatchID = max(highestBatchID, batchID)
        replayedRemovals.insert(batchID)
        guard let user = owners[batchID] else { return nil }
        return remove(batchID, of: user)
    }

    // MARK: Changes

    /// Adds a new batch at the end of its user's queue.
    ///
    /// - Precondition: `entry.batchID` is ``nextBatchID``.
    mutating func append(_ entry: QueuedBatch) {
        precondition(entry.batchID == nextBatchID, "batch \(entry.batchID) added when the next id is \(nextBatchID.map(String.init) ?? "none")")
        highestBatchID = entry.batchID
        owners[entry.batchID] = entry.user
        queues[entry.user, default: []].append(entry)
        if overlaysAreCurrent, entry.user == currentUser, let batch = entry.batch {
            for key in batch.keys { batchesTouching[key, default: []].append(batch) }
        }
    }

    /// Removes a pending batch of `user`; returns it, or nil when it is not pending.
    mutating func remove(_ batchID: Int, of user: String) -> QueuedBatch? {
        guard let (index, entry) = find(batchID, of: user) else { return nil }
        owners[batchID] = nil
        queues[user]!.remove(at: index)
        if queues[user]!.isEmpty { queues[user] = nil }
        if user == currentUser, let batch = entry.batch {
            for key in batch.keys {
                batchesTouching[key]?.removeAll { $0.batchID == batchID }
                if batchesTouching[key]?.isEmpty == true { batchesTouching[key] = nil }
            }
        }
        return entry
    }

    /// Keeps the decoded form of the batch at `index` of `user`'s queue.
    mutating func cache(_ batch: MutationBatch, at index: Int, of user: String) {
        queues[user]![index].batch = batch
    }

    /// Makes `user` the current user; the overlays are stale until rebuilt.
    mutating func switchUser(to user: String) {
        currentUser = user
        invalidateOverlays()
    }

    /// Marks the overlays stale (after a user switch, or when recomputing them failed half-way).
    mutating func invalidateOverlays() {
        overlays = [:]
        batchesTouching = [:]
        overlaysAreCurrent = false
    }

    /// Installs rebuilt overlays for the current user, with the index of the batches behind them. Replay is over
    /// by then, so its memory of removals goes.
    mutating func replaceOverlays(_ rebuilt: [DocumentKey: Overlay], batchesTouching index: [DocumentKey: [MutationBatch]]) {
        overlays = rebuilt
        batchesTouching = index
        overlaysAreCurrent = true
        replayedRemovals = []
    }
}
