/// The one write path of the cache: commit, then apply.
extension LocalStore {
    /// Appends `encoded` as one atomic batch, then lets `apply` bring the views up to date with where each
    /// event went and its sequence number. Once the append returns the events are in the log (durable, or
    /// with group commit on their way there: a crash may then lose a suffix of the appends, never part of one,
    /// §10), so nothing below may throw: `apply` cannot (a failure there would make the caller retry, or give up, a change that
    /// happened). Work that may fail after a commit only marks state stale for the next read to rebuild
    /// (overlays), or is a read whose failure the caller may report without undoing anything.
    ///
    /// ```swift
    /// let sequences = try commit(changes.map(\.encoded)) { written in
    ///     for (change, (reference, sequence)) in zip(changes, written) { applyTargetEvent(change, reference: reference, sequence: sequence) }
    ///     return written.map(\.sequence)
    /// }
    /// ```
    @discardableResult
    func commit<T>(
        _ encoded: [EncodedEvent], then apply: ([(reference: EventReference, sequence: UInt64)]) -> T
    ) throws -> T {
        let written = try events.append(encoded)
        return apply(written)
    }
}
