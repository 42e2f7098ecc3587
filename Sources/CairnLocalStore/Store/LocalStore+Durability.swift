/// When appends become durable, for the client core (Docs/LocalStore.md §10). With ``CacheSyncing/withEachAppend``
/// and in memory every append counts as durable when it returns; with group commit an append returns once it is
/// in the operating system, and these say how far the syncs behind it have come.
///
/// ```swift
/// let store = try LocalStore.open(at: path, syncing: .behindAppends)
/// store.onDurabilityChange { result in queue.enqueue { fillWritePipeline() } }
/// let (batchID, _) = try store.writeLocally(mutations, localWriteTime: now)  // the snapshot can go out now
/// store.isBatchDurable(batchID)   // false until the sync behind it ended: only then is it sent
/// ```
extension LocalStore {
    /// Every event whose sequence number is lower is durable.
    package var durableSequence: UInt64 { events.groupCommit?.durableSequence ?? events.nextSequence }

    /// True when the outbox batch's `mutationBatchAdded` event is durable, so that a crash or power loss
    /// cannot lose it any more (batches replayed at open always are). Only such a batch is sent to the server.
    package func isBatchDurable(_ batchID: Int) -> Bool {
        events.groupCommit?.isDurable(batchID: batchID) ?? true
    }

    /// The failed sync that stopped group commit, if one did: the log is poisoned, every later append fails,
    /// and the batches that were not durable are never sent (reopening the cache finds them or not).
    package var durabilityFailure: LocalStoreError? { events.groupCommit?.failure }

    /// `handler` hears every sync behind the appends that ends (the sequence number below which every event is
    /// durable) and the failure that stops syncing; on the syncing thread. Nothing calls it without group commit.
    package func onDurabilityChange(_ handler: GroupCommit.Handler?) {
        events.groupCommit?.setHandler(handler)
    }

    /// Makes every append so far durable now, in this thread; tells the handler. Does nothing when each append
    /// is durable already or the cache lives in memory.
    ///
    /// - Throws: `storage` (the log's `poisoned`) when this sync or an earlier one failed.
    package func syncAppends() throws {
        try events.groupCommit?.syncNow()
    }
}
