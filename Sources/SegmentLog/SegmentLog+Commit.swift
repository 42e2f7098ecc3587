// Commits and group commit. A committer queues its batch; the first one to find no leader becomes the
// leader, takes every queued batch (up to 4 MiB), writes them as consecutive frames with one write call,
// syncs once if the durability mode asks for it, and wakes the others. Batches queued while a leader syncs
// form the next group, so N concurrent durable committers pay far fewer than N syncs (LevelDB's
// BuildBatchGroup, SQLite WAL's group commit).
//
// A failed sync is fatal for the writer: data in the page cache may have been dropped, and a retried sync
// could report success without it (PostgreSQL's "fsyncgate"). The log is poisoned; reopen it to recover.

import Synchronization

final class PendingCommit: @unchecked Sendable {
    let batch: WriteBatch
    let forceSync: Bool
    var result: Result<[RecordLocation], StorageError>?

    init(batch: WriteBatch, forceSync: Bool) {
        self.batch = batch
        self.forceSync = forceSync
    }
}

/// The queue of commits waiting for a leader, guarded by its condition lock.
final class CommitQueue: @unchecked Sendable {
    let lock = ConditionLock()
    var waiting: [PendingCommit] = []
    var leaderActive = false
    var stopped = false

    func stop() {
        lock.withLock {
            stopped = true
            lock.broadcast()
        }
    }

    /// Waits until no commit is queued or being written (after ``stop()``, none can join); returns whether any
    /// was (commits that entered before ``stop()`` are still written).
    func drain() -> Bool {
        lock.withLock {
            let busy = leaderActive || !waiting.isEmpty
            while leaderActive || !waiting.isEmpty { lock.wait() }
            return busy
        }
    }
}

extension SegmentLog {
    /// Appends a batch atomically; returns the records' locations, in batch order.
    ///
    /// With ``Durability/full`` the batch is durable when this returns.
    /// - Throws: `.invalidArgument` for an empty key or a record over the size limits (nothing is written),
    ///   `.io` when the write fails (nothing of the batch is visible), `.poisoned` after a failed sync,
    ///   `.closed` after ``close()``.
    @discardableResult
    public func commit(_ batch: WriteBatch) throws -> [RecordLocation] {
        try validate(batch)
        if batch.isEmpty {
            try state.withLock { try $0.checkUsable() }
            return []
        }
        return try enqueue(PendingCommit(batch: batch, forceSync: false))
    }

    /// Appends one record as its own batch; returns its location.
    @discardableResult
    public func append(kind: UInt8, key: [UInt8], value: [UInt8]) throws -> RecordLocation {
        var batch = WriteBatch()
        batch.append(kind: kind, key: key, value: value)
        return try commit(batch)[0]
    }

    /// Makes every commit so far durable, whatever the durability mode.
    public func sync() throws {
        _ = try enqueue(PendingCommit(batch: WriteBatch(), forceSync: true))
    }

    /// Syncs the commits made so far without holding up the others: a commit that arrives while this syncs is
    /// written at once and becomes durable with a later sync. Returns the sequence number below which every
    /// commit is durable. For a caller that syncs behind its own commits on a log opened with
    /// ``Durability/none`` (the Firestore cache's group commit); with ``Durability/full`` every commit already
    /// waits for its own sync.
    ///
    /// ```swift
    /// try log.commit(batch)                        // in the operating system, not yet durable
    /// let durableBelow = try log.syncBehindCommits() // batch is durable; later commits did not wait
    /// ```
    /// - Throws: `.poisoned` when the sync fails (the log is poisoned, as after any failed sync: reopen it),
    ///   `.closed` after ``close()``.
    public func syncBehindCommits() throws -> UInt64 {
        try syncCommits(publishingRollsHere: false)
    }

    /// ``syncBehindCommits()``; a compaction's publication, which runs on the publisher queue, publishes
    /// pending rolls itself (`publishingRollsHere`) instead of waiting for the queue.
    func syncCommits(publishingRollsHere: Bool) throws -> UInt64 {
        // Frames are written under the state lock, so what the active segment holds now is exactly the commits
        // below `nextLSN`; sealed segments were synced when they were sealed, or are synced by the publication
        // of the roll that sealed them, which also names the segments it started in a manifest.
        let (handle, segment, end, durableBelow, unsynced, rolling) = try state.withLock { state in
            try state.checkUsable()
            return (
                state.active.handle, state.activeID, state.active.length, state.nextLSN, state.hasUnsyncedWrites,
                !state.pendingRolls.isEmpty)
        }
        if rolling {
            if let failure = publishingRollsHere ? publishPendingRolls() : awaitRollPublication(of: segment) { throw failure }
        }
        guard unsynced else { return durableBelow }
        do {
            try handle.sync()
        } catch {
            let poison = StorageError(
                .poisoned, "a sync failed, so recent writes may be lost; reopen the log to recover (\(error))")
            state.withLock { if $0.poisoned == nil { $0.poisoned = poison } }
            throw poison
        }
        state.withLock { state in
            state.lastSync = .now
            guard state.activeID == segment else { return }
            state.syncedEnd = max(state.syncedEnd, end)
            if state.active.length == end { state.hasUnsyncedWrites = false }
        }
        return durableBelow
    }

