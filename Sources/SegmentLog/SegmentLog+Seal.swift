// Sealing the active segment on demand. Segments roll by themselves when they reach the target size; a log
// smaller than one segment lives entirely in its active segment, which compaction never rewrites. A caller
// that must reclaim dead bytes now (a cache's garbage collector under a size threshold) seals it first.

extension SegmentLog {
    /// Seals the active segment and starts a new one, so that compaction can rewrite what it holds. Returns the
    /// id of the sealed segment, or nil when the active segment holds no record (nothing to seal).
    ///
    /// As when a segment fills up, appends go to the new segment at once, and the log's publisher queue cuts the
    /// sealed segment to its data, syncs it and writes a manifest naming the new segment (RollPublication.swift),
    /// so this waits for no disk sync. A failure to create the new file leaves the log as it was; a failed
    /// publication poisons it.
    ///
    /// ```swift
    /// if let sealed = try log.sealActiveSegment() {
    ///     let compaction = try log.makeCompaction(of: [sealed]) { _ in true }
    ///     while try compaction.step() == nil {}
    /// }
    /// ```
    ///
    /// - Throws: `.invalidArgument` on a read-only log, `.io` when the new file cannot be created (retry later),
    ///   `.poisoned` when the log was poisoned before (a failed sync: reopen it), `.closed` when it is closed.
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
