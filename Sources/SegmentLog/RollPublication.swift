// A segment roll's publication, off the committing thread. The roll itself only creates the next segment file
// with its header and switches appends to it (SegmentLog+Commit.swift); the durable part runs on the log's
// publisher queue: cut the sealed segment to its data and sync it, sync the new file and the directory, then
// write a manifest that names the sealed segment with its exact length and the new one as active. One
// publication covers every roll pending when it runs. Until then a manifest names no segment a pending roll
// started (`State.manifest(publishing:)`), and a crash leaves those files as orphans, deleted on open: so a
// commit written to such a segment is reported durable only after the publication (a `.full` commit and
// `sync()` wait for it, `syncBehindCommits()` runs it), and nothing else waits for these syncs.

/// A roll done in memory: appends go to `newID`; `sealedID` is sealed at `sealedLength` bytes.
struct PendingRoll {
    let sealedID: UInt32
    let sealed: any StorageFile
    let sealedLength: UInt64
    let newID: UInt32
    let new: any StorageFile
}

extension SegmentLog {
    /// Publishes every pending roll (publisher queue only, so publications never overlap); nil when done or
    /// when none was pending, else the error that poisoned the log.
    func publishPendingRolls() -> StorageError? {
        let rolls: [PendingRoll]
        do {
            rolls = try state.withLock { state in
                try state.checkUsable()
                return state.pendingRolls
            }
        } catch {
            return error as? StorageError ?? StorageError(.io, "\(error)")
        }
        guard !rolls.isEmpty else { return nil }
        do {
            for roll in rolls {
                // Cut the zero preallocation (and anything a failed write left), so the sealed file is exactly as
                // long as the manifest will say; appends went to the new segment since the roll.
                if try roll.sealed.size() > roll.sealedLength { try roll.sealed.truncate(to: roll.sealedLength) }
                try roll.sealed.sync()
                try roll.new.sync()
            }
            try fileSystem.syncDirectory(at: directory)
        } catch {
            // As after any failed sync: the kernel may have dropped unsynced pages and will not say so again.
            return poison(StorageError(
                .poisoned, "a sync failed while sealing segment \(rolls[0].sealedID), so recent writes may be lost; "
                    + "reopen the log to recover (\(error))"))
        }
        let snapshot: (manifest: Manifest, sequence: UInt64) = state.withLock { state in
            state.manifestSequence += 1
            return (state.manifest(publishing: rolls.count), state.manifestSequence)
        }
        do {
            try writeManifest(snapshot.manifest, sequence: snapshot.sequence)
        } catch {
            return poison(StorageError(.poisoned, "starting a new segment failed; reopen the log (\(error))"))
        }
        state.withLock { $0.pendingRolls.removeFirst(rolls.count) }
        return nil
    }

    /// Waits until no roll that started `segment` is pending (publishing them on the publisher queue); nil
    /// then, else the error that stopped the publication. Never call on the publisher queue.
    func awaitRollPublication(of segment: UInt32) -> StorageError? {
        guard state.withLock({ state in state.pendingRolls.contains { $0.newID == segment } }) else { return nil }
        let failure = publisher.sync { publishPendingRolls() }
        if let failure { return failure }
        return state.withLock { state in
            state.pendingRolls.contains { $0.newID == segment }
                ? state.poisoned ?? StorageError(.closed, "the log is closed") : nil
        }
    }

    /// Poisons the log with `error` unless it already is; returns the log's poison.
    private func poison(_ error: StorageError) -> StorageError {
        state.withLock { state in
            if state.poisoned == nil { state.poisoned = error }
            return state.poisoned!
        }
    }
}