    private func validate(_ batch: WriteBatch) throws {
        if configuration.readOnly { throw StorageError(.invalidArgument, "the log was opened read-only") }
        for i in 0..<batch.count {
            let keyCount = batch.keys[i].count
            if keyCount == 0 {
                throw StorageError(.invalidArgument, "record \(i) of the batch has an empty key; keys must not be empty")
            }
            if keyCount > configuration.maxKeySize {
                throw StorageError(
                    .invalidArgument, "record \(i) has a \(keyCount)-byte key; the limit is \(configuration.maxKeySize) bytes")
            }
            let size = RecordCoding.encodedSize(lsnDelta: 0, keyCount: keyCount, valueCount: batch.values[i].count)
            if size > configuration.maxRecordSize {
                throw StorageError(
                    .invalidArgument,
                    "record \(i) encodes to \(size) bytes; the limit is \(configuration.maxRecordSize) bytes (maxRecordSize)")
            }
        }
    }

    private func enqueue(_ commit: PendingCommit) throws -> [RecordLocation] {
        let queue = commitQueue
        queue.lock.lock()
        if queue.stopped {
            queue.lock.unlock()
            throw StorageError(.closed, "the log is closed")
        }
        queue.waiting.append(commit)
        while commit.result == nil && queue.leaderActive { queue.lock.wait() }
        if let result = commit.result {
            queue.lock.unlock()
            return try result.get()
        }
        queue.leaderActive = true
        var group: [PendingCommit] = []
        var bytes = 0
        while let next = queue.waiting.first, group.isEmpty || bytes + next.batch.encodedSize <= 4 << 20 {
            group.append(queue.waiting.removeFirst())
            bytes += next.batch.encodedSize
        }
        queue.lock.unlock()

        let results = writeGroup(group)

        queue.lock.lock()
        for (pending, result) in zip(group, results) { pending.result = result }
        queue.leaderActive = false
        queue.lock.broadcast()
        queue.lock.unlock()
        return try commit.result!.get()
    }

    /// Writes a group of batches (leader only). Returns one result per batch.
    private func writeGroup(_ group: [PendingCommit]) -> [Result<[RecordLocation], StorageError>] {
        func failAll(_ error: Error) -> [Result<[RecordLocation], StorageError>] {
            let storageError = error as? StorageError ?? StorageError(.io, "\(error)")
            return group.map { _ in .failure(storageError) }
        }
        let wroteRecords = group.contains { !$0.batch.isEmpty }
        var locations: [[RecordLocation]] = []
        let handle: any StorageFile
        let needsSync: Bool
        let needsRoll: Bool
        let written: (segment: UInt32, end: UInt64)
        do {
            (handle, locations, needsSync, needsRoll, written) = try state.withLock { state in
                try state.checkUsable()
                if wroteRecords { locations = try appendFrames(group, to: &state) }
                let due: Bool
                switch configuration.durability {
                case .full: due = true
                case .normal(let delay): due = ContinuousClock.now - state.lastSync >= delay
                case .none: due = false
                }
                let sync = state.hasUnsyncedWrites && (due || group.contains { $0.forceSync })
                return (
                    state.active.handle, locations, sync, state.active.length >= segmentTargetSize,
                    (state.activeID, state.active.length))
            }
        } catch {
            return failAll(error)
        }
        if needsSync {
            do {
                try handle.sync()
                state.withLock { state in
                    state.hasUnsyncedWrites = false
                    state.lastSync = .now
                    if state.activeID == written.segment { state.syncedEnd = max(state.syncedEnd, written.end) }
                }
            } catch {
                let poison = StorageError(
                    .poisoned, "a sync failed, so recent writes may be lost; reopen the log to recover (\(error))")
                state.withLock { $0.poisoned = poison }
                return failAll(poison)
            }
        }
        if needsRoll {
            // The group is written; a failed roll only stops later writes.
            do {
                try state.withLock { try rollSegment(&$0) }
            } catch {
                let poison = StorageError(.poisoned, "starting a new segment failed; reopen the log (\(error))")
                state.withLock { $0.poisoned = poison }
            }
        }
        // A group that asked for durability, written to a segment no manifest on disk names yet, is durable once
        // the roll that started the segment is published.
        if configuration.durability == .full || group.contains(where: \.forceSync),
            let failure = awaitRollPublication(of: written.segment)
        {
            return failAll(failure)
        }
        var perBatch = locations.makeIterator()
        return group.map { $0.batch.isEmpty ? .success([]) : .success(perBatch.next()!) }
    }

