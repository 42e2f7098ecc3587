// Sealing the active segment on demand. Segments roll by themselves when they reach the target size; a log
// smaller than one segment lives entirely in its active segment, which compaction never rewrites. A caller
// that must reclaim dead bytes now (a cache's garbage collector under a size threshold) seals it first.

extension SegmentLog {
    /// Seals the active segment and starts a new one, so that compaction can rewrite what it holds. Returns the
    /// id of the sealed segment, or nil when the active segment holds no record (nothing to seal).
    ///
    /// The sealed segment is cut to its data and synced, and the manifest names the new active segment, as when
    /// a segment fills up. A failure leaves the log as it was, except a failed sync, which poisons it.
    ///
    /// ```swift
    /// if let sealed = try log.sealActiveSegment() {
    ///     let compaction = try log.makeCompaction(of: [sealed]) { _ in true }
    ///     while try compaction.step() == nil {}
    /// }
    /// ```
    ///
    /// - Throws: `.invalidArgument` on a read-only log, `.io` when the file or manifest write fails (retry later),
    ///   `.poisoned` when the sealed segment's sync fails (reopen the log) or the log was poisoned before,
    ///   `.closed` when it is closed.
    @discardableResult
    public func sealActiveSegment() throws -> UInt32? {
        guard !configuration.readOnly else { throw StorageError(.invalidArgument, "the log was opened read-only") }
        return try state.withLock { state in
            try state.checkUsable()
            guard state.active.recordCount > 0 else { return nil }
            let sealed = state.activeID
            do {
                try rollSegment(&state)
            } catch {
                throw error as? StorageError
                    ?? StorageError(.io, "sealing segment \(sealed) failed; the log is unchanged, retry later (\(error))")
            }
            return sealed
        }
    }
}
