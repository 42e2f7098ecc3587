// Compaction rewrites sealed segments, keeping only live records, into new sealed segments, then publishes
// them in the manifest in place of the inputs and deletes the inputs. It is incremental: each `step` does a
// bounded amount of work, so the owner can interleave it with reads and writes, and the publication's syncs run
// on the log's publisher queue (CompactionPublication.swift). Crash safety comes from the order of effects:
// outputs are written and synced before the manifest names them (a crash before leaves orphans, removed on
// open); inputs are deleted only after the manifest stops naming them (a crash before leaves orphans too).
// Records keep their kind, key, value and sequence number; only locations change.

import Synchronization

/// One record moved by compaction: update views that held `from` to `to`.
public struct Relocation: Sendable, Equatable {
    /// The record's kind, so a layer above can tell which of its views may hold it.
    public var kind: UInt8
    public var key: [UInt8]
    public var from: RecordLocation
    public var to: RecordLocation
}

/// What a finished compaction did.
public struct CompactionSummary: Sendable {
    public var inputs: [UInt32]
    public var outputs: [UInt32]
    public var recordsKept: Int
    public var recordsDropped: Int
    /// File bytes of the inputs.
    public var bytesBefore: UInt64
    /// File bytes of the outputs.
    public var bytesAfter: UInt64
    /// Every record that moved. Apply them before reading moved records again: the inputs are gone.
    public var relocations: [Relocation]
}

/// A compaction in progress. Create with ``SegmentLog/makeCompaction(of:clusterByKey:isLive:)``, then call
/// ``step(budget:waitForPublication:)`` until it returns a summary.
///
/// ```swift
/// let victims = log.compactionCandidates(minimumDeadRatio: 0.5)
/// let compaction = try log.makeCompaction(of: victims) { record in index[record.keyBytes] == record.location }
/// while true {
///     if let summary = try compaction.step() {
///         for move in summary.relocations where index[move.key] == move.from { index[move.key] = move.to }
///         break
///     }
/// }
/// ```
public final class Compaction {
    let log: SegmentLog
    public let inputs: [UInt32]
    let clusterByKey: Bool
    /// File bytes at which an output segment is sealed and the next one started.
    let outputSegmentSize: UInt64
    let isLive: (RecordView) -> Bool

    private var phase: Phase = .scanning(input: 0)
    private var cursor: FrameCursor?
    private let payloads = PayloadBuffer()
    private var survivors: [(key: [UInt8], lsn: UInt64, location: RecordLocation)] = []
    private var copied = 0
    private var dropped = 0

    private var output: SegmentBuilder?
    private var finishedOutputs: [SegmentBuilder] = []
    private var relocations: [Relocation] = []
    /// Keys and old locations of records added to the packer whose new locations are not yet known.
    private var pendingMoves: [(kind: UInt8, key: [UInt8], from: RecordLocation)] = []
    private var isDone = false

    private enum Phase {
        case scanning(input: Int)
        case copying(next: Int)
        case publishing
        /// The outputs are written; the publisher queue syncs them and switches the manifest.
        case awaitingPublication(PendingPublication)
    }

    init(
        log: SegmentLog, inputs: [UInt32], clusterByKey: Bool, outputSegmentSize: UInt64,
        isLive: @escaping (RecordView) -> Bool
    ) {
        self.log = log
        self.inputs = inputs
        self.clusterByKey = clusterByKey
        self.outputSegmentSize = outputSegmentSize
        self.isLive = isLive
    }

    deinit {
        if !isDone { abandon() }
    }

    /// The ids of the output segments started so far. They are named by no manifest until the last step
    /// publishes them, but their ids are taken: a caller that interleaves steps with appends can tell that the
    /// records copied so far live in segments up to the highest of them.
    public var outputIDs: [UInt32] {
        finishedOutputs.map(\.id) + (output.map { [$0.id] } ?? [])
    }

    /// A frame whose records are all retired is read and checksummed but neither decompressed nor copied: it
    /// counts as its size divided by this against a step's budget: a checksum pass instead of decompression,
    /// a walk of its records and copies into an output, so that a step over emptied segments moves further.
    static let skippedFrameWorkDivisor = 8

    /// Whether the outputs are written and the publisher queue is still syncing them and switching the manifest:
    /// a step now does nothing unless it waits (``step(budget:waitForPublication:)``).
    public var isAwaitingPublication: Bool {
        guard case .awaitingPublication(let pending) = phase, case .syncing = pending.wait(timeout: .zero) else { return false }
        return true
    }

    /// Waits up to `timeout` for the publication in flight (``isAwaitingPublication``); returns whether it has
    /// ended, so that the next step finishes the compaction (or reports its failure) without waiting.
    public func waitForPublication(timeout: Duration) -> Bool {
        guard case .awaitingPublication(let pending) = phase, case .syncing = pending.wait(timeout: timeout) else { return true }
        return false
    }