    /// Encodes the group's batches as frames at the end of the active segment and writes them.
    private func appendFrames(_ group: [PendingCommit], to state: inout State) throws -> [[RecordLocation]] {
        let active = state.active
        var packer = FramePacker(
            targetSize: configuration.frameTargetSize, compress: configuration.compression,
            baseOffset: active.length, segment: active.id)
        packer.syncedEnd = UInt32(state.syncedEnd)
        var lsn = state.nextLSN
        var counts: [Int] = []
        for pending in group where !pending.batch.isEmpty {
            packer.addBatch(pending.batch, firstLSN: lsn)
            lsn += UInt64(pending.batch.count)
            counts.append(pending.batch.count)
        }
        packer.finishFrame(commit: true)
        let (bytes, all) = packer.take()
        let end = active.length + UInt64(bytes.count)
        guard end <= SegmentFormat.maxSegmentLength else {
            throw StorageError(.invalidArgument, "the group of batches does not fit in one segment")
        }
        guard lsn < SegmentFormat.lsnLimit else {
            throw StorageError(.invalidArgument, "the log has used up its sequence numbers (\(lsn)); salvage it into a new log")
        }
        do {
            try active.handle.write(bytes, at: active.length)
        } catch {
            // Part of the group may be on disk past the log's end. Cut it, or a later commit that ends on one
            // of its frame boundaries would let recovery see the failed batch's commit frame.
            do {
                try active.handle.truncate(to: active.length)
                state.allocatedEnd = active.length
            } catch {
                state.poisoned = StorageError(
                    .poisoned, "a failed write could not be undone; reopen the log to recover (\(error))")
            }
            throw error
        }
        if configuration.preallocationSize > 0 && end > state.allocatedEnd {
            // Zero-fill ahead of the writer once per preallocation chunk, so later commits overwrite
            // allocated blocks (a cheaper sync than one that also extends the file). Only an optimisation:
            // if it fails (a full disk), the commit stands and zeros that did land are a harmless tail.
            let zeros = [UInt8](repeating: 0, count: configuration.preallocationSize)
            if (try? active.handle.write(zeros, at: end)) != nil {
                state.allocatedEnd = end + UInt64(configuration.preallocationSize)
            }
        }
        state.active.length = end
        state.active.noteRecords(
            count: UInt64(all.count), bytes: all.reduce(0) { $0 + UInt64($1.size) }, minLSN: state.nextLSN, maxLSN: lsn - 1)
        state.nextLSN = lsn
        state.hasUnsyncedWrites = true
        var result: [[RecordLocation]] = []
        var start = 0
        for count in counts {
            result.append(Array(all[start..<(start + count)]))
            start += count
        }
        return result
    }

    /// Seals the active segment and starts a new one: creates the next segment file with its header and
    /// switches appends to it, without syncing anything. The publisher queue then publishes the roll
    /// (RollPublication.swift): until then a crash leaves the new file as an orphan (removed on open) and the
    /// sealed segment as the manifest's active one.
    func rollSegment(_ state: inout State) throws {
        var sealed = state.active
        let newID = state.nextSegmentID
        let handle = try SegmentLog.createSegmentFile(
            id: newID, cacheID: state.cacheID, in: directory, fileSystem: fileSystem, sync: false)
        sealed.isActive = false
        state.segments[sealed.id] = sealed
        state.segments[newID] = SegmentEntry(id: newID, handle: handle, isActive: true, length: UInt64(SegmentFormat.segmentHeaderSize))
        state.order.append(newID)
        state.activeID = newID
        state.nextSegmentID = newID + 1
        state.generation &+= 1  // informational; a damaged manifest may hold any value
        state.allocatedEnd = UInt64(SegmentFormat.segmentHeaderSize)
        state.pendingRolls.append(
            PendingRoll(sealedID: sealed.id, sealed: sealed.handle, sealedLength: sealed.length, newID: newID, new: handle))
        state.hasUnsyncedWrites = false
        state.syncedEnd = UInt64(SegmentFormat.segmentHeaderSize)
        publisher.async { [self] in _ = publishPendingRolls() }
    }

    /// The `.normal` mode's flusher: syncs pending writes at most `delay` after they were written. It sleeps
    /// whole periods (commits' wake-ups do not shorten them), so it adds at most one sync per period.
    func startFlusher(every delay: Duration) {
        let period = max(Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000, 1_000_000)
        let thread = FlusherThread { [weak self] in
            guard let self else { return false }
            let queue = self.commitQueue
            let deadline = ContinuousClock.now + .nanoseconds(period)
            queue.lock.lock()
            while !queue.stopped, case let remaining = deadline - ContinuousClock.now, remaining > .zero {
                queue.lock.wait(nanoseconds: max(remaining.components.attoseconds / 1_000_000_000 + remaining.components.seconds * 1_000_000_000, 1))
            }
            let stopped = queue.stopped
            queue.lock.unlock()
            if stopped { return false }
            // Sync whatever is unsynced at each wake-up, even if an inline sync happened within the period:
            // a write made just after that sync must not wait a second period.
            let due = self.state.withLock { $0.hasUnsyncedWrites && $0.poisoned == nil && !$0.isClosed }
            if due { try? self.sync() }
            return true
        }
        thread.start()
    }
}
