// A compaction's publication, off the caller's thread. The step that finishes copying writes the outputs' last
// frames and hands the durable part to the log's publisher queue: sync the outputs, the directory, and the
// commits that superseded the dropped records, then write a manifest that names the outputs in place of the
// inputs (after publishing the segment rolls pending then, RollPublication.swift). A later step (or the same
// one, when it waits) switches the log in memory — segments, frame cache, records retired meanwhile — and the
// publisher queue deletes the inputs. Until then reads still go to the inputs, and every
// manifest written meanwhile (a segment roll) names the outputs too: the state keeps the durable outputs in
// `readyPublications`, which `State.manifest()` applies. Manifest writes are numbered so that a snapshot taken
// earlier never replaces a newer manifest on disk.

import Dispatch
import Synchronization

/// Outputs of a compaction that are durable and may be named by a manifest in place of its inputs.
struct ReadyPublication {
    let inputs: [UInt32]
    let outputs: [Manifest.Entry]

    /// `entries` with the inputs replaced by the outputs, at the first input's place (inputs are in log order).
    func apply(to entries: inout [Manifest.Entry]) {
        guard let position = entries.firstIndex(where: { $0.id == inputs[0] }) else { return }
        entries.removeAll { inputs.contains($0.id) }
        entries.insert(contentsOf: outputs, at: min(position, entries.count))
    }
}

/// The background part of one publication: syncing until it is durable or has failed.
final class PendingPublication: @unchecked Sendable {
    enum Status {
        case syncing
        /// A manifest naming the outputs is on disk.
        case durable
        /// Nothing names the outputs (unless the log is poisoned: then the manifest may).
        case failed(StorageError)
    }

    private let lock = ConditionLock()
    private var status = Status.syncing

    func finish(_ outcome: Status) {
        lock.withLock {
            status = outcome
            lock.broadcast()
        }
    }

    /// The status once the background work has ended or `timeout` has passed (nil: no limit).
    func wait(timeout: Duration?) -> Status {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        lock.lock()
        defer { lock.unlock() }
        while case .syncing = status {
            guard let deadline else {
                lock.wait()
                continue
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            lock.wait(nanoseconds: max(remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000, 1))
        }
        return status
    }
}

extension SegmentLog {
    /// Starts making `outputs` (written, not yet synced) durable in place of `inputs` on the publisher queue.
    func startPublication(inputs: [UInt32], outputs: [SegmentBuilder]) -> PendingPublication {
        let pending = PendingPublication()
        let entries = outputs.map(\.manifestEntry)
        let handles = outputs.map(\.handle)
        publisher.async { [self] in
            pending.finish(publishDurably(inputs: inputs, outputs: entries, handles: handles))
        }
        return pending
    }

    private func publishDurably(inputs: [UInt32], outputs: [Manifest.Entry], handles: [any StorageFile]) -> PendingPublication.Status {
        do {
            for handle in handles { try handle.sync() }
            if !handles.isEmpty { try fileSystem.syncDirectory(at: directory) }
            // Records were retired because newer ones superseded them. Those newer records must be durable
            // before the manifest stops naming the old ones, or a crash could lose both (.normal, .none): the
            // rolls pending now are published first (their sealed segments synced, their new ones named).
            _ = try syncCommits(publishingRollsHere: true)
        } catch {
            return .failed(error as? StorageError ?? StorageError(.io, "syncing a compaction's outputs failed (\(error))"))
        }
        let snapshot: (manifest: Manifest, sequence: UInt64)
        do {
            snapshot = try state.withLock { state in
                try state.checkUsable()
                state.readyPublications.append(ReadyPublication(inputs: inputs, outputs: outputs))
                state.generation &+= 1  // informational; a damaged manifest may hold any value
                state.manifestSequence += 1
                return (state.manifest(), state.manifestSequence)
            }
        } catch {
            return .failed(error as? StorageError ?? StorageError(.io, "\(error)"))
        }
        do {
            try writeManifest(snapshot.manifest, sequence: snapshot.sequence)
        } catch {
            let poison = StorageError(.poisoned, "switching the manifest after a compaction failed; reopen the log (\(error))")
            state.withLock { if $0.poisoned == nil { $0.poisoned = poison } }
            return .failed(poison)
        }
        return .durable
    }

    /// Writes `manifest`, the snapshot numbered `sequence`, unless a later snapshot is on disk already (it names
    /// everything this one does: ready publications stay in the state until applied).
    func writeManifest(_ manifest: Manifest, sequence: UInt64) throws {
        try manifestWriter.withLock { written in
            guard sequence > written else { return }
            try manifest.write(to: directory, fileSystem: fileSystem)
            written = sequence
        }
    }

    /// Switches the log in memory from `inputs` to the outputs of a durable publication; the publisher queue
    /// then deletes the inputs and syncs the directory. Returns the inputs' bytes.
    func applyPublication(inputs: [UInt32], outputs: [SegmentBuilder], relocations: [Relocation]) throws -> UInt64 {
        let (bytesBefore, handles): (UInt64, [any StorageFile]) = try state.withLock { state in
            try state.checkUsable()
            let position = state.order.firstIndex(of: inputs[0])!
            var bytes: UInt64 = 0
            for id in inputs { bytes += state.segments[id]!.length }
            let handles = inputs.map { state.segments[$0]!.handle }
            state.order.removeAll { inputs.contains($0) }
            state.order.insert(contentsOf: outputs.map(\.id), at: position)
            for out in outputs {
                var entry = SegmentEntry(id: out.id, handle: out.handle, isActive: false, length: out.length)
                entry.noteRecords(count: out.recordCount, bytes: out.recordBytes, minLSN: out.minLSN, maxLSN: out.maxLSN)
                state.segments[out.id] = entry
            }
            // Records retired while they were being copied stay retired at their new place.
            for move in relocations where state.segments[move.from.segment]!.isRetired(move.from) {
                _ = state.segments[move.to.segment]!.retire(move.to)
            }
            for id in inputs {
                _ = state.cache.reserve(-state.segments[id]!.frameOffsets.memoryCost)
                state.segments[id] = nil
                state.compacting.remove(id)
                state.cache.removeSegment(id)
            }
            state.readyPublications.removeAll { $0.inputs == inputs }
            return (bytes, handles)
        }
        // No manifest names the inputs any more; if deleting fails they are orphans removed on next open. Deleting
        // a file and closing its last descriptor free its blocks, which waits for the file system's journal (and
        // discards, where mounted so): the publisher queue does both, off the caller's thread. The handles are
        // not closed explicitly, as a reader may still be using one: the queue drops its references last.
        publisher.async { [self, handles] in
            for id in inputs { try? fileSystem.removeFile(at: segmentPath(id)) }
            try? fileSystem.syncDirectory(at: directory)
            withExtendedLifetime(handles) {}
        }
        return bytesBefore
    }
}
