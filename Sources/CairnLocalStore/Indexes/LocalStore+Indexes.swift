import CairnModel

/// Client-side field indexes (Firebase's `IndexManager` and `IndexBackfiller`; semantics notes §4): the
/// configuration (`setIndexConfiguration`, automatic creation, `deleteAllIndexes`) is one event in the log;
/// the entries live in memory, are rebuilt by a bounded backfill after open, and follow every remote document
/// change. The query engine (QueryEngine/QueryEngine.swift) uses an index once its backfill is done.
///
/// ```swift
/// try store.setIndexConfiguration(json: """
///     {"indexes": [{"collectionGroup": "posts", "queryScope": "COLLECTION",
///                   "fields": [{"fieldPath": "author", "order": "ASCENDING"}]}]}
///     """)
/// while try store.backfillIndexes(maxDocuments: 50) > 0 {}   // the core calls it on a timer
/// let result = try store.executeQuery(postsByAda, usePreviousResults: false)
/// ```
extension LocalStore {
    /// The configured and automatically created field indexes, in the order they were added.
    package var fieldIndexes: [FieldIndex] { fieldIndexView.indexes }

    /// Each field index with its entry count and backfill progress (for inspection tools).
    package var fieldIndexStatuses: [FieldIndexStatus] { fieldIndexView.statuses(in: { remoteDocuments.collections[$0] }) }

    /// Whether queries that scan many documents for few results create an index (off by default).
    package var isIndexAutoCreationEnabled: Bool { fieldIndexView.autoCreationEnabled }

    /// Replaces the field-index configuration with the indexes of `json`, the `firestore:indexes` JSON of the
    /// Firebase CLI (see `IndexConfiguration` in CairnModel for what is read). Indexes no longer listed are
    /// dropped, automatically created ones included (as Firebase's `ConfigureFieldIndexes` does); new ones
    /// are backfilled by ``backfillIndexes(maxDocuments:)`` and serve queries once it is done. Persisted: the
    /// configuration is back after a restart.
    ///
    /// ```swift
    /// try store.setIndexConfiguration(json: #"{"indexes": [], "fieldOverrides": []}"#)   // no index
    /// ```
    ///
    /// - Throws: `invalidArgument` naming the problem for malformed JSON, such as
    ///   `indexes[0].fields[1]: 'order' must be ASCENDING or DESCENDING, not 'UP'`.
    package func setIndexConfiguration(json: String) throws {
        try checkOpen()
        let indexes: [FieldIndex]
        do {
            indexes = try IndexConfiguration.parse(json)
        } catch {
            throw LocalStoreError(.invalidArgument, "the index configuration is rejected: \(error.message)")
        }
        try saveIndexConfiguration(indexes, autoCreationEnabled: fieldIndexView.autoCreationEnabled)
    }

    /// Turns automatic index creation on or off (Firebase's `PersistentCacheIndexManager`
    /// `enableIndexAutoCreation` / `disableIndexAutoCreation`). Indexes created so far keep serving queries
    /// either way. Persisted.
    ///
    /// ```swift
    /// try store.setIndexAutoCreationEnabled(true)
    /// ```
    package func setIndexAutoCreationEnabled(_ enabled: Bool) throws {
        try checkOpen()
        guard enabled != fieldIndexView.autoCreationEnabled else { return }
        try saveIndexConfiguration(fieldIndexView.indexes, autoCreationEnabled: enabled)
    }

    /// Deletes every field index, configured or created automatically (Firebase's `deleteAllIndexes`).
    /// Persisted; the auto-creation switch stays as it is.
    ///
    /// ```swift
    /// try store.deleteAllFieldIndexes()
    /// store.fieldIndexes.isEmpty   // true, also after a restart
    /// ```
    package func deleteAllFieldIndexes() throws {
        try checkOpen()
        guard !fieldIndexView.indexes.isEmpty else { return }
        try saveIndexConfiguration([], autoCreationEnabled: fieldIndexView.autoCreationEnabled)
    }

    /// Indexes at most `maxDocuments` documents for indexes that are not caught up yet (Firebase's
    /// `IndexBackfiller`, 50 documents per run), each document once for all the indexes of its collection
    /// group added together; returns how many it processed, 0 when every index is ready. With a `deadline`
    /// the run also stops once it has passed, and it stops as soon as `yield` returns true (each checked after
    /// a document, so a run indexes at least one), so that a caller on a shared queue holds it for a bounded
    /// time and lets waiting work in after one document.
    /// An index serves queries once its backfill is done. After a restart the backfill starts again: entries
    /// are rebuilt from the documents, never read from the log.
    ///
    /// ```swift
    /// let processed = try store.backfillIndexes(maxDocuments: 50)
    /// let sliced = try store.backfillIndexes(maxDocuments: 1_000, deadline: .now + .milliseconds(2)) {
    ///     queue.hasWaitingOperations
    /// }
    /// ```
    ///
    /// - Throws: `dataLoss` when a document cannot be decoded (the document stays queued).
    @discardableResult
    package func backfillIndexes(
        maxDocuments: Int, deadline: ContinuousClock.Instant? = nil, yield: () -> Bool = { false }
    ) throws -> Int {
        try checkOpen()
        var processed = 0
        while processed < maxDocuments,
            processed == 0 || (deadline.map({ ContinuousClock.now < $0 }) ?? true) && !yield(),
            let (job, key) = fieldIndexView.nextToBackfill(in: { remoteDocuments.collections[$0] })
        {
            var document: Document?
            if let entry = remoteDocuments.entry(for: key), entry.state == .found {
                document = try localDocuments.document(key, entry)
            }
            fieldIndexView.backfill(job: job, key, document)
            processed += 1
        }
        return processed
    }

    /// Appends the configuration event and applies it to the view.
    func saveIndexConfiguration(_ indexes: [FieldIndex], autoCreationEnabled: Bool) throws {
        let event = IndexConfigurationEvent(indexes: indexes, autoCreationEnabled: autoCreationEnabled)
        try commit([event.encoded]) { written in
            if let previous = fieldIndexView.configurationRecord { events.retire(previous.reference) }
            fieldIndexView.configurationRecord = written[0]
            indexManager.apply(event)
        }
    }
}
