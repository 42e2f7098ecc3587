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
        try compact(minimumDeadRatio: minimumDeadRatio, stepBudget: stepBudget, inputBudget: nil)
    }

    /// ``compact(minimumDeadRatio:stepBudget:)`` bounded by `inputBudget` when given (see
    /// ``startCompaction(_:minimumDeadRatio:inputBudget:)``). A compaction that garbage collection left in
    /// progress is finished first.
    func compact(minimumDeadRatio: Double, stepBudget: Int, inputBudget: UInt64?) throws -> CompactionSummary? {
        try checkOpen()
        guard let log = events.log else { return nil }
        while let pending = compactionCoordinator.inProgress { _ = try advance(pending, log, budget: stepBudget) }
        guard let compaction = try startCompaction(log, minimumDeadRatio: minimumDeadRatio, inputBudget: inputBudget) else {
            return nil
        }
        while true {
            if let summary = try advance(compaction, log, budget: stepBudget) { return summary }
        }
    }

    /// Does about `budget` bytes of the compaction in progress, starting one (bounded by one segment's worth
    /// of bytes) when none is; returns false when there was nothing dirty enough to compact. The compaction
    /// stays in progress across calls, so that garbage-collection rounds share its work: the views and the
    /// other events keep using the inputs until the step that publishes the outputs.
    func compactStep(minimumDeadRatio: Double, budget: Int) throws -> Bool {
        guard let log = events.log else { return false }
        let compaction: Compaction
        if let pending = compactionCoordinator.inProgress {
            compaction = pending
        } else {
            let segment = UInt64(log.configuration.segmentTargetSize)
            guard let started = try startCompaction(log, minimumDeadRatio: minimumDeadRatio, inputBudget: segment) else {
                return false
            }
            compaction = started
        }
        _ = try advance(compaction, log, budget: budget)
        return true
    }

    /// Starts compacting the sealed segments with at least `minimumDeadRatio` dead; nil when there are none.
    /// With `inputBudget`, only the dirtiest candidates whose file bytes add up to at most the budget (the
    /// dirtiest one at least) are rewritten, into output segments of at most the budget, so that the next
    /// bounded compaction finds pieces that fit too.
    private func startCompaction(_ log: SegmentLog, minimumDeadRatio: Double, inputBudget: UInt64?) throws -> Compaction? {
        var victims = log.compactionCandidates(minimumDeadRatio: minimumDeadRatio)
        guard !victims.isEmpty else { return nil }
        if let inputBudget {
            let sizes = Dictionary(uniqueKeysWithValues: log.statistics.segments.map { ($0.id, $0.fileBytes) })
            var chosen: [UInt32] = []
            var total: UInt64 = 0
            for id in victims {
                let size = sizes[id] ?? 0
                if !chosen.isEmpty && total + size > inputBudget { continue }
                chosen.append(id)
                total += size
            }
            victims = chosen
        }
        do {
            return try log.makeCompaction(of: victims, outputSegmentSize: inputBudget.map { Int($0) }) { _ in true }
        } catch {
            throw LocalStoreError.wrap(error)
        }
    }

    /// One step of `compaction`, kept as the one in progress until it publishes; then the views follow the
    /// moved events and the summary is returned. Removals appended between steps may shadow records the
    /// step copied, so the outputs' ids count as seen (``RemovalRecords``) as soon as they are taken.
    private func advance(_ compaction: Compaction, _ log: SegmentLog, budget: Int) throws -> CompactionSummary? {
        compactionCoordinator.inProgress = compaction
        do {
            let summary = try compaction.step(budget: budget)
            if let highest = compaction.outputIDs.max() { compactionCoordinator.removals.see(segment: highest) }
            guard let summary else { return nil }
            compactionCoordinator.inProgress = nil
            try relocate(summary.relocations)
            retireObsoleteRemovals(log)
            return summary
        } catch {
            compactionCoordinator.inProgress = nil
            // Outputs may exist whose records were not seen: removals written from now on must count them.
            compactionCoordinator.removals.see(segment: log.statistics.segments.map(\.id).max() ?? 0)
            throw LocalStoreError.wrap(error)
        }
    }

    /// Points every view at the new places of the events compaction moved: each move goes to the component
    /// that owns its kind (``ComponentRegistry``). The inputs are gone already, so every move is applied even
    /// when one fails; the first failure is reported afterwards.
    private func relocate(_ moves: [Relocation]) throws {
        var firstFailure: (any Error)?
        var context = RelocationContext(removals: compactionCoordinator.removals)
        // The context holds the only reference while it runs, so the removals are updated in place.
        compactionCoordinator.removals = RemovalRecords()
        defer { compactionCoordinator.removals = context.removals }
        for move in moves {
            context.removals.see(segment: move.to.segment)
            guard let kind = EventKind(rawValue: move.kind), let owner = registry.owner(of: kind) else { continue }
            do {
                try move.key.withUnsafeBytes { try owner.relocate(move, kind: kind, key: $0, context: &context) }
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
    }
}

extension LocalStore {
    /// Retires the removal records that no longer shadow anything (``RemovalRecords``): after a compaction, once
    /// every segment that existed when they were written is gone. Compaction drops them like any retired record.
    func retireObsoleteRemovals(_ log: SegmentLog) {
        let segments = log.statistics.segments.map(\.id)
        compactionCoordinator.removals.see(segment: segments.max() ?? 0)
        guard let oldest = segments.min() else { return }
        for location in compactionCoordinator.removals.retirable(oldestSegment: oldest) { log.retire(location) }
    }

    /// The eviction and target-removal records still live (tests and diagnostics).
    package var liveRemovalRecordCount: Int { compactionCoordinator.removals.count }
}

