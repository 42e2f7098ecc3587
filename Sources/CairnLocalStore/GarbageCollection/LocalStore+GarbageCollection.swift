import CairnLogging
import CairnModel
import SegmentLog

/// What one garbage collection did.
package struct GarbageCollectionResult: Sendable, Equatable {
    /// Sequence numbers collected: the targets removed plus the documents evicted (Firebase's
    /// `sequence_numbers_collected`).
    package var sequenceNumbersCollected = 0
    package var targetsRemoved = 0
    package var documentsEvicted = 0
    /// The cache's size before and after: bytes on disk (segment files) for a persistent cache, the estimated
    /// size (``LocalStore/estimatedMemoryBytes``) for a memory cache.
    package var bytesBefore: UInt64 = 0
    package var bytesAfter: UInt64 = 0
    /// Collection rounds run (each collects at most 10% / 1,000 sequence numbers, then compacts).
    package var rounds = 0
    /// Index entries read to choose what to collect (live and stale): bounded by the rounds' sizes, never by
    /// the number of cached documents (the removed targets' members count too).
    package var entriesExamined = 0
}

extension LocalStore {
    /// `cacheSizeBytes` value that turns garbage collection off (Firebase's `FirestoreCacheSizeUnlimited`).
    package static let cacheSizeUnlimited: Int64 = -1

    /// The most sequence numbers one round collects, and the share of the candidates it takes (Firebase's
    /// `LruParams::Default()`: 10%, at most 1,000).
    static let collectionPercentile = 10
    static let maximumSequenceNumbersPerRound = 1000
    /// The dead share of a segment's records above which collection compacts it (sealing the active segment).
    static let minimumDeadRatioToCompact = 0.01
    /// The dead share above which a round compacts a segment while documents are still being evicted. LRU
    /// evicts the oldest records first, so old segments empty out round after round: waiting until half of one
    /// is dead halves what its compaction copies, and a round that copies little stalls little.
    static let deadRatioToCompactWhileEvicting = 0.5
    /// The pieces a compaction of one segment is cut into: each step reads (and copies the live part of) at
    /// most a segment's worth of bytes divided by this, and a round makes at most this many steps, so that it
    /// compacts at most one segment's worth of bytes.
    static let compactionStepsPerSegment = 8
    /// The documents and targets one append of a round removes: a round takes its n in slices of this size,
    /// and stops taking more once its time budget for evictions is spent.
    static let evictionSliceSize = 250
    /// The time a round of the client's scheduled collection works before it returns (issue 17: a listener
    /// queued behind garbage collection waits for one round): evictions stop after half of it, compaction steps
    /// after all of it. Whatever the budget, a round evicts one slice and makes one compaction step, so rounds
    /// always progress; the last slice and the last step may run past it. A compaction's publication syncs on the
    /// log's publisher queue meanwhile, and a later round switches to its outputs.
    package static let defaultRoundBudget: Duration = .milliseconds(8)