    /// Does up to about `budget` bytes of work (bytes read from inputs or copied to outputs; a frame with
    /// nothing to keep counts as 1/``skippedFrameWorkDivisor`` of its size). Returns the summary once the
    /// outputs are published and the inputs deleted, nil while there is work left.
    ///
    /// The publication's syncs (outputs, directory, manifest) run on the log's publisher queue. With
    /// `waitForPublication` (the default) the step that reaches them waits; without, it returns nil at once
    /// while they run, and a later step switches the log to the outputs and returns the summary.
    public func step(budget: Int = 4 << 20, waitForPublication: Bool = true) throws -> CompactionSummary? {
        precondition(!isDone, "this compaction has finished")
        do {
            var work = 0
            while work < budget {
                switch phase {
                case .scanning(let input):
                    if input == inputs.count {
                        if clusterByKey {
                            survivors.sort { ($0.key.lexicographicallyPrecedes($1.key)) || ($0.key == $1.key && $0.lsn < $1.lsn) }
                            phase = .copying(next: 0)
                        } else {
                            phase = .publishing
                        }
                        continue
                    }
                    work += try scanFrame(of: input)
                case .copying(let next):
                    if next == survivors.count {
                        survivors = []
                        phase = .publishing
                        continue
                    }
                    let entry = survivors[next]
                    work += try log.withFrame(FrameKey(segment: entry.location.segment, offset: entry.location.frameOffset)) { frame in
                        try frame.withRecord(at: Int(entry.location.index)) { try copy($0) }
                    }
                    phase = .copying(next: next + 1)
                case .publishing:
                    if let out = output { try seal(out) }
                    phase = .awaitingPublication(log.startPublication(inputs: inputs, outputs: finishedOutputs))
                case .awaitingPublication(let pending):
                    switch pending.wait(timeout: waitForPublication ? nil : .zero) {
                    case .syncing:
                        return nil
                    case .failed(let error):
                        throw error
                    case .durable:
                        let summary = try finish()
                        isDone = true
                        return summary
                    }
                }
            }
            return nil
        } catch {
            abandon()
            isDone = true
            throw error
        }
    }

    /// Reads one frame of input `index`; returns the bytes consumed.
    private func scanFrame(of index: Int) throws -> Int {
        let id = inputs[index]
        if cursor == nil {
            guard let plan = try log.scanPlan().first(where: { $0.id == id }) else {
                throw StorageError(.notFound, "segment \(id) disappeared during compaction")
            }
            cursor = FrameCursor(handle: plan.handle, end: plan.length)
        }
        switch try cursor!.next() {
        case .end:
            cursor = nil
            phase = .scanning(input: index + 1)
            return 0
        case .damage(let offset, let problem, let header):
            throw StorageError(
                .corruption, "compaction input segment \(id), frame at offset \(offset): \(problem); "
                    + SegmentLog.describeLoss(header), path: log.segmentPath(id), offset: offset)
        case .frame(let offset, let header, let stored):
            // The frame's retired records as of now (one lock per frame); a record retired later is copied and
            // marked retired again at its new place when the compaction publishes.
            let retired = log.state.withLock { $0.segments[id]?.dead[UInt32(offset)] } ?? []
            if retired.reduce(0, { $0 + $1.nonzeroBitCount }) == Int(header.recordCount) {
                // Nothing to keep (garbage collection evicts whole runs of old records): skip decompressing, and
                // count only the read and checksum of the frame as work.
                dropped += Int(header.recordCount)
                return max(header.frameSize / Self.skippedFrameWorkDivisor, SegmentFormat.frameHeaderSize)
            }
            let raw: UnsafeRawBufferPointer
            switch payloads.raw(header: header, stored: stored) {
            case .failure(let problem):
                throw StorageError(
                    .corruption, "compaction input segment \(id), frame at offset \(offset): \(problem.what)",
                    path: log.segmentPath(id), offset: offset)
            case .success(let bytes): raw = bytes
            }
            let problem = try FrameDecoding.forEachRecord(in: raw, header: header, segment: id, frameOffset: UInt32(offset)) { _, view in
                let index = Int(view.location.index)
                let isRetired = index / 64 < retired.count && retired[index / 64] & (1 << UInt64(index % 64)) != 0
                guard !isRetired && isLive(view) else {
                    dropped += 1
                    return
                }
                if clusterByKey {
                    survivors.append((view.keyBytes, view.lsn, view.location))
                } else {
                    _ = try copy(view)
                }
            }
            if let problem {
                throw StorageError(.corruption, "compaction input segment \(id), frame at offset \(offset): \(problem)")
            }
            return header.frameSize
        }
    }

