import SegmentLog

/// Compaction of the Realtime Database cache: whole (``DatabaseCache/compact()``) or in bounded steps with commits
/// between them (``DatabaseCache/compactStep()``, what pruning runs). The views follow the records it moves; a
/// removal keeps hiding what it hides, also the copies a step made of records retired after they were copied.
///
/// ```swift
/// try cache.commit(pruneRecords, durable: false)
/// try cache.compactStep()   // about half a segment of work; later steps go on between later commits
/// try cache.compact()       // all at once (a compaction in progress is finished first)
/// ```
extension DatabaseCache {
    /// Bytes of live records: what the cache holds, exactly.
    package var liveBytes: UInt64 { log.statistics.liveRecordBytes }

    /// Whether a bounded compaction is in progress (``compactStep()``).
    package var isCompacting: Bool { inProgress != nil }

    /// Rewrites the segments that are at least half dead (sealing the active one first when it is), so that the
    /// files shrink to the live records; then retires removals that no longer hide anything. A bounded compaction
    /// in progress is finished first.
    package func compact() throws(PersistenceError) {
        while inProgress != nil { _ = try compactStep() }
        do {
            try sealActiveSegmentIfHalfDead()
            let victims = log.compactionCandidates(minimumDeadRatio: 0.5)
            guard !victims.isEmpty else { return }
            let compaction = try log.makeCompaction(of: victims) { _ in true }
            var summary: CompactionSummary?
            while summary == nil { summary = try compaction.step() }
            finish(summary!)
        } catch {
            throw DatabaseCache.wrap(error)
        }
    }

    /// Does a bounded piece of compaction (about half a segment's bytes, like the Firestore cache's garbage
    /// collection): starts compacting the dirtiest segments that are at least half dead, one segment's worth of
    /// bytes at most, when none is in progress; the step that finishes publishes the outputs and moves the views.
    /// Commits and reads go on between steps. `budget` overrides the bytes of work of the step. Returns false when
    /// nothing was dirty enough to compact.
    @discardableResult
    package func compactStep(budget: Int? = nil) throws(PersistenceError) -> Bool {
        let segmentSize = log.configuration.segmentTargetSize
        do {
            if inProgress == nil {
                try sealActiveSegmentIfHalfDead()
                let sizes = Dictionary(uniqueKeysWithValues: log.statistics.segments.map { ($0.id, $0.fileBytes) })
                var victims: [UInt32] = []
                var total: UInt64 = 0
                for id in log.compactionCandidates(minimumDeadRatio: 0.5) {
                    let size = sizes[id] ?? 0
                    if !victims.isEmpty && total + size > segmentSize { continue }
                    victims.append(id)
                    total += size
                }
                guard !victims.isEmpty else { return false }
                inProgress = try log.makeCompaction(of: victims, outputSegmentSize: Int(segmentSize)) { _ in true }
            }
            let summary = try inProgress!.step(budget: budget ?? Int(segmentSize / 2))
            if let summary { finish(summary) }
        } catch {
            inProgress = nil
            retiredInInputs = []
            throw DatabaseCache.wrap(error)
        }
        return true
    }

    private func sealActiveSegmentIfHalfDead() throws {
        if let active = log.statistics.segments.first(where: \.isActive), active.recordBytes > 0, active.deadRatio >= 0.5 {
            _ = try log.sealActiveSegment()
        }
    }

    /// A published compaction: the views follow the moved records, the inputs count as removed, and removals
    /// that no longer hide anything retire.
    private func finish(_ summary: CompactionSummary) {
        for move in summary.relocations {
            relocate(move)
            if retiredInInputs.contains(move.from) { copiesOfRetired[move.from.segment, default: []].insert(move.to.segment) }
        }
        removedSegments.formUnion(summary.inputs)
        inProgress = nil
        retiredInInputs = []
        sweepRemovals()
    }

    /// Retires a record in the log; remembers it when the compaction in progress may have copied it.
    func retire(_ location: RecordLocation) {
        log.retire(location)
        if let inProgress, inProgress.inputs.contains(location.segment) { retiredInInputs.insert(location) }
    }

    /// The segments of `shadows` that still exist, a removed segment replaced by those holding copies of its
    /// records retired during its compaction (output ids are newer than input ids, so this ends).
    func onDisk(_ shadows: Set<UInt32>) -> Set<UInt32> {
        guard !shadows.isEmpty, !removedSegments.isEmpty else { return shadows }
        var result = Set<UInt32>()
        var work = Array(shadows)
        while let segment = work.popLast() {
            if removedSegments.contains(segment) {
                work.append(contentsOf: copiesOfRetired[segment] ?? [])
            } else {
                result.insert(segment)
            }
        }
        return result
    }

    private func relocate(_ move: Relocation) {
        if move.kind == CacheRecord.Kind.serverOverwrite.rawValue || move.kind == CacheRecord.Kind.serverPruned.rawValue {
            guard let path = try? CacheRecord.serverPath(move.key), var entry = server.value(at: path), entry.location == move.from else { return }
            entry.location = move.to
            server.set(path, entry)
        } else if let key = CacheRecordKey(move.key) {
            if locations[key]?.location == move.from {
                locations[key]?.location = move.to
            } else if tombstones[key]?.location == move.from {
                tombstones[key]?.location = move.to
            }
        }
    }

    /// Retires removals whose hidden records compaction has dropped.
    private func sweepRemovals() {
        let existing = Set(log.statistics.segments.map(\.id))
        for (key, tombstone) in tombstones {
            let shadows = onDisk(tombstone.shadows).intersection(existing)
            if shadows.isEmpty {
                retire(tombstone.location)
                tombstones[key] = nil
            } else {
                tombstones[key]?.shadows = shadows
            }
        }
        var prunes: [(DatabasePath, ServerEntry)] = []
        server.forEach { path, entry in if entry.isPruned { prunes.append((path, entry)) } }
        for (path, entry) in prunes.sorted(by: { $0.0.count > $1.0.count }) {
            var updated = entry
            updated.shadows = onDisk(entry.shadows).intersection(existing)
            if isRedundantPrune(path, updated) {
                retire(entry.location)
                server.set(path, nil)
            } else {
                server.set(path, updated)
            }
        }
    }
}