    /// Brings the cache's size under `threshold` (Firebase's LRU garbage collector, Docs/LocalStore.md §5): the
    /// bytes on disk of a persistent cache, the estimated size of a memory cache in LRU mode. Each round reads
    /// the n lowest entries of the in-memory index of inactive targets and orphaned documents ordered by
    /// sequence number — n = 10% of their number, at least 1, at most 1,000 — in slices of
    /// ``evictionSliceSize``: each slice removes its targets in one append and evicts its documents in another,
    /// with the removed targets' documents that are now orphans no younger than the slice's last entry. Then
    /// (persistent) it compacts in steps of a segment's worth of bytes / ``compactionStepsPerSegment``, sealing
    /// the active segment first when it holds dead records, since a cache smaller than one segment lives
    /// entirely in it. `roundBudget` bounds a round's time: no slice starts after half of it, no step after all
    /// of it (one slice and one step at least); nil lifts the time bound, leaving n evictions and one segment's
    /// worth of compaction per round. `yield` returning true ends a round as a spent budget does (the client
    /// passes whether another operation waits for its queue, so a listener waits for one slice and one step,
    /// not the whole budget). Rounds stop when the size is under the threshold, after `maxRounds`, or
    /// when nothing is left to collect. The work of a round is bounded by n, the removed targets' members, the
    /// index entries made stale since the last run and one segment's worth of compaction (the log's
    /// `segmentTargetSize`) — never by the number of cached documents. When nothing is left to evict, the dirty
    /// segments are compacted piece by piece while over the threshold, within the same bounds.
    ///
    /// Never collected: active targets; documents in any target but a removed one; documents under a pending
    /// write of any user; documents a local view shows (``notifyLocalViewChanges(targetID:added:removed:)``).
    /// `cacheSizeUnlimited` and an eager memory cache do nothing.
    ///
    /// ```swift
    /// let result = try store.collectGarbage(threshold: 100 << 20)
    /// print(result.documentsEvicted, result.bytesBefore, "→", result.bytesAfter)
    /// ```
    @discardableResult
    package func collectGarbage(
        threshold: Int64, maxRounds: Int = 64, roundBudget: Duration? = nil, yield: () -> Bool = { false }
    ) throws -> GarbageCollectionResult {
        try checkOpen()
        var result = GarbageCollectionResult()
        guard threshold != Self.cacheSizeUnlimited, let before = collectableSize() else { return result }
        let limit = UInt64(max(threshold, 0))
        result.bytesBefore = before
        let clock = ContinuousClock()
        // The first round's time counts from here: its leading step is part of its stall.
        var start = clock.now
        // Segments already half dead (superseded events, earlier evictions) may be all that is over the threshold.
        let waits = roundBudget == nil
        try compactPiece(sealingActiveAbove: limit, minimumDeadRatio: Self.deadRatioToCompactWhileEvicting, waiting: waits)
        result.bytesAfter = collectableSize() ?? 0
        guard result.bytesAfter > limit else { return result }
        let pinned = try keysUnderPendingWrites()
        while result.bytesAfter > limit && result.rounds < maxRounds {
            func hasTime(_ share: Int) -> Bool { (roundBudget.map { clock.now - start < $0 * share / 2 } ?? true) && !yield() }
            let n = collector.roundSize()
            var taken = 0
            while taken < n && (taken == 0 || hasTime(1)) {
                let slice = try collectSlice(min(Self.evictionSliceSize, n - taken), pinned: pinned, into: &result)
                guard slice > 0 else { break }
                taken += slice
            }
            if taken == 0 {
                // Nothing left to evict: what remains over the threshold is dead records not compacted yet.
                // Without a time bound, until the threshold (or nothing is dirty); with one, within the round's bounds.
                // The first step waits for a publication in flight: nothing else is left to make progress with.
                var steps = 0
                while result.bytesAfter > limit
                    && (roundBudget == nil ? steps == 0 || !yield() : steps < Self.compactionStepsPerSegment && (steps == 0 || hasTime(2))),
                    try compactPiece(
                        sealingActiveAbove: limit, minimumDeadRatio: Self.minimumDeadRatioToCompact, waiting: waits || steps == 0)
                {
                    steps += 1
                    result.bytesAfter = collectableSize() ?? 0
                }
                break
            }
            result.rounds += 1
            var steps = 0
            while steps < Self.compactionStepsPerSegment && (steps == 0 || hasTime(2)),
                try compactPiece(sealingActiveAbove: limit, minimumDeadRatio: Self.deadRatioToCompactWhileEvicting, waiting: waits)
            {
                steps += 1
                result.bytesAfter = collectableSize() ?? 0
                guard result.bytesAfter > limit else { break }
            }
            result.bytesAfter = collectableSize() ?? 0
            start = clock.now
        }
        CairnLogger.firestoreLocalStore.debug(
            "garbage collection towards \(threshold) bytes: \(result.rounds) round(s), \(result.documentsEvicted) "
                + "document(s) evicted, \(result.targetsRemoved) target(s) removed, \(result.bytesBefore) bytes became "
                + "\(result.bytesAfter)")
        return result
    }

