import CairnLogging
import SegmentLog

/// The compaction coordinator: owns what compaction needs across calls in a persistent cache — the live
/// removal records and when each may retire (``RemovalRecords``), and the compaction garbage collection started
/// and has not finished (each round advances it by a bounded number of bytes). Compaction itself runs here:
/// the views follow the records it moved through their owners (``ComponentRegistry``). The store's entry points
/// are in `LocalStore+Compaction.swift`; a memory cache leaves the coordinator empty.
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
    /// The owners of the records compaction moves.
    private let registry: ComponentRegistry

    init(registry: ComponentRegistry) {
        self.registry = registry
    }

    /// Compacts the sealed segments of `log` with at least `minimumDeadRatio` dead, in steps of about
    /// `stepBudget` bytes, after finishing the compaction garbage collection left in progress; nil when nothing
    /// was dirty enough.
    func compact(_ log: SegmentLog, minimumDeadRatio: Double, stepBudget: Int) throws -> CompactionSummary? {
        while let pending = inProgress { _ = try advance(pending, log, budget: stepBudget) }
        guard let compaction = try start(log, minimumDeadRatio: minimumDeadRatio, inputBudget: nil) else { return nil }
        while true {
            if let summary = try advance(compaction, log, budget: stepBudget) { return summary }
        }
    }

    /// Does about `budget` bytes of the compaction in progress, starting one (bounded by one segment's worth
    /// of bytes) when none is; returns false when there was nothing dirty enough to compact, or (without
    /// `waitForPublication`) when the compaction in progress waits for its publication's syncs. The compaction
    /// stays in progress across calls, so that garbage-collection rounds share its work: the views and the
    /// other events keep using the inputs until the step that switches to the outputs.
    func step(_ log: SegmentLog, minimumDeadRatio: Double, budget: Int, waitForPublication: Bool = true) throws -> Bool {
        let compaction: Compaction
        if let pending = inProgress {
            if !waitForPublication && pending.isAwaitingPublication { return false }
            compaction = pending
        } else {
            let segment = UInt64(log.configuration.segmentTargetSize)
            guard let started = try start(log, minimumDeadRatio: minimumDeadRatio, inputBudget: segment) else {
                return false
            }
            compaction = started
        }
        _ = try advance(compaction, log, budget: budget, waitForPublication: waitForPublication)
        return true
    }

    /// Starts compacting the sealed segments with at least `minimumDeadRatio` dead; nil when there are none.
    /// With `inputBudget`, only the dirtiest candidates whose file bytes add up to at most the budget (the
    /// dirtiest one at least) are rewritten, into output segments of at most the budget, so that the next
    /// bounded compaction finds pieces that fit too.
    private func start(_ log: SegmentLog, minimumDeadRatio: Double, inputBudget: UInt64?) throws -> Compaction? {
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
    private func advance(
        _ compaction: Compaction, _ log: SegmentLog, budget: Int, waitForPublication: Bool = true
    ) throws -> CompactionSummary? {
        inProgress = compaction
        do {
            let summary = try compaction.step(budget: budget, waitForPublication: waitForPublication)
            if let highest = compaction.outputIDs.max() { removals.see(segment: highest) }
            guard let summary else { return nil }
            inProgress = nil
            try relocate(summary.relocations)
            retireObsoleteRemovals(log)
            CairnLogger.firestoreLocalStore.debug(
                "compacted segment(s) \(summary.inputs.map { "\($0)" }.joined(separator: ", ")): kept "
                    + "\(summary.recordsKept) record(s), dropped \(summary.recordsDropped); \(summary.bytesBefore) bytes "
                    + "became \(summary.bytesAfter)")
            return summary
        } catch {
            inProgress = nil
            // Outputs may exist whose records were not seen: removals written from now on must count them.
            removals.see(segment: log.statistics.segments.map(\.id).max() ?? 0)
            throw LocalStoreError.wrap(error)
        }
    }

    /// Points every view at the new places of the events compaction moved: each move goes to the component
    /// that owns its kind (``ComponentRegistry``). The inputs are gone already, so every move is applied even
    /// when one fails; the first failure is reported afterwards.
    private func relocate(_ moves: [Relocation]) throws {
        var firstFailure: (any Error)?
        var context = RelocationContext(removals: removals)
        // The context holds the only reference while it runs, so the removals are updated in place.
        removals = RemovalRecords()
        defer { removals = context.removals }
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

    /// Retires the removal records that no longer shadow anything (``RemovalRecords``): after a compaction, once
    /// every segment that existed when they were written is gone. Compaction drops them like any retired record.
    private func retireObsoleteRemovals(_ log: SegmentLog) {
        let segments = log.statistics.segments.map(\.id)
        removals.see(segment: segments.max() ?? 0)
        guard let oldest = segments.min() else { return }
        for location in removals.retirable(oldestSegment: oldest) { log.retire(location) }
    }
}

