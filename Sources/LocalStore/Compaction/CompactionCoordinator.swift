import SegmentLog

/// The compaction coordinator: owns what compaction needs across calls in a persistent cache — the live
/// removal records and when each may retire (``RemovalRecords``), and the compaction garbage collection started
/// and has not finished (each round advances it by a bounded number of bytes). The operations are in
/// `LocalStore+Compaction.swift`; a memory cache leaves it empty.
///
/// ```swift
/// store.compactionCoordinator.removals.track(location)     // a removal just appended
/// store.compactionCoordinator.inProgress != nil  // a bounded compaction waits for its next step
/// ```
final class CompactionCoordinator {
    /// The live eviction and target-removal records.
    var removals = RemovalRecords()
    /// The compaction started by garbage collection and not yet published.
    var inProgress: Compaction?
}