    /// Removes the `count` least-recently-used inactive targets and orphans (one append each for targets and
    /// documents), with the removed targets' documents now orphaned no younger than the last of them; returns
    /// the sequence numbers taken, 0 when nothing was left to collect.
    private func collectSlice(_ count: Int, pinned: Set<DocumentKey>, into result: inout GarbageCollectionResult) throws -> Int {
        let round = collector.chooseRound(count, pinned: pinned)
        result.entriesExamined += round.examined
        collector.index.entriesExamined += round.examined
        guard !(round.targets.isEmpty && round.documents.isEmpty) else { return 0 }
        var documents = round.documents
        if !round.targets.isEmpty {
            // A removed target's documents are orphans as old as the target (or their last write): those
            // within the slice's bound go with it, as in Firebase's pass over orphans after the targets.
            let held = Set(round.targets.flatMap { targets.membership.keys(of: $0) })
            try commitTargetEvents(round.targets.map { .removed($0) })
            result.entriesExamined += held.count
            collector.index.entriesExamined += held.count
            for key in held.sorted() where !pinned.contains(key) {
                if let sequence = remoteDocuments.orphanSequence(of: key), sequence <= round.upperBound { documents.append(key) }
            }
        }
        try evictDocuments(documents)
        result.targetsRemoved += round.targets.count
        result.documentsEvicted += documents.count
        result.sequenceNumbersCollected += round.targets.count + documents.count
        return round.targets.count + round.documents.count
    }

    /// Entries garbage collection has read since the cache opened (see ``GarbageCollectionResult/entriesExamined``).
    package var garbageCollectionEntriesExamined: Int { collector.index.entriesExamined }

    /// The size LRU collection brings under a threshold (bytes on disk, or the estimated size of an LRU memory
    /// cache), read without collecting or compacting anything; nil when this cache has none (eager memory mode).
    ///
    /// ```swift
    /// if let size = store.collectableSize(), size > threshold { _ = try store.collectGarbage(threshold: threshold) }
    /// ```
    package func collectableSize() -> UInt64? {
        if let log = events.log { return log.statistics.fileBytes }
        guard case .lru = memoryGarbageCollector, let bytes = estimatedMemoryBytes else { return nil }
        return UInt64(max(bytes, 0))
    }

    /// Advances the compaction in progress by a piece of one segment's worth of file bytes (the log's
    /// `segmentTargetSize`) divided by ``compactionStepsPerSegment``, starting one of the dirtiest segments
    /// with at least `minimumDeadRatio` dead when none is in progress; returns whether it compacted. A round's
    /// time then grows neither with the cache nor with the segment size, and a listener waiting behind it sees
    /// a bounded stall: the step that finishes copying hands the publication's syncs to the log's publisher
    /// queue, and the first step after they end switches to the outputs (segment swap, view relocation). Without
    /// `waiting`, a step while they run does nothing and returns false; with it, the step waits. Persistent mode
    /// only; memory drops retired events at once. While the log is over `limit`, the active segment is sealed
    /// first when it holds dead records: compaction only rewrites sealed segments, and a cache smaller than one
    /// segment lives entirely in it.
    @discardableResult
    private func compactPiece(sealingActiveAbove limit: UInt64, minimumDeadRatio: Double, waiting: Bool) throws -> Bool {
        guard let log = events.log else { return false }
        if log.statistics.fileBytes > limit, let active = log.statistics.segments.last(where: \.isActive),
            active.deadRatio >= Self.minimumDeadRatioToCompact
        {
            do {
                try log.sealActiveSegment()
            } catch {
                throw LocalStoreError.wrap(error)
            }
        }
        let budget = max(log.configuration.segmentTargetSize / Self.compactionStepsPerSegment, 1)
        return try compactStep(minimumDeadRatio: minimumDeadRatio, budget: budget, waitForPublication: waiting)
    }
}
