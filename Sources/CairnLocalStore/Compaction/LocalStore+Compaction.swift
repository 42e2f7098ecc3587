import CairnModel
import SegmentLog

extension LocalStore {
    /// Compacts the cache's log so superseded events stop taking space: sealed segments whose dead share of
    /// record bytes is at least `minimumDeadRatio` are rewritten without the events the views retired, in steps
    /// of about `stepBudget` bytes, and the views follow the events that moved. Returns what was done, or nil
    /// when nothing was dirty enough (or the cache lives in memory).
    ///
    /// Liveness is exactly "not retired": every view retires the events it supersedes. Batch removals are never
    /// retired; evictions and target removals retire once no segment that existed when they were written is
    /// left (`RemovalRecords`), so nothing they removed can come back.
    ///
    /// ```swift
    /// if let summary = try store.compact() { print(summary.bytesBefore, "→", summary.bytesAfter) }
    /// ```
    @discardableResult
    package func compact(minimumDeadRatio: Double = 0.5, stepBudget: Int = 4 << 20) throws -> CompactionSummary? {
        try checkOpen()
        guard let log = events.log else { return nil }
        return try compactionCoordinator.compact(log, minimumDeadRatio: minimumDeadRatio, stepBudget: stepBudget)
    }

    /// ``CompactionCoordinator/step(_:minimumDeadRatio:budget:waitForPublication:)`` on the cache's log; false
    /// in memory mode.
    func compactStep(minimumDeadRatio: Double, budget: Int, waitForPublication: Bool) throws -> Bool {
        guard let log = events.log else { return false }
        return try compactionCoordinator.step(
            log, minimumDeadRatio: minimumDeadRatio, budget: budget, waitForPublication: waitForPublication)
    }

    /// The eviction and target-removal records still live (tests and diagnostics).
    package var liveRemovalRecordCount: Int { compactionCoordinator.removals.count }
}

