import CairnModel

extension LocalStore {
    /// Answers `query` from the cache: the matching documents with the current user's pending writes applied,
    /// in query order and cut to its limit, and the keys of the query's target. The three paths the engine
    /// may take are described at the top of QueryEngine.swift; they give the same documents. After a scan
    /// that read many documents for few matches, automatic index creation (when on) adds the indexes the
    /// engine names.
    ///
    /// ```swift
    /// let result = try store.executeQuery(query, usePreviousResults: true)
    /// for document in result.documents { print(document.key, document.hasLocalMutations) }
    /// ```
    package func executeQuery(_ query: Query, usePreviousResults: Bool) throws -> LocalQueryResult {
        try checkOpen()
        try prepareOverlays()
        let target = targetData(for: query)
        let remoteKeys = target.map { self.remoteKeys(forTarget: $0.targetID) } ?? []
        var (documents, report) = try queryEngine.run(
            query, previousResultsOf: usePreviousResults ? target : nil, remoteKeys: remoteKeys)
        // Creating an index only speeds up later queries: if its append fails, this answer still stands and
        // nothing changed (the view follows the log only after a successful append).
        if report.path == .scan {
            let created = queryEngine.indexesWorthCreating(query, report)
            if !created.isEmpty, (try? saveIndexConfiguration(fieldIndexView.indexes + created, autoCreationEnabled: true)) != nil {
                report.createdIndexes = created
            }
        }
        lastQueryReport = report
        return LocalQueryResult(documents: documents, remoteKeys: remoteKeys)
    }
}