    /// Appends a live record to the current output segment; returns its encoded size.
    private func copy(_ view: RecordView) throws -> Int {
        if output == nil {
            let id: UInt32 = try log.state.withLock { state in
                guard state.nextSegmentID <= SegmentFormat.maxSegmentID else {
                    throw StorageError(.invalidArgument, "segment ids are used up; salvage the log to renumber its segments")
                }
                defer { state.nextSegmentID += 1 }
                return state.nextSegmentID
            }
            output = try SegmentBuilder(
                id: id, cacheID: log.state.withLock { $0.cacheID }, directory: log.directory, configuration: log.configuration,
                synced: false)
        }
        let out = output!
        out.add(view)
        pendingMoves.append((view.kind, view.keyBytes, view.location))
        copied += 1
        noteMoves(try out.writeFinishedFrames())
        if out.estimatedSize >= outputSegmentSize { try seal(out) }
        return Int(view.location.size)
    }

    /// Pairs new locations with the records added earliest that have none yet.
    private func noteMoves(_ locations: [RecordLocation]) {
        for (i, location) in locations.enumerated() {
            let move = pendingMoves[i]
            relocations.append(Relocation(kind: move.kind, key: move.key, from: move.from, to: location))
        }
        pendingMoves.removeFirst(locations.count)
    }

    private func seal(_ out: SegmentBuilder) throws {
        noteMoves(try out.seal())
        finishedOutputs.append(out)
        output = nil
    }

    /// Switches the log to the durable outputs and deletes the inputs.
    private func finish() throws -> CompactionSummary {
        let outputs = finishedOutputs
        let bytesBefore = try log.applyPublication(inputs: inputs, outputs: outputs, relocations: relocations)
        return CompactionSummary(
            inputs: inputs, outputs: outputs.map(\.id), recordsKept: copied, recordsDropped: dropped,
            bytesBefore: bytesBefore, bytesAfter: outputs.reduce(0) { $0 + $1.length }, relocations: relocations)
    }

    /// Removes unpublished outputs and releases the inputs for another compaction, after waiting for a
    /// publication in flight. When the manifest on disk names the outputs (the publication became durable and
    /// the log was closed or poisoned before the switch) or may name them (a manifest switch failed half-way:
    /// the log is poisoned), the outputs stay and the inputs stay taken: opening the log again settles which.
    private func abandon() {
        var published = false
        if case .awaitingPublication(let pending) = phase, case .durable = pending.wait(timeout: nil) { published = true }
        var all = finishedOutputs
        if let output { all.append(output) }
        // After close() the directory lock is gone and another owner may already use these ids: never unlink
        // then (opening removes orphans anyway). A poisoned log's manifest may name the outputs.
        let keepFiles = log.state.withLock { $0.poisoned != nil || $0.isClosed }
        for out in all {
            if keepFiles || published { try? out.handle.close() } else { out.discard() }
        }
        finishedOutputs = []
        output = nil
        if published { return }
        log.state.withLock { state in
            for id in inputs { state.compacting.remove(id) }
        }
    }
}

extension SegmentLog {
    /// Sealed segments whose dead share of record bytes is at least `minimumDeadRatio`, dirtiest first.
    public func compactionCandidates(minimumDeadRatio: Double = 0.5) -> [UInt32] {
        statistics.segments
            .filter { !$0.isActive && $0.recordBytes > 0 && $0.deadRatio >= minimumDeadRatio }
            .sorted { $0.deadRatio > $1.deadRatio }
            .map(\.id)
    }

    /// Starts compacting `segments` (sealed, not being compacted already). A record survives when it was not
    /// retired and `isLive` returns true for it. With `clusterByKey`, survivors are written in key order so
    /// that records with a common key prefix end up in neighbouring frames. Outputs are sealed at
    /// `outputSegmentSize` file bytes (default and upper bound: the configuration's `segmentTargetSize`), so a
    /// caller that compacts in bounded pieces keeps its segments small enough to compact one at a time.
    public func makeCompaction(
        of segments: [UInt32], clusterByKey: Bool = false, outputSegmentSize: Int? = nil,
        isLive: @escaping (RecordView) -> Bool
    ) throws -> Compaction {
        guard !configuration.readOnly else { throw StorageError(.invalidArgument, "the log was opened read-only") }
        guard !segments.isEmpty else { throw StorageError(.invalidArgument, "nothing to compact: no segments given") }
        try state.withLock { state in
            try state.checkUsable()
            for id in segments {
                guard let segment = state.segments[id] else {
                    throw StorageError(.invalidArgument, "segment \(id) is not part of the log")
                }
                guard !segment.isActive else {
                    throw StorageError(.invalidArgument, "segment \(id) is the active segment; only sealed segments are compacted")
                }
                guard !state.compacting.contains(id) else {
                    throw StorageError(.invalidArgument, "segment \(id) is already being compacted")
                }
            }
            guard Set(segments).count == segments.count else {
                throw StorageError(.invalidArgument, "a segment is listed twice")
            }
            state.compacting.formUnion(segments)
        }
        let ordered = state.withLock { state in state.order.filter { segments.contains($0) } }
        let outputSize = min(UInt64(max(outputSegmentSize ?? configuration.segmentTargetSize, 4096)), segmentTargetSize)
        return Compaction(log: self, inputs: ordered, clusterByKey: clusterByKey, outputSegmentSize: outputSize, isLive: isLive)
    }
}
